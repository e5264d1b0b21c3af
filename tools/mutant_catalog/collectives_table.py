"""Mutants of ``ascend_p2p_lab/collectives/table.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "collectives.table.table_checks_nothing",
        "collectives/table.py",
        ('    return "failed" if "failed" in got else "success" if got == {"success"} else "NULL"'),
        '    return "success"',
        "the table says success whatever the samples' checks",
        (
            "tests/collectives/test_table.py",
            "tests/cli/test_cmd_collectives.py",
            "tests/cli/test_cmd_import.py",
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
            "tests/plots/test_collectives.py",
            "tests/run/test_folder.py",
            "tests/topology/test_presets.py",
        ),
    ),
]
