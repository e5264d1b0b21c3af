"""Mutants of ``ascend_p2p_lab/topology/tables.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "topology.tables.efficiency_unbounded",
        "topology/tables.py",
        "    if number > 1:",
        "    if number > 100:",
        "an efficiency above 1 is accepted",
        (
            "tests/measure/test_sweep.py",
            "tests/sim/test_engine.py",
            "tests/topology/test_checks.py",
            "tests/sim/test_routes.py",
            "tests/test_terminal.py",
        ),
    ),
]
