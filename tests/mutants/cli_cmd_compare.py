"""Mutants of ``ascend_p2p_lab/cli/cmd_compare.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "cli.cmd_compare.compare_out_late",
        "cli/cmd_compare.py",
        "        check_out_dir(args.out, overwrite=True)",
        "        pass",
        "compare checks --out only when it writes the figures",
    ),
]
