"""Mutants of ``ascend_p2p_lab/check/lines.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

#: the tests that should catch them
TESTS = ("tests/check/test_criteria.py",)

MUTANTS: list[Mutant] = [
    M(
        "check.lines.line_off_by_one",
        "check/lines.py",
        "            return i + 1\n    if key:",
        "            return i\n    if key:",
        "a semantic error names the line before its key",
        TESTS,
    ),
    M(
        "check.lines.row_line_is_key_line",
        "check/lines.py",
        "                if seen == row:",
        "                if seen == -2:",
        ("a bad matrix row is reported at the matrix's key, not its own line"),
        TESTS,
    ),
    M(
        "check.lines.row_line_counts_comments",
        "check/lines.py",
        ('elif ch == "#":\n            pos = text.find("\\n", pos)'),
        ('elif ch == "\\0":\n            pos = text.find("\\n", pos)'),
        "a [ in a comment inside the matrix counts as a row",
        TESTS,
    ),
    M(
        "check.lines.index_ignored",
        "check/lines.py",
        "        k = index or 0\n",
        "        k = 0\n",
        "a key of the second [[table]] is reported at the first",
        ("tests/check/test_lines.py",),
    ),
    M(
        "check.lines.subtable_header_undotted",
        "check/lines.py",
        're.escape(key if table is None else f"{table}.{key}")',
        "re.escape(key)",
        "a misspelt sub-table's header is looked for without its table",
        ("tests/check/test_lines.py",),
    ),
]
