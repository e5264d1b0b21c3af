"""The phase model: HCCL's slicing, hccl_test's byte conventions, phases and their
reductions, and the symbolic run that says what each rank ends with.

HCCL's algorithms as phases: every rank ends with what the op defines and receives the
bytes it must, for mesh, ring and double ring, p from 2 to 16, sizes not divisible by p;
who issues each copy; the rings' order; the rounds of the full-mesh all-to-all.

The prediction from links: uniform links give the textbook busbw, one slow pair halves
every mesh op and is named, a ring slows only if it passes through it, shared budgets
bind where the preset says, and the small-size floor is steps x alpha. Fixtures are
asymmetric: the slow pair is slow one way only.

A server's links for the prediction: a preset's rates and budgets, a measured matrix
interpolated in size, a pair degraded. Fixtures are asymmetric (2->5 differs from 5->2)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from helpers import MIB, _cases
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_p2p_lab.collectives import (
    CollectiveError,
    LinkModel,
    Move,
    build,
    convention,
    predict,
)
from ascend_p2p_lab.collectives.algorithms import ring_order
from ascend_p2p_lab.collectives.phases import (
    Collective,
    Phase,
    Piece,
    Reduce,
    missing,
    outcome,
    pairs_used,
    received_bytes,
    sent_bytes,
    split,
)
from ascend_p2p_lab.topology import load_preset


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 10**9), parts=st.integers(1, 32), align=st.sampled_from([1, 128, 512]))
def test_split_is_hccls_slicing(n: int, parts: int, align: int) -> None:
    """ceil(n / parts) rounded up to the alignment, greedy: the bytes add up, every slice
    but the tail is that size, none is larger, the tail ones may be empty."""
    out = split(n, parts, align)
    assert len(out) == parts and sum(out) == n
    per = -(-n // parts)
    per = -(-per // align) * align
    full = [s for s in out if s == per]
    assert out[: len(full)] == full
    assert all(s < per for s in out[len(full) :])
    assert sum(1 for s in out[len(full) :] if s) <= 1


def test_split_examples() -> None:
    assert split(1000, 3) == [384, 384, 232]  # ceil(1000/3) = 334 -> 384
    assert split(256, 4) == [128, 128, 0, 0]
    assert split(8 << 20, 8) == [1 << 20] * 8
    with pytest.raises(CollectiveError):
        split(10, 0)


@pytest.mark.parametrize(
    "op,size,p,chunk,total",
    [
        # all-reduce, broadcast: the buffer, rounded to whole fp32 elements
        ("all_reduce", 1000, 3, 1000, 1000),
        ("all_reduce", 1001, 3, 1004, 1004),
        ("broadcast", 6, 4, 8, 8),
        # all-gather, reduce-scatter: ceil(count / p) elements per rank, count x p reported
        ("all_gather", 1000, 3, 336, 1008),
        ("reduce_scatter", 1000, 3, 336, 1008),
        ("all_gather", 1 << 20, 8, 1 << 17, 1 << 20),
        # all-to-all: the count rounded up to a multiple of p, a p-th to each peer
        ("all_to_all", 1000, 3, 336, 1008),
        ("all_to_all", 4096, 16, 256, 4096),
    ],
)
def test_convention_is_hccl_tests(op: str, size: int, p: int, chunk: int, total: int) -> None:
    c = convention(op, size, p)
    assert (c.chunk_bytes, c.algbw_bytes, c.size_bytes) == (chunk, total, size)


def test_convention_refuses_bad_input() -> None:
    with pytest.raises(CollectiveError, match="unknown operation"):
        convention("gather", 8, 2)
    with pytest.raises(CollectiveError, match="at least 2 ranks"):
        convention("all_reduce", 8, 1)
    with pytest.raises(CollectiveError, match="at least 1 byte"):
        convention("all_reduce", 0, 2)


def test_move_initiator_and_text() -> None:
    assert Move(3, 5, 8, 5, 0).initiator == "dst"
    assert Move(3, 5, 8, 3, 0).initiator == "src"
    assert Move(3, 5, 8, 1, 0).initiator == "third"
    assert str(Move(3, 5, 8, 5, 0)) == "3->5" and str(Move(3, 5, 8, 3, 0)) == "3->5 by 3"


def test_phase_reductions_follow_its_reducing_moves() -> None:
    phase = Phase.of(
        [
            Move(1, 0, 8, 1, 0, True),
            Move(2, 0, 4, 2, 1, True),
            Move(0, 3, 16, 3, 2),
            Move(2, 3, 0, 3, 3, True),
        ],
        "rs",
    )
    assert phase.reduces == (Reduce(0, 12),)  # the copy to 3 reduces nothing; empty dropped
    assert len(phase.moves) == 3 and phase.nbytes == 28 and phase.label == "rs"


def _bcast(moves: list[list[Move]]) -> Collective:
    return Collective(
        "broadcast",
        (0, 1, 2),
        "test",
        convention("broadcast", 4, 3),
        (Piece(4, src=0),),
        tuple(Phase.of(m) for m in moves),
        root=0,
    )


def test_outcome_runs_phases_in_order_and_moves_at_once() -> None:
    chain = _bcast([[Move(0, 1, 4, 1, 0)], [Move(1, 2, 4, 2, 0)]])
    assert missing(chain) == []
    # in one phase, 1 -> 2 reads what 1 held before the phase: nothing yet
    with pytest.raises(CollectiveError, match="does not hold"):
        outcome(_bcast([[Move(0, 1, 4, 1, 0), Move(1, 2, 4, 2, 0)]]))
    assert missing(_bcast([[Move(0, 1, 4, 1, 0)]])) == ["device 2 lacks piece 0"]


def test_reduce_combines_a_copy_overwrites() -> None:
    pieces = (Piece(4),)
    conv = convention("all_reduce", 4, 2)
    add = Collective(
        "all_reduce",
        (0, 1),
        "t",
        conv,
        pieces,
        (Phase.of([Move(1, 0, 4, 0, 0, True)]), Phase.of([Move(0, 1, 4, 1, 0)])),
    )
    assert missing(add) == []
    copy = Collective(
        "all_reduce",
        (0, 1),
        "t",
        conv,
        pieces,
        (Phase.of([Move(1, 0, 4, 0, 0)]), Phase.of([Move(0, 1, 4, 1, 0)])),
    )
    assert missing(copy) == [
        "device 0 piece 0 has [1], needs [0, 1]",
        "device 1 piece 0 has [1], needs [0, 1]",
    ]


def test_bytes_in_and_out() -> None:
    c = _bcast([[Move(0, 1, 4, 1, 0)], [Move(1, 2, 4, 2, 0), Move(0, 2, 4, 2, 0)]])
    assert received_bytes(c) == {0: 0, 1: 4, 2: 8}
    assert sent_bytes(c) == {0: 8, 1: 4, 2: 0}


FAMILIES = ("mesh", "ring", "double_ring")


#: sizes that no rank count divides evenly, nor HCCL's 128 B alignment
ODD_SIZES = (4, 1000, 12_345, 3 * 1024 * 1024 + 4)


def _ranks(p: int) -> tuple[int, ...]:
    """Devices that are not 0..p-1, out of order: a rank index used as a device id fails."""
    return tuple((3 * i + 1) % 17 for i in range(p))


def _build(op: str, algorithm: str, size: int, p: int):
    return build(op, algorithm, convention(op, size, p), _ranks(p))


@pytest.mark.parametrize("algorithm,op", _cases())
@pytest.mark.parametrize("p", range(2, 17))
def test_every_rank_ends_with_what_the_op_defines(algorithm: str, op: str, p: int) -> None:
    for size in ODD_SIZES:
        assert missing(_build(op, algorithm, size, p)) == [], (algorithm, op, p, size)


@settings(max_examples=120, deadline=None)
@given(
    p=st.integers(2, 16),
    size=st.integers(1, 1 << 24),
    algorithm=st.sampled_from(FAMILIES),
    op=st.sampled_from(["all_gather", "reduce_scatter", "all_reduce"]),
)
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


# ------------------------------------------------------------------ the presets
@pytest.fixture(scope="module")
def a2():
    return load_preset("atlas800t-a2")


def test_devices_must_exist_on_the_model(a2) -> None:
    c = build("all_gather", "mesh", convention("all_gather", 4096, 2), (0, 9))
    with pytest.raises(CollectiveError, match="device 9"):
        predict(c, LinkModel.from_topology(a2))


@pytest.fixture(scope="module")
def a2_2():
    return load_preset("atlas800t-a2")


@pytest.fixture(scope="module")
def a3():
    return load_preset("atlas800t-a3")


def test_preset_rates_by_initiator(a2_2, a3) -> None:
    m = LinkModel.from_topology(a2_2)
    assert m.rate(2, 5, MIB, "dst") == pytest.approx(26.2)  # a read
    assert m.rate(2, 5, MIB, "src") == pytest.approx(26.2 * 0.755)  # a write
    assert m.latency(2, 5) == 8.0 and m.barrier_us == 5.0
    assert (m.local_GBps, m.local_latency_us) == (620, 2)
    lat, stream = m.cost(Move(2, 5, 262_000, 5, 0))
    assert (lat, stream) == (8.0, pytest.approx(10.0))
    m3 = LinkModel.from_topology(a3)
    assert m3.rate(0, 1, MIB, "src") == pytest.approx(190.0)  # SIO writes at full rate
    assert m3.rate(1, 2, MIB, "src") == pytest.approx(165.0 * 0.84)


def _links() -> pd.DataFrame:
    rows = []
    for size, bw in ((MIB, 10.0), (4 * MIB, 20.0)):
        rows += [
            {"src": 2, "dst": 5, "size_bytes": size, "bandwidth_GBps": bw, "initiator": "dst"},
            {"src": 2, "dst": 5, "size_bytes": size, "bandwidth_GBps": bw / 2, "initiator": "src"},
            {"src": 5, "dst": 2, "size_bytes": size, "bandwidth_GBps": 3 * bw, "initiator": "dst"},
        ]
    rows.append(
        {"src": 2, "dst": 5, "size_bytes": MIB, "bandwidth_GBps": 30.0, "initiator": "dst"}
    )  # a second sample: the median (20) counts
    return pd.DataFrame(rows)


def test_measured_rates_interpolate_log_log(a2_2) -> None:
    lat = pd.DataFrame({"src": [2, 2, 5], "dst": [5, 5, 2], "latency_us": [3.0, 5.0, 1.0]})
    m = LinkModel.from_measured(_links(), a2_2, latency=lat)
    # 2->5 read: medians 20 at 1 MiB and 20 at 4 MiB
    assert m.latency(2, 5) == 4.0
    # 5->2 read: 30 at 1 MiB, 60 at 4 MiB: at 2 MiB sqrt(30 x 60) in log-log
    n = 2 * MIB
    lat_us, stream = m.cost(Move(5, 2, n, 2, 0))
    assert lat_us + stream == pytest.approx(n / (math.sqrt(30 * 60) * 1e3))
    assert lat_us == 1.0
    # the write has its own curve; beyond the measured sizes the nearest holds
    lat_us, stream = m.cost(Move(2, 5, 64 * MIB, 2, 0))
    assert lat_us + stream == pytest.approx(64 * MIB / (10.0 * 1e3))
    lat_us, stream = m.cost(Move(2, 5, 1024, 5, 0))
    assert stream == 0.0 and lat_us == 4.0  # measured faster than the latency: latency holds


def test_measured_without_initiator_or_latency(a2_2) -> None:
    links = _links()
    links = links[links["initiator"] == "dst"].drop(columns="initiator")
    m = LinkModel.from_measured(links, a2_2)
    assert m.latency(5, 2) == 8.0  # the preset's class latency
    lat_us, stream = m.cost(Move(5, 2, 4 * MIB, 5, 0))  # a write, measured only as reads
    assert lat_us + stream == pytest.approx(4 * MIB / (60.0 * 1e3))


def test_measured_errors(a2_2) -> None:
    m = LinkModel.from_measured(_links(), a2_2)
    with pytest.raises(CollectiveError, match="no measurement of 1->3"):
        m.cost(Move(1, 3, MIB, 3, 0))
    with pytest.raises(CollectiveError, match="needs columns"):
        LinkModel.from_measured(pd.DataFrame({"src": [0]}), a2_2)
    with pytest.raises(CollectiveError, match="latency table"):
        LinkModel.from_measured(_links(), a2_2, latency=pd.DataFrame({"src": [1]}))
