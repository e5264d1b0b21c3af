"""Mutants of ``ascend_p2p_lab/plots/classbars.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.classbars.preset_names_mixed",
        "plots/classbars.py",
        'g = table[table["name"] == name]',
        'g = table[table["name"] == names[-1 - names.index(name)]]',
        "compare_presets draws one preset's bars over another's name",
    ),
]
