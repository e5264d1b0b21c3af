"""Mutants of ``ascend_p2p_lab/imports/__init__.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "imports.matrix_of_another_server",
        "imports/__init__.py",
        "    _check_matrices(rows, topology, whose)",
        "    pass",
        "an 8 x 8 A2 matrix imports as a 16-device atlas800t-a3 run (issue 37)",
        tests=("tests/cli/test_cmd_import.py",),
    ),
    M(
        "imports.pair_faster_than_its_link",
        "imports/__init__.py",
        "            if c is not None and value > c.nominal_GBps * FIT_TOLERANCE:",
        "            if False:",
        "an A3 SIO pair at 190 GB/s imports as an A2 HCCS pair (issue 37)",
        tests=("tests/cli/test_cmd_import.py",),
    ),
    M(
        "imports.card_faster_than_its_links",
        "imports/__init__.py",
        "    if value > rate * FIT_TOLERANCE:",
        "    if False:",
        "an A3 -m card matrix (329 GB/s per card pair) imports as an atlas800t-a2 run",
        tests=("tests/cli/test_cmd_import.py",),
    ),
]
