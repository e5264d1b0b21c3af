"""Mutants of ``ascend_p2p_lab/cli/cmd_criteria.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "cli.cmd_criteria.fraction_ignored",
        "cli/cmd_criteria.py",
        ("criteria = criteria_from_preset(server.name, fraction=fraction, **extra)"),
        "criteria = criteria_from_preset(server.name, **extra)",
        "criteria --fraction is not passed on",
    ),
]
