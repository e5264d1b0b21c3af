"""Mutants of ``ascend_p2p_lab/typedfile.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "typedfile.array_of_tables_index_ignored",
        "typedfile.py",
        "                    self.arrays[name] = self.arrays.get(name, -1) + 1",
        "                    self.arrays[name] = 0",
        "a value of the second [[table]] is reported at the first",
    ),
    M(
        "typedfile.comment_brackets_count",
        "typedfile.py",
        '            if c == "#":\n                end',
        '            if c == "\\0":\n                end',
        "a [ in a comment inside an array counts as a row",
    ),
    M(
        "typedfile.parent_line_not_searched",
        "typedfile.py",
        "        for n in range(len(path), 0, -1):",
        "        for n in range(len(path), len(path) - 1, -1):",
        "a missing key is reported at line 1, not at its table",
    ),
    M(
        "typedfile.not_strict",
        "typedfile.py",
        "            return msgspec.convert(value, type=type_, strict=True)",
        "            return msgspec.convert(value, type=type_, strict=False)",
        'a string "64" is taken for the number 64',
    ),
]
