"""The timing of a collective (measure/phasetiming.py): a sample of n runs behind the gate,
its times on the lead's clock, the gate sized after the host's enqueue, its resources
closed."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.collectives.programs import program
from ascend_p2p_lab.collectives.select import collective
from ascend_p2p_lab.measure.phasebuffers import PhaseBuffers
from ascend_p2p_lab.measure.phasetiming import Phases, PhaseSample
from ascend_p2p_lab.runtime import open_runtime
from ascend_p2p_lab.topology import load_preset


def _samples(op: str, nbytes: int, ranks: list[int], runs: list[int]) -> list[PhaseSample]:
    prog = program(collective(op, nbytes, load_preset("atlas800t-a2"), ranks))
    pairs = [(a, b) for a in ranks for b in ranks if a != b]
    with open_runtime("sim", "atlas800t-a2", announce=False) as rt, rt.peer_links(pairs):
        phases = Phases(rt, prog)
        phases.buffers = PhaseBuffers(rt, prog)
        try:
            out = [phases.sample(n) for n in runs]
            assert phases.runs == sum(runs)
            assert phases.buffers.verify(phases.runs)  # every piece landed where it must
        finally:
            phases.buffers.close()
            phases.close()
        assert phases.made == []
    return out


def test_a_sample_times_each_phase_of_its_last_run_on_the_lead_clock() -> None:
    first, s = _samples("all_gather", 4 << 20, [0, 1, 2, 3], [1, 3])
    assert s.window.copies == 3 and len(s.phase_us) == len(s.move_us) >= 1
    assert all(p > 0 for p in s.phase_us)
    # the last run's phases end at the window's end: the window spans the 3 runs
    assert s.window.elapsed_us == pytest.approx(3 * sum(s.phase_us), rel=0.35)
    assert s.window.elapsed_us > sum(s.phase_us)
    # a phase's time is set by the last of its moves to end
    ends = [max(m) for m in s.move_us]
    assert ends == sorted(ends)
    # the same bytes over like links, released one hop apart: on the lead's clock the
    # moves of a phase end together (each rank's own clock would put the lead's a hop
    # later than the others')
    assert max(s.move_us[0]) - min(s.move_us[0]) < s.hop_us
    assert s.hop_us > 0 and s.gate_us > 0
    assert len(s.move_limits) == len(s.move_us)  # the simulator says what bound each move
    assert first.window.copies == 1


def test_the_gate_grows_to_outlast_the_hosts_enqueue() -> None:
    """The first sample's gate is 4 copies; the next is sized from the host's time per
    run and one gate copy's device time, so the ranks wait for the whole enqueue."""
    samples = _samples("all_to_all", 1 << 20, [0, 1, 2, 3, 4, 5, 6, 7], [1, 8, 8])
    assert not samples[-1].host_bound
    assert samples[-1].gate_us > samples[0].gate_us
