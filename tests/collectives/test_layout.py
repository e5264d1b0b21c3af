"""The program a collective runs as on the streams (collectives/schedule.py) and its
buffers (collectives/layout.py): every conflicting access ordered by the waits, for every
algorithm, 2 to 16 ranks, one run and runs back to back; the checker sees a dropped
wait; each rank's closing end covers every copy that touched it; the buffers' layout
and the origins a verification expects."""

from __future__ import annotations

import itertools

import pytest
from helpers import _cases

from ascend_p2p_lab.collectives.algorithms import build
from ascend_p2p_lab.collectives.layout import checked, held, layout, origins
from ascend_p2p_lab.collectives.phases import convention

SIZES = (4, 1000, 1 << 20)


def _ranks(p: int) -> tuple[int, ...]:
    """Devices that are not 0..p-1, out of order."""
    return tuple((3 * i + 1) % 17 for i in range(p))


def _build(op: str, alg: str, size: int, p: int):
    return build(op, alg, convention(op, size, p), _ranks(p))


@pytest.mark.parametrize("algorithm,op", _cases())
@pytest.mark.parametrize("p", [3, 16])
def test_origins_settle_after_two_runs(algorithm: str, op: str, p: int) -> None:
    for size in SIZES:
        coll = _build(op, algorithm, size, p)
        assert origins(coll, 2) == origins(coll, 3), (algorithm, op, p, size)
        pieces, _ = origins(coll, 2)
        assert all(key in pieces for key in checked(coll))


def test_origins_of_an_all_gather_and_a_reduce_scatter() -> None:
    """All-gather: every rank ends with every rank's chunk, from that rank; a mesh
    reduce-scatter's slots hold each sender's own contribution, its piece its own."""
    ag = _build("all_gather", "mesh", 1 << 20, 4)
    pieces, _ = origins(ag)
    assert {pieces[(d, k)] for d in ag.ranks for k in range(4)} == {
        (ag.ranks[k], k) for k in range(4)
    }
    rs = _build("reduce_scatter", "mesh", 1 << 20, 4)
    pieces, slots = origins(rs)
    for (k, j), origin in slots.items():
        m = rs.phases[k].moves[j]
        assert origin == (m.src, m.piece)
    assert all(pieces[(d, k)] == (d, k) for d, k in checked(rs))


@pytest.mark.parametrize("algorithm,op", _cases())
def test_layout_keeps_pieces_apart(algorithm: str, op: str) -> None:
    coll = _build(op, algorithm, 12_345, 5)
    lay = layout(coll)
    for d in coll.ranks:
        spans = sorted((off, off + coll.pieces[k].nbytes) for k, off in lay.offsets[d].items())
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))
        assert spans[-1][1] <= lay.data_bytes[d]
        assert set(held(coll)[d]) <= set(lay.offsets[d])
    for k, phase in enumerate(coll.phases):  # a pass reduces its phase's slots, in a row
        for red in phase.reduces:
            at, nbytes = lay.passes[(k, red.device)]
            mine = sorted(
                lay.slots[(k, j)]
                for j, m in enumerate(phase.moves)
                if m.reduce and m.dst == red.device
            )
            assert nbytes == red.nbytes and mine[0] == at
            assert at + nbytes <= lay.slot_bytes[red.device]
            assert nbytes <= lay.scratch_bytes[red.device]
