"""Mutants of ``ascend_p2p_lab/cli/cmd_probe.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "cli.cmd_probe.probe_json_transposed",
        "cli/cmd_probe.py",
        "                cell = cells.get((i, j))",
        "                cell = cells.get((j, i))",
        "probe JSON rows are destinations",
    ),
    M(
        "cli.cmd_probe.probe_json_diagonal_zero",
        "cli/cmd_probe.py",
        ("empty = SAME_DEVICE if i == j else None if cell is not None else NOT_PROBED"),
        "empty = None if cell is not None else NOT_PROBED",
        "probe JSON diagonal is a value, not null with a reason",
    ),
]
