"""What a check measures: criteria in, a short list of the engine's specs out.

:func:`measurements` is the one place that turns criteria into measurement work: a
:class:`~ascend_p2p_lab.measure.SweepSpec` each, which the engine plans into tests and
runs (:func:`.run.measure`). Only what the criteria need is measured: one bandwidth
size, a few samples, one spec per initiator, the latency pattern at its own size, host
copies and aggregates in one, the collectives in one (each op at every size asked of any).

Example:
    >>> needs = Needs(bandwidth=frozenset({("uni", "dst"), ("bi", "dst")}), latency=True)
    >>> [(w.label, w.spec.patterns, w.spec.directions) for w in measurements(needs)]
    [('pair pull', ('pair',), ('uni', 'bi')), ('latency', ('latency',), ('uni',))]
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..collectives.busbw import OPERATIONS
from ..measure.spec import SweepSpec
from ..schema import CARD_PATTERNS, COLLECTIVE_PATTERN, LATENCY_PATTERN
from ..vocab import (
    AGGREGATE_ITEM,
    BANDWIDTH_ITEM,
    CHECK_WARMUP,
    COLLECTIVE_ITEM,
    DIRECTIONS,
    HOST_ITEM,
    INITIATOR_WORDS,
    LATENCY_ITEM,
    PAIR_INITIATORS,
    SPREAD_ITEM,
)
from .criteria import (
    DEFAULT_LATENCY_SIZE_BYTES,
    DEFAULT_SAMPLES,
    DEFAULT_SIZE_BYTES,
    HOST_DIRECTIONS,
    JUDGED_AGGREGATES,
    Criteria,
)
from .dieitems import die_needs


@dataclass(frozen=True)
class Needs:
    """The measurements a set of criteria needs (see :func:`needs_of`)."""

    bandwidth: frozenset[tuple[str, str]] = frozenset()  # (direction, initiator)
    latency: bool = False
    host: frozenset[str] = frozenset()  # h2d, d2h
    aggregates: frozenset[str] = frozenset()  # one_to_all, all_to_one, card
    collectives: frozenset[tuple[str, int]] = frozenset()  # (operation, size_bytes)
    die_links: frozenset[tuple[str, str]] = frozenset()  # (die link, initiator): the A3's
    size_bytes: int = DEFAULT_SIZE_BYTES
    latency_size_bytes: int = DEFAULT_LATENCY_SIZE_BYTES
    samples: int = DEFAULT_SAMPLES
    warmup: int = CHECK_WARMUP
    #: the shortest sample (None: the sweep's own, 1 ms)
    min_sample_us: float | None = None

    @classmethod
    def everything(cls, *, cards: bool, **kwargs: Any) -> Needs:
        """Every kind of measurement a check knows (what deriving criteria runs)."""
        aggs = set(JUDGED_AGGREGATES) - (set() if cards else set(CARD_PATTERNS))
        return cls(
            bandwidth=frozenset((d, i) for d in DIRECTIONS for i in PAIR_INITIATORS),
            latency=True,
            host=frozenset(HOST_DIRECTIONS),
            aggregates=frozenset(aggs),
            **kwargs,
        )


def needs_of(criteria: Criteria) -> Needs:
    """The measurements criteria need: a pair sweep per initiator with the directions of
    its bandwidth criteria, latency, host copies and aggregates when they have criteria.
    Verification needs no work of its own: every copy measured is verified."""
    t = criteria.table
    bw = t[t["kind"].isin((BANDWIDTH_ITEM, SPREAD_ITEM))]  # spread: of the same samples
    return Needs(
        bandwidth=frozenset(zip(bw["direction"], bw["initiator"])),
        latency=bool((t["kind"] == LATENCY_ITEM).any()),
        host=frozenset(t.loc[t["kind"] == HOST_ITEM, "direction"]),
        aggregates=frozenset(t.loc[t["kind"] == AGGREGATE_ITEM, "pattern"]),
        collectives=frozenset(
            (str(o), int(s))
            for o, s in zip(
                t.loc[t["kind"] == COLLECTIVE_ITEM, "operation"],
                t.loc[t["kind"] == COLLECTIVE_ITEM, "size_bytes"],
            )
        ),
        die_links=die_needs(t),
        size_bytes=criteria.size_bytes,
        latency_size_bytes=criteria.latency_size_bytes,
        samples=criteria.samples,
    )


@dataclass(frozen=True)
class Work:
    """One measurement of a check: a label for progress lines and the engine's
    :class:`~ascend_p2p_lab.measure.SweepSpec` (checked against the server, then planned
    and run: :func:`.run.measure`)."""

    label: str
    spec: SweepSpec


def measurements(needs: Needs, devices: tuple[int, ...] | None = None) -> list[Work]:
    """The specs that measure what ``needs`` asks for, on ``devices`` (None: all)."""
    common = SweepSpec(
        sizes=(needs.size_bytes,),
        devices=None if devices is None else tuple(devices),
        samples=needs.samples,
        warmup=needs.warmup,
        min_sample_us=1000.0 if needs.min_sample_us is None else float(needs.min_sample_us),
    )
    work = []
    for initiator in PAIR_INITIATORS:
        directions = tuple(d for d in DIRECTIONS if (d, initiator) in needs.bandwidth)
        if directions:
            label = f"pair {INITIATOR_WORDS[initiator]}"
            work.append(Work(label, replace(common, directions=directions, initiator=initiator)))
    for die_link, initiator in sorted(needs.die_links):  # twin dies over each die link
        spec = replace(common, initiator=initiator, die_link=die_link)
        work.append(Work(f"die link {die_link} {INITIATOR_WORDS[initiator]}", spec))
    if needs.latency:
        spec = replace(common, patterns=(LATENCY_PATTERN,), sizes=(needs.latency_size_bytes,))
        work.append(Work(LATENCY_PATTERN, spec))
    others = tuple(
        p
        for p in (*HOST_DIRECTIONS, *JUDGED_AGGREGATES)
        if p in needs.host or p in needs.aggregates
    )
    if others:
        work.append(Work("host and aggregates", replace(common, patterns=others)))
    if needs.collectives:  # each op at every size asked of any: one sweep of them all
        ops = tuple(o for o in OPERATIONS if o in {op for op, _ in needs.collectives})
        sizes = tuple(sorted({s for _, s in needs.collectives}))
        spec = replace(
            common, patterns=(COLLECTIVE_PATTERN,), operations=ops, sizes=sizes, max_copies=1
        )
        work.append(Work("collectives", spec))
    return work
