"""The preflight: the smallest check that still finds a bad server before a job lands.

From any criteria it keeps what catches, on every ordered pair once:

- a refused peer pair and a wrong link class: the topology items (the peer table the
  check always takes; no sweep of their own);
- a dead or slow link: one bandwidth item per ordered pair, the one-way pull (uni,
  ``dst``) when the criteria have it, else the cheapest direction they bound;
- bytes that arrive wrong: verification of those same copies.

Latency, host copies, aggregates, collectives and the other bandwidth directions go, and
each point takes :data:`PREFLIGHT_SAMPLES` samples. On the simulated A2 this is about a
third of the full check's time or less (docs/check.md, "Preflight"; benchmarks/).

Example:
    >>> from ascend_p2p_lab.check.derive import criteria_from_preset
    >>> full = criteria_from_preset("atlas800t-a2", devices=(0, 1, 2))
    >>> small = preflight(full)
    >>> small.table[["kind", "direction", "initiator"]].values.tolist()
    [['bandwidth', 'uni', 'dst']]
    >>> small.samples, small.verification
    (2, True)
"""

from __future__ import annotations

import dataclasses

from ..vocab import BANDWIDTH_ITEM
from .criteria import Criteria

#: samples per point in a preflight (the median of 2 copies of 64 MiB each)
PREFLIGHT_SAMPLES = 2
#: the bandwidth criteria a preflight keeps, in order of preference: (direction, initiator)
CHEAPEST = (("uni", "dst"), ("uni", "src"), ("bi", "dst"), ("bi", "src"))


def preflight(criteria: Criteria) -> Criteria:
    """The criteria cut to the preflight's items (see the module docstring)."""
    t = criteria.table
    bw = t[t["kind"] == BANDWIDTH_ITEM]
    have = set(zip(bw["direction"], bw["initiator"]))
    keep = next((d for d in CHEAPEST if d in have), None)
    sel = (t["kind"] == BANDWIDTH_ITEM) & (
        (t["direction"] == keep[0]) & (t["initiator"] == keep[1]) if keep else False
    )
    return dataclasses.replace(
        criteria,
        table=t[sel].reset_index(drop=True),
        samples=min(criteria.samples, PREFLIGHT_SAMPLES),
        verification=True,
        name=f"{criteria.name} (preflight)" if criteria.name else "preflight",
    )
