"""ascend_p2p_lab.check.lines: the line of a key in a TOML file, for messages that name
where a criterion was written."""

from __future__ import annotations

from ascend_p2p_lab.check.lines import locate, locate_row

TEXT = """\
name = "a2"
[[b]]
x = 1
[[b]]
# x = 9 in a comment is no key
x = 2
[c]
"y" = 3
rows = [
  [1, 2],  # [not a row]
  [3, 4],
]
"""


def test_a_key_is_found_in_its_table_or_at_the_top() -> None:
    assert locate(TEXT, None, None, "name") == 1
    assert locate(TEXT, "b", 0, "x") == 3
    assert locate(TEXT, "b", 1, "x") == 6
    assert locate(TEXT, "c", None, "y") == 8


def test_an_absent_key_gives_its_tables_header_and_an_absent_table_none() -> None:
    assert locate(TEXT, "b", 1, "z") == 4
    assert locate(TEXT, "b", 2, "x") is None
    assert locate(TEXT, None, None, "x") is None  # x is in a table, not at the top


def test_a_row_of_an_array_of_arrays_is_found_by_its_opening_line() -> None:
    assert locate_row(TEXT, "c", "rows", 0) == 10
    assert locate_row(TEXT, "c", "rows", 1) == 11
    assert locate_row(TEXT, "c", "rows", 5) == 9  # no such row: the key's line
    assert locate_row(TEXT, "c", "nope", 0) == 7  # no such key: its table's header
