"""Mutants of ``ascend_p2p_lab/sim/part.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.part.second_declaration_wins",
        "sim/part.py",
        "                if call.name in calls:\n",
        "                if False:\n",
        "a call declared by two methods is served by the last one, silently",
    ),
]
