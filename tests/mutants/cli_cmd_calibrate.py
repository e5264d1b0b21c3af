"""Mutants of ``ascend_p2p_lab/cli/cmd_calibrate.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "cli.cmd_calibrate.run_preset_ignored",
        "cli/cmd_calibrate.py",
        "        return own, server_of(run.meta)",
        "        return None, server_of(run.meta)",
        "calibrate of a partial sweep asks for --preset although its run.json names one",
    ),
    M(
        "cli.cmd_calibrate.other_preset_taken",
        "cli/cmd_calibrate.py",
        "        return bool(given.name == own.name)",
        "        return True",
        "calibrate --preset atlas800t-a3 of an atlas800t-a2 run is not refused",
    ),
    M(
        "cli.cmd_calibrate.other_topology_taken",
        "cli/cmd_calibrate.py",
        "        given.device_count == n\n        and all(",
        "        given.device_count == n\n        or all(",
        "calibrate --topology of another server's links is taken when its device count fits",
    ),
]
