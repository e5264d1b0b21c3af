"""Mutants of ``ascend_p2p_lab/schema.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "schema.summary_key_lost",
        "schema.py",
        ('    "dst",\n    "group",'),
        ('    "dst",'),
        "every group pair summarized as one point",
    ),
]
