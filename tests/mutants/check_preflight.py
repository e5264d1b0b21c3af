"""Mutants of ``ascend_p2p_lab/check/preflight.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.preflight.no_verification",
        "check/preflight.py",
        "        verification=True,",
        "        verification=False,",
        "the preflight does not verify the bytes: corrupt copies pass",
    ),
    M(
        "check.preflight.push_first",
        "check/preflight.py",
        'CHEAPEST = (("uni", "dst"), ("uni", "src"), ("bi", "dst"), ("bi", "src"))',
        'CHEAPEST = (("uni", "src"), ("uni", "dst"), ("bi", "dst"), ("bi", "src"))',
        "the preflight keeps the pushes, not the pulls",
    ),
]
