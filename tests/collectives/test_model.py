"""The phase model: HCCL's slicing, hccl_test's byte conventions, phases and their
reductions, and the symbolic run that says what each rank ends with."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_p2p_lab.collectives.model import (
    Collective,
    CollectiveError,
    Move,
    Phase,
    Piece,
    Reduce,
    convention,
    missing,
    outcome,
    received_bytes,
    sent_bytes,
    split,
)


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
    assert out[:len(full)] == full
    assert all(s < per for s in out[len(full):])
    assert sum(1 for s in out[len(full):] if s) <= 1


def test_split_examples() -> None:
    assert split(1000, 3) == [384, 384, 232]  # ceil(1000/3) = 334 -> 384
    assert split(256, 4) == [128, 128, 0, 0]
    assert split(8 << 20, 8) == [1 << 20] * 8
    with pytest.raises(CollectiveError):
        split(10, 0)


@pytest.mark.parametrize("op,size,p,chunk,total", [
    # all-reduce, broadcast: the buffer, rounded to whole fp32 elements
    ("all_reduce", 1000, 3, 1000, 1000), ("all_reduce", 1001, 3, 1004, 1004),
    ("broadcast", 6, 4, 8, 8),
    # all-gather, reduce-scatter: ceil(count / p) elements per rank, count x p reported
    ("all_gather", 1000, 3, 336, 1008), ("reduce_scatter", 1000, 3, 336, 1008),
    ("all_gather", 1 << 20, 8, 1 << 17, 1 << 20),
    # all-to-all: the count rounded up to a multiple of p, a p-th to each peer
    ("all_to_all", 1000, 3, 336, 1008), ("all_to_all", 4096, 16, 256, 4096),
])
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
    phase = Phase.of([Move(1, 0, 8, 1, 0, True), Move(2, 0, 4, 2, 1, True),
                      Move(0, 3, 16, 3, 2), Move(2, 3, 0, 3, 3, True)], "rs")
    assert phase.reduces == (Reduce(0, 12),)  # the copy to 3 reduces nothing; empty dropped
    assert len(phase.moves) == 3 and phase.nbytes == 28 and phase.label == "rs"


def _bcast(moves: list[list[Move]]) -> Collective:
    return Collective("broadcast", (0, 1, 2), "test", convention("broadcast", 4, 3),
                      (Piece(4, src=0),), tuple(Phase.of(m) for m in moves), root=0)


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
    add = Collective("all_reduce", (0, 1), "t", conv, pieces,
                     (Phase.of([Move(1, 0, 4, 0, 0, True)]), Phase.of([Move(0, 1, 4, 1, 0)])))
    assert missing(add) == []
    copy = Collective("all_reduce", (0, 1), "t", conv, pieces,
                      (Phase.of([Move(1, 0, 4, 0, 0)]), Phase.of([Move(0, 1, 4, 1, 0)])))
    assert missing(copy) == ["device 0 piece 0 has [1], needs [0, 1]",
                             "device 1 piece 0 has [1], needs [0, 1]"]


def test_bytes_in_and_out() -> None:
    c = _bcast([[Move(0, 1, 4, 1, 0)], [Move(1, 2, 4, 2, 0), Move(0, 2, 4, 2, 0)]])
    assert received_bytes(c) == {0: 0, 1: 4, 2: 8}
    assert sent_bytes(c) == {0: 8, 1: 4, 2: 0}
