"""Mutants of ``ascend_p2p_lab/collectives/busbw.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import COMMAND_TESTS, M, Mutant

#: the tests that should catch them
TESTS = (
    "tests/collectives/test_busbw.py",
    "tests/imports/test_imports.py",
    "tests/cli/test_cmd_import.py",
    "tests/imports/test_dmi_text.py",
    *COMMAND_TESTS,
)

MUTANTS: list[Mutant] = [
    M(
        "collectives.busbw.allreduce_factor_halved",
        "collectives/busbw.py",
        '"all_reduce": lambda n: 2 * (n - 1) / n,',
        '"all_reduce": lambda n: (n - 1) / n,',
        "all-reduce busbw with the all-gather factor (n-1)/n",
        TESTS,
    ),
    M(
        "collectives.busbw.allgather_factor_one",
        "collectives/busbw.py",
        '"all_gather": lambda n: (n - 1) / n,',
        '"all_gather": lambda n: 1.0,',
        "all-gather busbw = algbw",
        TESTS,
    ),
]
