"""Mutants of ``ascend_p2p_lab/check/run.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.run.check_sweeps_not_joined",
        "check/run.py",
        ('    run = Run.concat(runs).replace(command="check", failed=failed)'),
        ('    run = (runs[0] if runs else Run()).replace(command="check", failed=failed)'),
        "a check keeps only its first sweep's rows",
        tests=("tests/check/test_check.py",),
    ),
]
