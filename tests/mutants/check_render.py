"""Mutants of ``ascend_p2p_lab/check/render.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.render.junit_no_failure",
        "check/render.py",
        "if status == FAIL or (status == WARN and strict):",
        'if status == "FAILED" or (status == WARN and strict):',
        "a failing item is written to JUnit as passing",
    ),
    M(
        "check.render.skips_counted_as_passed",
        "check/render.py",
        "{int((items['status'] == PASS).sum())} passed",
        "{int((items['status'] != FAIL).sum())} passed",
        "the summary's count of passed items includes the skipped ones",
    ),
    M(
        "check.render.junit_no_verdict_case",
        "check/render.py",
        'alone = verdict.startswith("FAIL") and not n_fail',
        "alone = False",
        "JUnit passes a check that failed with no failing item (all skipped, samples lost)",
    ),
    M(
        "check.render.junit_warn_fails",
        "check/render.py",
        "if status == FAIL or (status == WARN and strict):",
        "if status in (FAIL, WARN):",
        "a warned item fails the JUnit report without --strict",
    ),
    M(
        "check.render.warn_summary_passes",
        "check/render.py",
        "    if text == PASS and warned:",
        "    if False:",
        "a check with only warned items says PASS in its summary line",
    ),
]
