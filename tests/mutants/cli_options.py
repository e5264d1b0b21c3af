"""Mutants of ``ascend_p2p_lab/cli/options.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "cli.options.preset_and_topology_both_taken",
        "cli/options.py",
        "    server = p.add_mutually_exclusive_group()",
        "    server = p",
        "sweep --preset A --topology B runs B and drops A without a word (issue 37)",
    ),
    M(
        "cli.options.out_without_overwrite",
        "cli/options.py",
        "    if overwrite is not None:\n        add_overwrite(p, overwrite)",
        "    if overwrite is None:\n        add_overwrite(p, overwrite)",
        "the commands' --overwrite no longer declared beside --out (issue 41 item 4)",
        tests=("tests/cli/test_runoutput.py",),
    ),
]
