"""Mutants of ``ascend_p2p_lab/check/render.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.render.junit_no_failure",
        "check/render.py",
        'if item["status"] == FAIL:',
        'if item["status"] == "FAILED":',
        "a failing item is written to JUnit as passing",
        (
            "tests/check/test_render.py",
            "tests/check/test_verdict.py",
            "tests/check/test_criteria.py",
            "tests/check/test_derive.py",
            "tests/check/test_check.py",
            "tests/cli/test_cmd_check.py",
            "tests/cli/test_cmd_criteria.py",
            "tests/check/test_writer.py",
        ),
    ),
]
