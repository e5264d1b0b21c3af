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
        "directions = tuple(d for d in DIRECTIONS if (d, initiator) in needs.bandwidth)",
        "directions = tuple(d for d in DIRECTIONS if (d, initiator) in needs.bandwidth)[:1]",
        "a check with criteria in both directions measures one",
    ),
    M(
        "check.plan.spec_pairs_unresolved",
        "measure/spec.py",
        "    pairs = given if devices is None else _pairs_among(devices, given)",
        "    pairs = given",
        "a check's spec on some devices measures every pair of the server (check_spec "
        "leaves its pairs as make_spec would not)",
        ("tests/check/test_plan.py",),
    ),
]
