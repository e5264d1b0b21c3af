"""HCCL's algorithms as phases: every rank ends with what the op defines and receives the
bytes it must, for mesh, ring and double ring, p from 2 to 16, sizes not divisible by p;
who issues each copy; the rings' order; the rounds of the full-mesh all-to-all."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_p2p_lab.collectives.algorithms import ALGORITHMS, build, ring_order
from ascend_p2p_lab.collectives.phases import (
    CollectiveError,
    convention,
    missing,
    pairs_used,
    received_bytes,
    sent_bytes,
    split,
)
from ascend_p2p_lab.topology import load_preset

FAMILIES = ("mesh", "ring", "double_ring")
#: sizes that no rank count divides evenly, nor HCCL's 128 B alignment
ODD_SIZES = (4, 1000, 12_345, 3 * 1024 * 1024 + 4)


def _ranks(p: int) -> tuple[int, ...]:
    """Devices that are not 0..p-1, out of order: a rank index used as a device id fails."""
    return tuple((3 * i + 1) % 17 for i in range(p))


def _build(op: str, algorithm: str, size: int, p: int):
    return build(op, algorithm, convention(op, size, p), _ranks(p))


def _cases() -> list[tuple[str, str]]:
    return [(alg, op) for alg, (_, ops) in ALGORITHMS.items() for op in ops]


@pytest.mark.parametrize("algorithm,op", _cases())
@pytest.mark.parametrize("p", range(2, 17))
def test_every_rank_ends_with_what_the_op_defines(algorithm: str, op: str, p: int) -> None:
    for size in ODD_SIZES:
        assert missing(_build(op, algorithm, size, p)) == [], (algorithm, op, p, size)


@settings(max_examples=120, deadline=None)
@given(p=st.integers(2, 16), size=st.integers(1, 1 << 24),
       algorithm=st.sampled_from(FAMILIES),
       op=st.sampled_from(["all_gather", "reduce_scatter", "all_reduce"]))
def test_bytes_each_rank_receives(p: int, size: int, algorithm: str, op: str) -> None:
    """All-gather: the p - 1 chunks of the others; reduce-scatter: p - 1 contributions to
    its own chunk; all-reduce: the two together, 2 (p - 1) S over all ranks (per rank
    2 (p - 1) / p S when the slices are even)."""
    c = _build(op, algorithm, size, p)
    conv = c.convention
    got = received_bytes(c)
    if op in ("all_gather", "reduce_scatter"):
        assert set(got.values()) == {(p - 1) * conv.chunk_bytes}
        assert set(sent_bytes(c).values()) == {(p - 1) * conv.chunk_bytes}
    else:
        assert sum(got.values()) == 2 * (p - 1) * conv.chunk_bytes
        halves = 2 if algorithm == "double_ring" else 1
        even = all(len(set(split(s, halves))) == 1 for s in split(conv.chunk_bytes, p))
        if even and len(set(split(conv.chunk_bytes, p))) == 1:
            assert set(got.values()) == {2 * (p - 1) * conv.chunk_bytes // p}


@pytest.mark.parametrize("p", range(2, 17))
def test_all_to_all_sends_and_receives_p_minus_1_blocks(p: int) -> None:
    for size in ODD_SIZES:
        c = _build("all_to_all", "mesh", size, p)
        blk = c.convention.chunk_bytes
        assert set(received_bytes(c).values()) == {(p - 1) * blk}
        assert set(sent_bytes(c).values()) == {(p - 1) * blk}
        assert len(pairs_used(c)) == p * (p - 1) == c.moves  # every ordered pair once


@pytest.mark.parametrize("algorithm", FAMILIES)
@pytest.mark.parametrize("p", range(2, 17))
def test_broadcast_gives_every_rank_the_whole_buffer(algorithm: str, p: int) -> None:
    for size in ODD_SIZES:
        c = _build("broadcast", algorithm, size, p)
        got = received_bytes(c)
        others = [r for r in c.ranks if r != c.root]
        assert all(got[r] >= c.convention.chunk_bytes for r in others)
        if algorithm == "mesh":  # its slice from the root, the rest from the others
            assert {got[r] for r in others} == {c.convention.chunk_bytes}


def test_broadcast_root() -> None:
    c = build("broadcast", "ring", convention("broadcast", 4096, 4), (0, 1, 2, 3), root=2)
    assert c.root == 2 and {m.src for m in c.phases[0].moves} == {2}
    assert missing(c) == []
    with pytest.raises(CollectiveError, match="root 7"):
        build("broadcast", "mesh", convention("broadcast", 8, 2), (0, 1), root=7)


def test_phase_counts() -> None:
    assert len(_build("all_reduce", "mesh", 4096, 8).phases) == 2
    assert len(_build("all_gather", "ring", 4096, 8).phases) == 7
    assert len(_build("all_reduce", "ring", 4096, 8).phases) == 14
    assert len(_build("all_reduce", "double_ring", 4096, 16).phases) == 30
    assert len(_build("broadcast", "double_ring", 4096, 16).phases) == 30
    assert len(_build("all_reduce", "reduce_bcast", 4096, 8).phases) == 2
    assert len(_build("all_reduce", "hd", 4096, 16).phases) == 4     # log2 16 exchanges
    assert len(_build("all_reduce", "hd", 4096, 12).phases) == 5     # fold in, 3, fold out


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


def test_which_pairs_the_rings_use() -> None:
    a3 = load_preset("atlas800t-a3")
    order = ring_order(a3, range(16))
    conv = convention("all_gather", 16 << 20, 16)
    one = build("all_gather", "ring", conv, range(16), order=order)
    forward = {(i, (i + 1) % 16) for i in range(16)}
    assert pairs_used(one) == forward
    two = build("all_gather", "double_ring", conv, range(16), order=order)
    assert pairs_used(two) == forward | {(b, a) for a, b in forward}
    sio = {(a, b) for a, b in pairs_used(two) if a3.link(a, b) == "SIO"}
    assert sio == {(2 * k, 2 * k + 1) for k in range(8)} | {(2 * k + 1, 2 * k) for k in range(8)}
    # each ring carries half of every chunk
    assert {m.nbytes for p in two.phases for m in p.moves} == {conv.chunk_bytes // 2}


def test_ring_order_is_honoured() -> None:
    conv = convention("all_gather", 8 << 20, 8)
    c = build("all_gather", "ring", conv, range(8), order=(0, 1, 2, 5, 3, 4, 6, 7))
    assert (2, 5) in pairs_used(c) and (1, 2) in pairs_used(c) and (2, 3) not in pairs_used(c)
    with pytest.raises(CollectiveError, match="ring order"):
        build("all_gather", "ring", conv, range(8), order=(0, 1, 2))


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
