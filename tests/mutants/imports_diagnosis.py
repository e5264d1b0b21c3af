"""Mutants of ``ascend_p2p_lab/imports/diagnosis.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "imports.diagnosis.diag_threshold_swapped",
        "imports/diagnosis.py",
        '"threshold_GBps": quantity(m["threshold"], "bandwidth"',
        '"threshold_GBps": quantity(m["value"], "bandwidth"',
        "a diagnosis line's threshold taken from its measured value",
    ),
]
