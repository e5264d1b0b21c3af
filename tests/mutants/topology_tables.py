"""Mutants of ``ascend_p2p_lab/topology/tables.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "topology.tables.efficiency_unbounded",
        "topology/tables.py",
        "    push_efficiency: Fraction = 1.0",
        "    push_efficiency: Positive = 1.0",
        "an efficiency above 1 is accepted",
    ),
]
