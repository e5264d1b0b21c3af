"""Mutants of ``ascend_p2p_lab/plots/classbars.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import SWEEP_TESTS, M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.classbars.preset_names_mixed",
        "plots/classbars.py",
        'g = table[table["name"] == name]',
        'g = table[table["name"] == names[-1 - names.index(name)]]',
        "compare_presets draws one preset's bars over another's name",
        (
            "tests/plots/test_prepare.py",
            "tests/plots/test_heatmaps.py",
            *SWEEP_TESTS,
            "tests/plots/test_matrix.py",
            "tests/plots/test_plots.py",
            "tests/plots/test_cells.py",
        ),
    ),
]
