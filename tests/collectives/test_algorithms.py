"""HCCL's algorithms as phases: every rank ends with what the op defines and receives the
bytes it must, for mesh, ring and double ring, p from 2 to 16, sizes not divisible by p;
who issues each copy; the rings' order; the rounds of the full-mesh all-to-all."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.collectives.algorithms import build, ring_order
from ascend_p2p_lab.collectives.phases import (
    CollectiveError,
    convention,
)
from ascend_p2p_lab.topology import load_preset


def _ranks(p: int) -> tuple[int, ...]:
    """Devices that are not 0..p-1, out of order: a rank index used as a device id fails."""
    return tuple((3 * i + 1) % 17 for i in range(p))


def _build(op: str, algorithm: str, size: int, p: int):
    return build(op, algorithm, convention(op, size, p), _ranks(p))


def test_phase_counts() -> None:
    assert len(_build("all_reduce", "mesh", 4096, 8).phases) == 2
    assert len(_build("all_gather", "ring", 4096, 8).phases) == 7
    assert len(_build("all_reduce", "ring", 4096, 8).phases) == 14
    assert len(_build("all_reduce", "double_ring", 4096, 16).phases) == 30
    assert len(_build("broadcast", "double_ring", 4096, 16).phases) == 30
    assert len(_build("all_reduce", "reduce_bcast", 4096, 8).phases) == 2
    assert len(_build("all_reduce", "hd", 4096, 16).phases) == 4  # log2 16 exchanges
    assert len(_build("all_reduce", "hd", 4096, 12).phases) == 5  # fold in, 3, fold out


def test_who_issues_each_copy() -> None:
    """HCCL's mesh all-gather reads, its reduce-scatter writes with the reduction; rings
    read from the predecessor; reduce-broadcast writes into rank 0, then reads back."""
    ag = _build("all_gather", "mesh", 1 << 20, 8)
    assert {m.initiator for m in ag.phases[0].moves} == {"dst"}
    rs = _build("reduce_scatter", "mesh", 1 << 20, 8)
    assert {(m.initiator, m.reduce) for m in rs.phases[0].moves} == {("src", True)}
    ar = _build("all_reduce", "mesh", 1 << 20, 8)
    assert [{m.initiator for m in p.moves} for p in ar.phases] == [{"src"}, {"dst"}]
    for op in ("all_gather", "reduce_scatter", "all_reduce", "broadcast"):
        c = _build(op, "double_ring", 1 << 20, 8)
        assert {m.initiator for p in c.phases for m in p.moves} == {"dst"}
    rb = _build("all_reduce", "reduce_bcast", 4096, 4)
    hub = rb.ranks[0]
    assert {(m.dst, m.initiator, m.reduce) for m in rb.phases[0].moves} == {(hub, "src", True)}
    assert {(m.src, m.initiator) for m in rb.phases[1].moves} == {(hub, "dst")}


def test_reductions_sit_where_the_data_is_combined() -> None:
    rs = _build("reduce_scatter", "mesh", 8000, 4)
    c = rs.convention.chunk_bytes
    assert {(r.device, r.nbytes) for r in rs.phases[0].reduces} == {(d, 3 * c) for d in rs.ranks}
    ag = _build("all_gather", "ring", 8000, 4)
    assert all(not p.reduces for p in ag.phases)
    ring = _build("all_reduce", "ring", 8000, 4)
    assert [bool(p.reduces) for p in ring.phases] == [True] * 3 + [False] * 3


def test_ring_order_takes_the_fastest_links() -> None:
    a3, a2 = load_preset("atlas800t-a3"), load_preset("atlas800t-a2")
    assert ring_order(a3, range(16)) == tuple(range(16))
    assert ring_order(a2, [5, 1, 7]) == (1, 5, 7)
    # from 0 the SIO partner first, then the next card's first die
    assert ring_order(a3, [0, 2, 3, 1]) == (0, 1, 2, 3)
    hops = [a3.link(a, b) for a, b in zip(range(16), [*range(1, 16), 0])]
    assert hops == ["SIO", "HCCS_SW"] * 8


def test_all_to_all_rounds_of_eight() -> None:
    """At most 8 copies into a rank at once: 16 ranks take two rounds (distances +-1..4,
    then +-5..8), 8 ranks one."""
    c16 = _build("all_to_all", "mesh", 16 << 20, 16)
    assert len(c16.phases) == 2
    into = [[sum(1 for m in p.moves if m.dst == r) for r in c16.ranks] for p in c16.phases]
    assert into == [[8] * 16, [7] * 16]
    r0 = c16.ranks[0]
    first = sorted(c16.ranks.index(m.src) for m in c16.phases[0].moves if m.dst == r0)
    assert first == [1, 2, 3, 4, 12, 13, 14, 15]
    assert len(_build("all_to_all", "mesh", 8 << 20, 8).phases) == 1


def test_unknown_or_unsupported() -> None:
    conv = convention("all_to_all", 4096, 4)
    with pytest.raises(CollectiveError, match="does not build all_to_all"):
        build("all_to_all", "ring", conv, range(4))
    with pytest.raises(CollectiveError, match="unknown algorithm"):
        build("all_to_all", "tree", conv, range(4))
    with pytest.raises(CollectiveError, match="distinct devices"):
        build("all_to_all", "mesh", conv, (0, 1, 1, 2))


def _sums_after(c) -> dict[tuple[int, int], frozenset[int]]:
    """Which ranks' data each (device, piece) holds after the phases: a copy brings the
    source's contributors, a reducing one adds them to the destination's own."""
    held = {(r, pc): frozenset({r}) for r in c.ranks for pc in range(len(c.pieces))}
    for phase in c.phases:
        before = dict(held)
        for m in phase.moves:
            got = before[(m.src, m.piece)]
            held[(m.dst, m.piece)] = held[(m.dst, m.piece)] | got if m.reduce else got
    return held


@pytest.mark.parametrize(("algorithm", "p"), [("ring", 5), ("double_ring", 6), ("hd", 8)])
def test_every_rank_ends_with_the_sum_of_every_rank(algorithm: str, p: int) -> None:
    """All-reduce: every piece on every rank sums all p ranks' data (a ring step that
    passes on the wrong partial sum, or recursive doubling with one partner, does not)."""
    c = _build("all_reduce", algorithm, 6000, p)
    held = _sums_after(c)
    assert set(held.values()) == {frozenset(c.ranks)}


def test_the_double_rings_run_opposite_ways() -> None:
    """Each neighbour pair of the double ring copies both ways, half of it on each ring."""
    c = _build("all_gather", "double_ring", 6000, 4)
    pairs = {(m.src, m.dst) for p in c.phases for m in p.moves}
    assert pairs == {(b, a) for a, b in pairs} and len(pairs) == 8
