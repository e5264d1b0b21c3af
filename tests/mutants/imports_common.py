"""Mutants of ``ascend_p2p_lab/imports/common.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import COMMAND_TESTS, M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "imports.common.unit_ignored",
        "imports/common.py",
        "    return value * scale\n",
        "    return value\n",
        "a value's unit ignored (ns read as us, MB/s as GB/s)",
        (
            "tests/imports/test_imports.py",
            "tests/cli/test_cmd_import.py",
            "tests/imports/test_dmi_text.py",
            *COMMAND_TESTS,
            "tests/collectives/test_busbw.py",
        ),
    ),
    M(
        "imports.common.unit_case_sensitive",
        "imports/common.py",
        "scale = UNITS[kind].get(unit.strip().lower())",
        "scale = UNITS[kind].get(unit.strip())",
        "a unit written in capitals (GB/s, KiB) is unknown",
        ("tests/imports/test_common.py",),
    ),
]
