"""The program a collective runs as on the streams (collectives/schedule.py) and its
buffers (collectives/layout.py): every conflicting access ordered by the waits, for every
algorithm, 2 to 16 ranks, one run and runs back to back; the checker sees a dropped
wait; each rank's closing end covers every copy that touched it; the buffers' layout
and the origins a verification expects."""

from __future__ import annotations

import dataclasses

import pytest
from helpers import _cases

from ascend_p2p_lab.collectives.algorithms import build
from ascend_p2p_lab.collectives.phases import convention
from ascend_p2p_lab.collectives.predict import predict
from ascend_p2p_lab.collectives.rates import LinkModel
from ascend_p2p_lab.collectives.schedule import (
    DONE,
    END,
    Ref,
    _ancestors,
    _program,
    closed,
    closes,
    hazards,
    lands_on,
    schedule,
)
from ascend_p2p_lab.collectives.select import collective
from ascend_p2p_lab.topology import load_preset

SIZES = (4, 1000, 1 << 20)


def _ranks(p: int) -> tuple[int, ...]:
    """Devices that are not 0..p-1, out of order."""
    return tuple((3 * i + 1) % 17 for i in range(p))


def _build(op: str, alg: str, size: int, p: int):
    return build(op, alg, convention(op, size, p), _ranks(p))


@pytest.mark.parametrize("algorithm,op", _cases())
@pytest.mark.parametrize("p", [2, 5, 9, 16])
def test_every_conflict_is_ordered(algorithm: str, op: str, p: int) -> None:
    for size in SIZES:
        coll = _build(op, algorithm, size, p)
        for runs in (1, 2):
            assert hazards(schedule(coll, runs)) == [], (algorithm, op, p, size, runs)


def _without_peer_waits(s):
    steps = tuple(
        tuple(dataclasses.replace(st, waits=st.waits[:1]) for st in phase) for phase in s.steps
    )
    return dataclasses.replace(s, steps=steps)


def test_the_checker_sees_a_dropped_handshake() -> None:
    """A ring step that does not wait for its peer reads a piece before it arrived."""
    s = schedule(_build("all_gather", "ring", 1 << 20, 4))
    found = hazards(_without_peer_waits(s))
    assert found and "not ordered after done" in found[0]


def test_the_checker_sees_a_missing_landing() -> None:
    """A mesh reduce-scatter whose ranks reduce without waiting for the writes into them."""
    s = schedule(_build("reduce_scatter", "mesh", 1 << 20, 4))
    bare = dataclasses.replace(
        s,
        landings=((),),
        marks=({d: tuple(r for r in refs if r.kind == DONE) for d, refs in s.marks[0].items()},),
    )
    assert any("end 0/" in h for h in hazards(bare))


def test_what_a_rank_lands() -> None:
    """Pushes land on their destination; recursive doubling's partner reads land on the
    rank that reduces what it reads; a ring's reads (the reader reduces) land nowhere."""
    rs = _build("reduce_scatter", "mesh", 1 << 20, 4).phases[0]
    assert sorted(lands_on(rs)) == sorted((m.dst, j) for j, m in enumerate(rs.moves))
    hd = build("all_reduce", "hd", convention("all_reduce", 4096, 4), (0, 1, 2, 3))
    assert sorted(d for d, _ in lands_on(hd.phases[0])) == [0, 1, 2, 3]
    ring = _build("reduce_scatter", "ring", 1 << 20, 4)
    assert all(lands_on(ph) == [] for ph in ring.phases)


@pytest.mark.parametrize("algorithm,op", _cases())
def test_the_closing_end_follows_every_copy_that_touched_the_rank(algorithm, op) -> None:
    """A run another follows closes: each rank's last end follows every copy of the run
    that touched its memory, so the next run may write it."""
    coll = _build(op, algorithm, 1 << 20, 8)
    s = closed(coll)
    index, before = _ancestors(_program(s))
    last = len(coll.phases) - 1
    for d in coll.ranks:
        seen = before[Ref(END, last, d)]
        for k, ph in enumerate(coll.phases):
            for j, m in enumerate(ph.moves):
                if d in (m.src, m.dst):
                    assert seen >> index[Ref(DONE, k, j)] & 1, (d, k, j)


def test_slots_are_the_moves_a_rank_issues_at_once() -> None:
    """A mesh rank issues p - 1 copies at once, each on a stream of its own; a double
    ring two; a ring one, but the closing barrier between two runs lands the p - 1 reads
    of each rank, one stream each."""
    assert set(schedule(_build("all_gather", "mesh", 1 << 20, 8)).slots.values()) == {7}
    assert set(schedule(_build("all_reduce", "double_ring", 1 << 20, 8)).slots.values()) == {2}
    ring = _build("all_gather", "ring", 1 << 20, 8)
    assert set(schedule(ring).slots.values()) == {1}
    assert set(closed(ring).slots.values()) == {7}
    assert set(schedule(ring, 2).slots.values()) == {7}


def test_only_a_run_another_follows_closes() -> None:
    """A sample of one run ends with its last phase (the host waits for all of it): the
    prediction is HCCL's cost model, at 4 bytes a mesh all-gather on the A2 one alpha,
    5 + 8 us. Between two runs the all-gather's ranks wait for the reads of their
    memory (a barrier more); a mesh reduce-scatter's pushes already land."""
    a2 = load_preset("atlas800t-a2")
    ag = collective("all_gather", 4, a2)
    assert predict(ag, LinkModel.from_topology(a2)).time_us == pytest.approx(13.0, abs=0.01)
    assert closes(ag) and len(closed(ag).landings[-1]) == 56
    assert schedule(ag).landings[-1] == ()
    rs = collective("reduce_scatter", 4, a2)
    assert not closes(rs)
