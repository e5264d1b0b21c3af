"""Mutants of ``ascend_p2p_lab/sim/fluid.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.fluid.equal_share",
        "sim/fluid.py",
        "share = max(left[bottleneck], 0.0) / users[bottleneck]",
        "share = capacity[bottleneck] / counts[bottleneck]",
        "shared resources split equally, spare capacity not handed on",
    ),
    M(
        "sim.fluid.limit_is_the_first_resource",
        "sim/fluid.py",
        "stream.limit = max(bound, key=bound.__getitem__)",
        "stream.limit = op.resources[0]",
        "what bound a copy is its first resource (its link), not what was saturated",
        tests=(
            "tests/sim/test_engine.py",
            "tests/measure/test_phaserows.py",
        ),
    ),
]
