"""What every channel reads: a check's items and its verdict, as one value, and the
failing items said in a few words.

A verdict is a string: ``PASS``, ``WARN`` or ``FAIL`` (and an item's status also
``SKIP``). Channels compare against these words and never assume the set is closed: a
state they do not know is carried as it is (a label value, a condition message).

Example:
    >>> import pandas as pd
    >>> items = pd.DataFrame([{"id": "bandwidth uni pull 2->5", "kind": "bandwidth",
    ...     "status": "FAIL", "measured": 11.3, "criterion": 23.47, "bound": "min",
    ...     "link": "HCCS", "src": 2, "dst": 5, "direction": "uni", "initiator": "dst"}])
    >>> problems(items, "FAIL")
    ['HCCS 2->5 at 0.48 of its bar']
    >>> reason_text(items, "FAIL")
    'p2p: HCCS 2->5 at 0.48 of its bar'
"""

from __future__ import annotations

import math
import socket
import subprocess
import time
from dataclasses import dataclass, field

import pandas as pd

from ..vocab import BI, FAIL, ITEM_STATES, SRC

#: what every reason this tool writes starts with (Slurm, Kubernetes): whose it is
PREFIX = "p2p:"
#: items a channel names in its one-line reason, at most (then "and N more")
NAMED_AT_MOST = 4


@dataclass(frozen=True)
class Verdict:
    """One check of one host: its items (``check.verdict.evaluate``'s table), its
    verdict (PASS, WARN or FAIL), when it ended (Unix seconds), how long it took."""

    items: pd.DataFrame
    status: str
    host: str = field(default_factory=lambda: socket.gethostname().split(".")[0])
    finished: float = field(default_factory=time.time)
    duration_s: float = 0.0
    criteria: str = ""

    @classmethod
    def of(cls, result: object, **kwargs: object) -> Verdict:
        """From a ``check.CheckResult`` (its ``items`` and ``status``)."""
        return cls(result.items, result.status, **kwargs)  # type: ignore[attr-defined,arg-type]


def states(seen: object = ()) -> tuple[str, ...]:
    """:data:`ITEM_STATES` plus any other state in ``seen`` (in order of appearance)."""
    extra = [str(s) for s in dict.fromkeys(seen) if str(s) not in ITEM_STATES]  # type: ignore[call-overload]
    return (*ITEM_STATES, *extra)


def _num(v: object) -> float | None:
    try:
        f = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def phrase(item: pd.Series) -> str:
    """One item in a few words: a bandwidth-like item as ``HCCS 2->5 at 0.48 of its bar``
    (``bi``, ``push`` when not a one-way pull), anything else as its id and why."""
    measured, bar = _num(item.get("measured")), _num(item.get("criterion"))
    if item.get("bound") == "min" and measured is not None and bar:
        link = item.get("link")
        head = f"{link} " if isinstance(link, str) and link else ""
        pair = _num(item.get("src")) is not None and _num(item.get("dst")) is not None
        where = f"{int(item['src'])}->{int(item['dst'])}" if pair else str(item.get("id"))
        extra = [w for w in (item.get("direction"),) if w == BI]
        extra += ["push"] if item.get("initiator") == SRC else []
        tail = f" ({', '.join(extra)})" if extra else ""
        return f"{head}{where}{tail} at {measured / bar:.2f} of its bar"
    reason = item.get("reason")
    return f"{item.get('id')}" + (f" ({reason})" if isinstance(reason, str) and reason else "")


def problems(items: pd.DataFrame, status: str = FAIL) -> list[str]:
    """The phrases of the items with ``status``, worst ratio first, one per phrase."""
    bad = items[items["status"] == status]
    if not len(bad):
        return []

    def col(name: str) -> pd.Series:
        return bad[name] if name in bad else pd.Series(None, index=bad.index, dtype=object)

    ratio = pd.to_numeric(col("measured"), errors="coerce") / pd.to_numeric(
        col("criterion"), errors="coerce"
    )
    bad = bad.assign(_r=ratio.where(col("bound") == "min")).sort_values(
        "_r", na_position="last", kind="stable"
    )
    return list(dict.fromkeys(phrase(row) for _, row in bad.iterrows()))


def reason_text(items: pd.DataFrame, status: str = FAIL, limit: int = NAMED_AT_MOST) -> str:
    """``p2p: `` and the first ``limit`` problems of ``status`` (``and N more``)."""
    found = problems(items, status)
    shown = "; ".join(found[:limit]) or f"check {status}"
    more = f"; and {len(found) - limit} more" if len(found) > limit else ""
    return f"{PREFIX} {shown}{more}"


def run_tool(cmd: list[str], error: type[Exception], name: str | None = None) -> str:
    """A channel's command run (``name``: how an error names the tool; default its path):
    its stdout, else ``error`` with the tool's last line of output or its exit status."""
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0:
        why = (done.stderr or done.stdout).strip().splitlines()
        shown = " ".join([name or cmd[0], *cmd[1:4]])
        raise error(f"{shown}: {why[-1] if why else f'exit {done.returncode}'}")
    return done.stdout
