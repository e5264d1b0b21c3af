"""Mutants of ``ascend_p2p_lab/sim/extras.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import COMMAND_TESTS, SIM_TESTS, SWEEP_TESTS, M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.extras.point_keeps_old_origin",
        "sim/extras.py",
        ("            rebased = self._engine.rebase(self._streams.events.values())"),
        "            rebased = True",
        ("a point starts wherever the clock stands (its rows depend on what ran before)"),
        (
            "tests/sim/test_engine.py",
            *SWEEP_TESTS,
            "tests/topology/test_presets.py",
            "tests/sim/test_routes.py",
            "tests/test_terminal.py",
            "tests/runtime/test_errors.py",
            "tests/measure/test_links.py",
            *COMMAND_TESTS,
            "tests/cli/test_cmd_report.py",
            "tests/cli/test_cmd_sweep.py",
            "tests/cli/test_runoutput.py",
            "tests/measure/test_checkpoint.py",
            "tests/measure/test_probe.py",
            "tests/sim/test_facade.py",
            *SIM_TESTS,
        ),
    ),
]
