"""Mutants of ``ascend_p2p_lab/measure/pairs.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.pairs.pairs_reversed",
        "measure/pairs.py",
        "items.append((int(m.group(1)), int(m.group(2))))",
        "items.append((int(m.group(2)), int(m.group(1))))",
        '"0-1" read as 1 -> 0',
    ),
]
