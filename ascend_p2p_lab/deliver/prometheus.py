"""A check's verdict as Prometheus metrics: the text exposition format, for a file that
node_exporter's textfile collector reads (written atomically) and for ``exporter``'s
``/metrics``. Built with ``prometheus_client`` (the ``exporter`` extra), imported when
used.

Metric names (released: renamed only with a deprecation note, docs/prometheus.md):

- ``ascend_p2p_link_bandwidth_bytes_per_second`` and
  ``ascend_p2p_link_bar_bytes_per_second``: per link and direction (``src``, ``dst``,
  ``link``, ``direction``, ``initiator``), the measured median and its criterion;
- ``ascend_p2p_link_status``: per link and direction, 1 for its item's state (label
  ``status``), 0 for every other state;
- ``ascend_p2p_item_status``: per item (``item``, ``kind``), 1 with its state;
- ``ascend_p2p_check_status``: per host, 1 for its verdict, 0 for the others;
- ``ascend_p2p_check_items``: items per state;
- ``ascend_p2p_check_last_run_timestamp_seconds``, ``ascend_p2p_check_duration_seconds``;
- ``ascend_p2p_check_info``: the criteria and the tool's version, value 1;
- ``exporter`` adds ``ascend_p2p_check_age_seconds``, ``ascend_p2p_check_running`` and
  ``ascend_p2p_check_errors``.

Example:
    >>> import pandas as pd
    >>> items = pd.DataFrame([{"id": "bandwidth uni pull 2->5", "kind": "bandwidth",
    ...     "status": "FAIL", "measured": 11.3, "criterion": 23.47, "src": 2, "dst": 5,
    ...     "link": "HCCS", "direction": "uni", "initiator": "dst"}])
    >>> text = metrics_text([Verdict(items, "FAIL", host="a2", finished=1e9)])
    >>> for line in text.splitlines():
    ...     if line.startswith("ascend_p2p_link_b"):
    ...         print(line)
    ascend_p2p_link_bandwidth_bytes_per_second{direction="uni",dst="5",host="a2",...} 1.13e+10
    ascend_p2p_link_bar_bytes_per_second{direction="uni",dst="5",host="a2",...} 2.347e+10
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from .._version import __version__
from ..vocab import VERDICTS
from .verdicts import Verdict, states

PREFIX = "ascend_p2p"
#: decimal GB/s (the project's unit) in bytes per second, Prometheus' base unit
BYTES_PER_GB = 1e9
#: the labels of a link and direction, in order
LINK_LABELS = ("host", "src", "dst", "link", "direction", "initiator")
#: the metric families of every verdict: name (after the prefix), help and labels
FAMILIES = {
    "link_bandwidth_bytes_per_second": (
        "Measured median bandwidth of a link and direction",
        LINK_LABELS,
    ),
    "link_bar_bytes_per_second": (
        "The criterion (bar) of a link and direction: at least this",
        LINK_LABELS,
    ),
    "link_status": (
        "1 for the state of a link and direction's bandwidth item, 0 for the others",
        (*LINK_LABELS, "status"),
    ),
    "item_status": (
        "Every item of the check, 1 with its state",
        ("host", "item", "kind", "status"),
    ),
    "check_status": ("1 for the check's verdict, 0 for the others", ("host", "status")),
    "check_items": ("Items of the check per state", ("host", "status")),
    "check_last_run_timestamp_seconds": ("When the last check ended (Unix time)", ("host",)),
    "check_duration_seconds": ("How long the last check took", ("host",)),
    "check_info": ("The criteria and the tool of the check", ("host", "criteria", "version")),
}
#: every metric name this tool writes (released: renamed only with a deprecation note):
#: the families, then the exporter's own gauges
METRIC_NAMES = tuple(
    f"{PREFIX}_{n}" for n in (*FAMILIES, "check_age_seconds", "check_running", "check_errors")
)
#: item kinds whose items are a link's bandwidth
LINK_KINDS = ("bandwidth",)


def _text(v: object) -> str:
    if v is None or v is pd.NA or (isinstance(v, float) and v != v):
        return ""
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def _link_rows(v: Verdict) -> pd.DataFrame:
    items = v.items
    if not len(items) or "kind" not in items:
        return items.iloc[0:0]
    return items[items["kind"].isin(LINK_KINDS)]


def families(verdicts: Iterable[Verdict], extra: Callable[[Verdict], dict] | None = None) -> list:
    """The metric families of ``verdicts`` (one per host); ``extra(v)`` may add gauges
    per host: ``{name: (help, value)}``."""
    from prometheus_client.core import GaugeMetricFamily as G

    made = {name: G(f"{PREFIX}_{name}", doc, labels=ls) for name, (doc, ls) in FAMILIES.items()}
    bw, bar, link_state, item_state, verdict, count, when, took, info = made.values()
    more: dict[str, Any] = {}
    for v in verdicts:
        _add_links(v, bw, bar, link_state)
        for iid, kind, st in zip(
            v.items.get("id", []), v.items.get("kind", []), v.items.get("status", [])
        ):
            item_state.add_metric([v.host, str(iid), str(kind), str(st)], 1)
        for s in (*VERDICTS, *[v.status] * (v.status not in VERDICTS)):
            verdict.add_metric([v.host, s], float(v.status == s))
        seen = list(v.items["status"]) if "status" in v.items else []
        for s in states(seen):
            count.add_metric([v.host, s], float(seen.count(s)))
        when.add_metric([v.host], v.finished)
        took.add_metric([v.host], v.duration_s)
        info.add_metric([v.host, v.criteria, __version__], 1)
        for name, (doc, value) in (extra(v) if extra else {}).items():
            more.setdefault(name, G(f"{PREFIX}_{name}", doc, labels=("host",)))
            more[name].add_metric([v.host], value)
    return [*made.values(), *more.values()]


def _add_links(v: Verdict, bw: Any, bar: Any, link_state: Any) -> None:
    rows = _link_rows(v)
    known = states(rows["status"]) if len(rows) else ()
    for _, r in rows.iterrows():
        labels = [v.host, *(_text(r.get(k)) for k in LINK_LABELS[1:])]
        if pd.notna(r.get("measured")):
            bw.add_metric(labels, float(r["measured"]) * BYTES_PER_GB)
        if pd.notna(r.get("criterion")):
            bar.add_metric(labels, float(r["criterion"]) * BYTES_PER_GB)
        for s in known:
            link_state.add_metric([*labels, s], float(r["status"] == s))


class VerdictCollector:
    """A ``prometheus_client`` collector of what ``get()`` returns now (verdicts and the
    extra gauges per host), for a registry that serves it."""

    def __init__(self, get: Callable[[], tuple[list[Verdict], Callable | None]]) -> None:
        self.get = get

    def collect(self) -> Iterator[Any]:
        verdicts, extra = self.get()
        yield from families(verdicts, extra)


def metrics_text(verdicts: Iterable[Verdict], extra: Callable | None = None) -> str:
    """The text exposition format of ``verdicts``."""
    from prometheus_client import CollectorRegistry, generate_latest

    registry = CollectorRegistry(auto_describe=False)
    got = list(verdicts)
    registry.register(VerdictCollector(lambda: (got, extra)))  # type: ignore[arg-type]
    return generate_latest(registry).decode()


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it over ``path``:
    a reader (node_exporter's textfile collector) sees the old file or the new one,
    never half of one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_metrics(path: Path, verdicts: Iterable[Verdict]) -> None:
    """The metrics of ``verdicts`` into ``path``, atomically."""
    write_atomic(path, metrics_text(verdicts))
