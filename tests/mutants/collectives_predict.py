"""Mutants of ``ascend_p2p_lab/collectives/predict.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "collectives.predict.bottleneck_least_loaded",
        "collectives/predict.py",
        "if value > best * (1 + _TIE) or best_key is None:",
        "if value < best * (1 - _TIE) or best_key is None:",
        "the least loaded resource named as the bottleneck",
    ),
    M(
        "collectives.predict.no_barrier",
        "collectives/predict.py",
        "barrier = model.barrier_us + wait",
        "barrier = wait",
        "phases without their barrier (the small-size floor too low)",
    ),
    M(
        "collectives.predict.writers_reduce_at_once",
        "collectives/predict.py",
        "    wait = model.barrier_us if lands_on(phase) else 0.0",
        "    wait = 0.0",
        ("a rank others wrote into (reducing inline or before a pass) does not wait on them"),
    ),
    M(
        "collectives.predict.bottleneck_of_the_last_phase",
        "collectives/predict.py",
        "return _longest(self.phases).bottleneck",
        "return self.phases[-1].bottleneck",
        ("the op's bottleneck taken from its last phase, not its longest"),
    ),
    M(
        "collectives.predict.algbw_of_the_printed_size",
        "collectives/predict.py",
        ("return self.collective.convention.algbw_bytes / (self.time_us * BYTES_PER_US)"),
        ("return self.collective.convention.size_bytes / (self.time_us * BYTES_PER_US)"),
        "algbw of the printed size, not the bytes hccl_test counts",
    ),
    M(
        "collectives.predict.bottleneck_of_the_fastest_copy",
        "collectives/predict.py",
        ("            slow = phase.moves[max(range(len(times)), key=times.__getitem__)]"),
        ("            slow = phase.moves[min(range(len(times)), key=times.__getitem__)]"),
        "the measured bottleneck is the copy that ended first",
    ),
    M(
        "collectives.predict.bound_with_small_copies",
        "collectives/predict.py",
        ("        return base(src, dst, max(nbytes, BOUND_BYTES), initiator)"),
        "        return base(src, dst, nbytes, initiator)",
        ("the link bound prices small copies at their measured (latency-bound) rate"),
    ),
]
