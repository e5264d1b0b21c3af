"""Mutants of ``ascend_p2p_lab/imports/runs.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "imports.runs.params_uni_only",
        "imports/runs.py",
        ('        for direction in ("uni", "bi"):\n            part = cells[(cells["pattern"]'),
        ('        for direction in ("uni",):\n            part = cells[(cells["pattern"]'),
        ("an imported run's params plan only uni: its bi totals are never re-run"),
    ),
]
