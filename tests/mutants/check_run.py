"""Mutants of ``ascend_p2p_lab/check/run.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import SWEEP_TESTS, M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.run.check_sweeps_not_joined",
        "check/run.py",
        ('    run = Run.concat(runs).replace(command="check", failed=failed)'),
        ('    run = (runs[0] if runs else Run()).replace(command="check", failed=failed)'),
        "a check keeps only its first sweep's rows",
        (
            *SWEEP_TESTS,
            "tests/run/test_meta.py",
            "tests/run/test_value.py",
            "tests/cli/test_cmd_check.py",
            "tests/cli/test_cmd_criteria.py",
            "tests/run/test_folder.py",
            "tests/test_terminal.py",
            "tests/check/test_check.py",
            "tests/check/test_derive.py",
            "tests/check/test_writer.py",
        ),
    ),
]
