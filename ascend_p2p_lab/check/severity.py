"""Severity and action: how much an item's failure counts, and what an operator does next.

Every item has a ``severity``: ``fail`` (the default) or ``warn``, from its criteria
entry (``severity = "warn"``), else its table's (``[severity]`` ``latency = "warn"``),
else ``fail``. A failing ``warn`` item is ``WARN``, not ``FAIL``; the check's verdict is
``FAIL`` (a failing ``fail`` item, a lost sample, measurements that stopped early, or no
item judged), else ``WARN`` (a warned item), else ``PASS``.

Every item also has an ``action``: what to do when it fails or warns, written for the
operator of the server, in the spirit of DCGM's ``DCGM_FR_*`` guidance: which of
Huawei's tools to run next on which devices (``ascend-dmi --bw``, ``ascend-dmi --dg``,
``npu-smi info -t topo``: their options as the MindCluster ToolBox guide documents
them), what to rule out first, when to drain. An entry's own ``action = "..."`` replaces
it. And ``criteria_source``: the ``FILE:LINE`` that set the item's bar (the layer that
won, :mod:`.layers`), or how derived criteria were made.

Example:
    >>> import pandas as pd
    >>> items = pd.DataFrame([{"kind": "latency", "status": "FAIL", "src": 2, "dst": 5,
    ...     "device": None, "link": "HCCS", "severity": "warn", "action": None,
    ...     "file": "site.toml", "line": 7}])
    >>> graded = grade(items, severity={}, source="model")
    >>> graded[["status", "severity", "criteria_source"]].values.tolist()
    [['WARN', 'warn', 'site.toml:7']]
    >>> verdict_of(graded)
    'WARN'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..vocab import FAIL, PASS, VERIFICATION_ITEM, WARN

FAIL_SEVERITY, WARN_SEVERITY = "fail", "warn"
#: the states an item ends in after a failure, per severity
FAILED_STATE = {FAIL_SEVERITY: FAIL, WARN_SEVERITY: WARN}
#: item states that are a failure of the item's bar (measured again by n-of-m)
FAILING = (FAIL, WARN)
#: item states that were judged (not skipped)
JUDGED = (PASS, WARN, FAIL)
#: the columns :func:`grade` adds
GRADE_COLUMNS = ("severity", "action", "criteria_source")

_RETEST = "NPU Exporter or CCAE polling and msprof stopped: they take link bandwidth"
#: per kind: the default action ({src}, {dst}, {device}, {link}, {group}, {direction},
#: {size} filled from the item)
ACTIONS = {
    "peer_access": (
        "peer access {src}->{dst} is not what the criteria expect: confirm the pair's link in "
        "`npu-smi info -t topo`, and that both devices are visible to this process (a "
        "container needs both); refused again on a link the topology shows: drain the node "
        "and have the server serviced"
    ),
    "link_class": (
        "the driver reports another link {src}->{dst}: confirm with `npu-smi info -t topo`; "
        "a PIX, PHB or SYS path where {link} should be is a link down or a card not seated: "
        "drain the node and have the card serviced"
    ),
    "bandwidth": (
        "retest the pair with Huawei's tool, nothing else on the NPUs: `ascend-dmi --bw -t "
        "p2p -ds {src} -dd {dst} -s {size}` ({retest}); slow there too: `ascend-dmi --dg -i "
        "bandwidth` for the server's diagnosis and `npu-smi info -t topo` for the link "
        "class, then drain and have the {link} link {src}->{dst} serviced"
    ),
    "latency": (
        "retest latency with `ascend-dmi -l -t p2p` ({retest}); a pair slow to start a "
        "copy whose bandwidth passes points at the driver or the path, not the link: "
        "check the class in `npu-smi info -t topo`"
    ),
    "host": (
        "retest the host copies of device {device}: `ascend-dmi --bw -t {direction} -d "
        "{device} -s {size}` ({retest}); slow there too: check the card's PCIe slot and "
        "its CPU affinity in `npu-smi info -t topo`"
    ),
    "aggregate": (
        "a fan-out or card aggregate is slow: the pair items of this check say which "
        "link; retest those pairs with `ascend-dmi --bw -t p2p -ds SRC -dd DST`, card "
        "to card with `ascend-dmi --bw -t p2p -m card` (A3), the server with `ascend-dmi "
        "--dg -i bandwidth`"
    ),
    "collective": (
        "a collective waits for its slowest rank: compare per-rank times (HCCL's slow/fast "
        "card analysis) before blaming a link; the pair items of this check say which link "
        "is slow; `ascend-dmi --dg -i bandwidth` for the server's diagnosis"
    ),
    "spread": (
        "the samples of {src}->{dst} swing more than noise explains: retest the pair alone, "
        "nothing else on the NPUs ({retest}), several times with `ascend-dmi --bw -t p2p "
        "-ds {src} -dd {dst} -s {size}`; a swing that stays is a link retraining or "
        "another job's traffic on the {link} link: `ascend-dmi --dg -i bandwidth`, then "
        "watch the link with `check --attempts 3 --fail-at 2 --history DB`"
    ),
    "die_link": (
        "a link between the two dies of a card is slow over {die} ({src}->{dst}): retest "
        "that die link alone, nothing else on the NPUs ({retest}): `ascend-p2p-lab sweep "
        "--pairs {src}-{dst} --die-link {die} --sizes {size}`; slow over one die link and "
        "not the other: the card's {die} lane is at fault (`ascend-dmi --dg -i bandwidth`), "
        "drain and have the card serviced"
    ),
    "verification": (
        "bytes arrived wrong ({where}): data corruption on this path; drain the node now "
        "and do not retest it into service; `ascend-dmi --dg -i bandwidth` for the "
        "diagnosis, then have the server serviced"
    ),
}
#: the action of a kind :data:`ACTIONS` does not name
OTHER_ACTION = (
    "see the item's reason; check again with --attempts 3 --fail-at 2 to tell a transient "
    "dip from a fault"
)


def _word(v: Any) -> str:
    """A value as the action's text says it: an id as a whole number, else as written."""
    if isinstance(v, str):
        return v
    if v is None or pd.isna(v):
        return "?"
    return str(int(v))


def _place(item: Mapping[str, Any]) -> str:
    for key in ("device", "group"):
        v = item.get(key)
        if isinstance(v, str) or (v is not None and not pd.isna(v)):
            return f"{key} {_word(v)}"
    return f"{_word(item.get('src'))}->{_word(item.get('dst'))}"


def action_of(item: Mapping[str, Any]) -> str:
    """An item's default action, filled from the item (see :data:`ACTIONS`)."""
    text = ACTIONS.get(str(item.get("kind")), OTHER_ACTION)
    link = item.get("link")
    size = item.get("size_bytes")
    return text.format(
        src=_word(item.get("src")),
        dst=_word(item.get("dst")),
        device=_word(item.get("device")),
        link=link if isinstance(link, str) else "expected",
        group=_word(item.get("group")),
        direction=_word(item.get("direction")),
        size=_word(size) if size is not None and not pd.isna(size) else "67108864",
        where=_place(item),
        die=_word(item.get("die_link")),
        retest=_RETEST,
    )


def _column(items: pd.DataFrame, name: str) -> pd.Series:
    if name in items:
        return items[name].astype(object)
    return pd.Series(None, index=items.index, dtype=object)


def grade(
    items: pd.DataFrame,
    *,
    severity: Mapping[str, str],
    source: str,
    topology_rows: Mapping[str, tuple[str, list[int | None]]] | None = None,
    verification_at: tuple[str, int | None] | None = None,
) -> pd.DataFrame:
    """``items`` with ``severity``, ``action`` and ``criteria_source`` (see the module
    docstring), and every failing ``warn`` item ``WARN``. ``severity``: per kind (the
    ``[severity]`` table); ``source``: the criteria in words, for bars no file set;
    ``topology_rows``: per topology kind, the file and the line of each source device's
    row; ``verification_at``: the ``[verification]`` table's file and line."""
    out = items.copy()
    own = _column(out, "severity")
    by_kind = out["kind"].map(lambda k: severity.get(str(k), FAIL_SEVERITY))
    out["severity"] = own.where(own.notna(), by_kind).astype(object)
    given = _column(out, "action")
    records = out.to_dict("records")
    out["action"] = [
        a if isinstance(a, str) and a else action_of(r) for a, r in zip(given, records)
    ]
    out["criteria_source"] = _sources(out, source, topology_rows or {}, verification_at)
    warned = out["status"].eq(FAIL) & out["severity"].eq(WARN_SEVERITY)
    out.loc[warned, "status"] = WARN
    return out


def _sources(
    items: pd.DataFrame,
    source: str,
    rows: Mapping[str, tuple[str, list[int | None]]],
    verification_at: tuple[str, int | None] | None,
) -> list[str]:
    """Per item, ``FILE:LINE`` of its bar (else ``source``)."""
    file, line = _column(items, "file"), _column(items, "line")
    out = []
    for kind, f, n, src in zip(items["kind"], file, line, _column(items, "src")):
        if isinstance(f, str) and f:
            out.append(f if pd.isna(n) else f"{f}:{int(n)}")
        elif kind in rows and not pd.isna(src):
            path, lines = rows[kind]
            out.append(f"{path}:{lines[int(src)]}")
        elif kind == VERIFICATION_ITEM:
            at = verification_at
            out.append(f"{source} (default)" if at is None else f"{at[0]}:{at[1]}")
        else:
            out.append(source)
    return out


def verdict_of(items: pd.DataFrame, points_lost: int = 0, failed: str | None = None) -> str:
    """``FAIL``, ``WARN`` or ``PASS`` (see the module docstring)."""
    status = items["status"] if "status" in items else pd.Series(dtype=object)
    if points_lost or failed or status.eq(FAIL).any() or not status.isin(JUDGED).any():
        return FAIL
    return WARN if status.eq(WARN).any() else PASS


def graded(items: pd.DataFrame, criteria: Any) -> pd.DataFrame:
    """:func:`grade` with what ``criteria`` (a :class:`.criteria.Criteria`) say."""
    meta = criteria.meta
    return grade(
        items,
        severity=criteria.severity,
        source=str(criteria.source or meta.get("path") or criteria.name or "the criteria"),
        topology_rows=meta.get("topology_rows"),
        verification_at=meta.get("verification_at"),
    )
