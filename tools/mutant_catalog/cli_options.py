"""Mutants of ``ascend_p2p_lab/cli/options.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "cli.options.preset_and_topology_both_taken",
        "cli/options.py",
        "    server = p.add_mutually_exclusive_group()",
        "    server = p",
        "sweep --preset A --topology B runs B and drops A without a word (issue 37)",
        ("tests/cli/test_options.py",),
    ),
]
