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
            "tests/cli/test_collectives.py",
            "tests/cli/test_imports.py",
            "tests/cli/test_cli.py",
            "tests/plots/test_collectives.py",
            "tests/run/test_folder.py",
            "tests/topology/test_presets.py",
        ),
    ),
]
