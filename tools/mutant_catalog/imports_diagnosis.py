"""Mutants of ``ascend_p2p_lab/imports/diagnosis.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "imports.diagnosis.diag_threshold_swapped",
        "imports/diagnosis.py",
        '"threshold_GBps": quantity(m["threshold"], "bandwidth"',
        '"threshold_GBps": quantity(m["value"], "bandwidth"',
        "a diagnosis line's threshold taken from its measured value",
        (
            "tests/imports/test_imports.py",
            "tests/cli/test_cmd_import.py",
            "tests/imports/test_dmi_text.py",
            "tests/cli/test_cli.py",
            "tests/cli/test_cmd_check.py",
            "tests/cli/test_cmd_collectives.py",
            "tests/cli/test_cmd_compare.py",
            "tests/cli/test_cmd_demo.py",
            "tests/cli/test_cmd_import.py",
            "tests/cli/test_cmd_presets.py",
            "tests/cli/test_cmd_probe.py",
            "tests/cli/test_cmd_run.py",
            "tests/cli/test_cmd_sim_path.py",
            "tests/cli/test_cmd_sweep.py",
            "tests/cli/test_cmd_topo.py",
            "tests/cli/test_exitstatus.py",
            "tests/cli/test_runoutput.py",
            "tests/collectives/test_busbw.py",
        ),
    ),
]
