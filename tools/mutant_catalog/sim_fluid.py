"""Mutants of ``ascend_p2p_lab/sim/fluid.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.fluid.equal_share",
        "sim/fluid.py",
        "share = max(left[bottleneck], 0.0) / users[bottleneck]",
        "share = capacity[bottleneck] / counts[bottleneck]",
        "shared resources split equally, spare capacity not handed on",
        (
            "tests/measure/test_sweep.py",
            "tests/sim/test_engine.py",
            "tests/topology/test_presets.py",
            "tests/sim/test_routes.py",
            "tests/test_terminal.py",
        ),
    ),
]
