"""The same criteria over a fleet: every host's rows judged at once (vectorised, one
row per host and item), and the sweep options a fleet needs to measure them.

Example:
    >>> import pandas as pd
    >>> from ascend_p2p_lab.check.criteria import criteria_from_text
    >>> c = criteria_from_text('''schema_version = 1
    ... [topology]
    ... links = [["X", "HCCS"], ["HCCS", "X"]]
    ... peer_access = [["X", 1], [1, "X"]]
    ... basis = "doc"
    ... ''')
    >>> probes = {"a": pd.DataFrame({"src": [0, 1], "dst": [1, 0], "link": ["HCCS"] * 2,
    ...                              "can_access_peer": [True, False]})}
    >>> failing_by_host(fleet_items(c, None, probes))
    {'a': ['peer_access 1->0']}
    >>> warned_by_host(fleet_items(c, None, probes))  # peer_access is of severity fail
    {}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..run import Run, samples_of
from ..schema import CARD_PATTERNS, PAIR_PATTERN
from ..units import parse_sizes
from ..vocab import BI, DST, FAIL, PASS, WARN
from .criteria import Criteria
from .plan import needs_of
from .verdict import evaluate, overall


def fleet_options(criteria: Criteria, sizes: Any) -> dict[str, Any]:
    """Sweep options for a fleet's hosts so that its one sweep also measures what the
    criteria's pull bandwidth, host-copy and fan-out items need (the criteria's size
    added to ``sizes``; both directions when a criterion is bidirectional). Push and
    latency criteria need sweeps of their own: on a fleet they are SKIP."""
    needs = needs_of(criteria)
    directions = {d for d, i in needs.bandwidth if i == DST}
    patterns = [PAIR_PATTERN, *sorted(needs.host), *sorted(needs.aggregates - set(CARD_PATTERNS))]
    return {
        "sizes": sorted(set(parse_sizes(sizes)) | {criteria.size_bytes}),
        "direction": "both" if BI in directions else "uni",
        "patterns": patterns,
    }


def fleet_peer(probes: Mapping[str, pd.DataFrame | None]) -> pd.DataFrame | None:
    """Every host's probe table as one peer table (``peer_ok``: can access peer; the
    enables themselves show in the sweep's rows)."""
    kept = {host: p for host, p in probes.items() if p is not None and len(p)}
    if not kept:
        return None
    out = (
        pd.concat(kept.values(), keys=list(kept), names=["host", None])
        .reset_index(level=0)
        .reset_index(drop=True)
    )
    out["peer_ok"] = out["can_access_peer"].astype(bool)
    if "reason" not in out:
        out["reason"] = None
    return out


def fleet_items(
    criteria: Criteria, frame: Run | None, probes: Mapping[str, pd.DataFrame | None] | None = None
) -> pd.DataFrame:
    """One row per host and item (:func:`.verdict.evaluate` with ``by_host``) of the
    fleet's run (a Run)."""
    peer = fleet_peer(probes or {})
    frame = None if frame is None else samples_of(frame)
    rows = frame if frame is not None and len(frame) else None
    return evaluate(criteria, peer, rows, by_host=True)


def failing_by_host(
    items: pd.DataFrame, device_counts: Mapping[str, Any] | None = None, expected: int | None = None
) -> dict[str, list[str]]:
    """The failing items' ids per host (hosts with none left out); a host whose device
    count (``device_counts``, from each run's metadata) is not the criteria's
    (``expected``) fails ``device_count``, since its items would compare other devices,
    and a host whose items were all skipped fails ``no item judged`` (as a check does:
    :func:`.verdict.overall`)."""
    bad = items[items["status"] == FAIL]
    out = {str(h): list(g["id"]) for h, g in bad.groupby("host", sort=True)}
    for host, g in items.groupby("host", sort=True):
        if overall(g) == (FAIL, 0):
            out[str(host)] = [f"no item judged: all {len(g)} skipped"]
    for host, n in (device_counts or {}).items():
        if expected is not None and n is not None and int(n) != expected:
            out.setdefault(str(host), []).insert(0, f"device_count {n} / {expected}")
    return dict(sorted(out.items()))


def warned_by_host(items: pd.DataFrame) -> dict[str, list[str]]:
    """The warned items' ids per host (items of severity warn that failed; hosts with none
    left out): a host with warned items and no failing one is WARN."""
    warned = items[items["status"] == WARN]
    return {str(h): list(g["id"]) for h, g in warned.groupby("host", sort=True)}


def host_verdicts(
    hosts: list[str], failing: Mapping[str, Any], warned: Mapping[str, Any]
) -> dict[str, str]:
    """Per host its verdict: FAIL (a failing item), WARN (only warned items) or PASS."""
    return {h: FAIL if h in failing else WARN if h in warned else PASS for h in sorted(hosts)}
