"""Mutants of ``ascend_p2p_lab/check/plan.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.plan.no_push",
        "check/plan.py",
        "for initiator in PAIR_INITIATORS:",
        "for initiator in PAIR_INITIATORS[:1]:",
        ("the check never measures pushes, so push criteria are never judged"),
    ),
    M(
        "check.plan.both_directions_as_uni",
        "check/plan.py",
        'direction = "both" if len(directions) == 2 else directions[0]',
        "direction = directions[0]",
        "a check with criteria in both directions measures one",
    ),
]
