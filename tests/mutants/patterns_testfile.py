"""Mutants of ``ascend_p2p_lab/patterns/testfile.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "patterns.testfile.newer_schema_read",
        "patterns/testfile.py",
        "if file.schema_version > TEST_FILE_SCHEMA_VERSION:",
        "if file.schema_version > TEST_FILE_SCHEMA_VERSION + 1:",
        "a newer test file is read as if this release knew it",
    ),
    M(
        "patterns.testfile.wrong_line",
        "patterns/testfile.py",
        'raise doc.fail(("test", k, "transfers", i), str(exc)) from None',
        'raise doc.fail(("test", 0, "transfers", i), str(exc)) from None',
        "a bad transfer of the second test is reported in the first",
    ),
]
