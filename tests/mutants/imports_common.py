"""Mutants of ``ascend_p2p_lab/imports/common.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "imports.common.unit_ignored",
        "imports/common.py",
        "    return value * scale\n",
        "    return value\n",
        "a value's unit ignored (ns read as us, MB/s as GB/s)",
    ),
    M(
        "imports.common.unit_case_sensitive",
        "imports/common.py",
        "scale = UNITS[kind].get(unit.strip().lower())",
        "scale = UNITS[kind].get(unit.strip())",
        "a unit written in capitals (GB/s, KiB) is unknown",
    ),
]
