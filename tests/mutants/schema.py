"""Mutants of ``ascend_p2p_lab/schema.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import SWEEP_TESTS, M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "schema.summary_key_lost",
        "schema.py",
        ('    "dst",\n    "group",'),
        ('    "dst",'),
        "every group pair summarized as one point",
        (
            *SWEEP_TESTS,
            "tests/patterns/test_cards.py",
            "tests/measure/test_plan.py",
            "tests/cli/test_cmd_report.py",
            "tests/cli/test_cmd_sweep.py",
            "tests/cli/test_runoutput.py",
            "tests/plots/test_aggregates.py",
            "tests/test_matrices.py",
            "tests/measure/test_rows.py",
            "tests/measure/test_spec.py",
        ),
    ),
]
