"""Mutants of ``ascend_p2p_lab/check/fleetitems.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.fleetitems.all_skipped_host_passes",
        "check/fleetitems.py",
        "        if overall(g) == (FAIL, 0):",
        "        if False:",
        "a fleet host whose items were all skipped passes the criteria",
    ),
]
