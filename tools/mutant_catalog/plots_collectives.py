"""Mutants of ``ascend_p2p_lab/plots/collectives.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.collectives.busbw_drawn_as_algbw",
        "plots/collectives.py",
        ('        (bus,) = ax.plot(\n            g["size_bytes"],\n            g["busbw_GBps"],'),
        ('        (bus,) = ax.plot(\n            g["size_bytes"],\n            g["algbw_GBps"],'),
        "the busbw line draws algbw",
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
