"""check/lines.py: a misspelt criteria table is refused at its header's FILE:LINE
(issue 30 item 18)."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.check.criteria import CriteriaError, criteria_from_text
from ascend_p2p_lab.check.lines import locate, locate_row

_TOP = """schema_version = 1
# a [[pairr]] in a comment is no table
[topology]
links = [["X", "HCCS", "SIO"], ["HCCS", "X", "HCCS"], ["SIO", "HCCS", "X"]]
peer_access = [["X", 1, 1], [1, "X", 1], [1, 1, "X"]]
basis = "test"

[[bandwidth]]
link = "HCCS"
min_GBps = 20.0
basis = "test"
"""


@pytest.mark.parametrize(
    ("tail", "line", "word"),
    [
        ("\n[[pairr]]\nmin_GBps = 1.0\n", 13, "'pairr'"),
        ("\n[verificaton]\nrequired = true\n", 13, "'verificaton'"),
        (
            '\n[[host]]\ndevice = 0\nmin_GBps = 1.0\nbasis = "t"\n\n[[latencyy]]\nmax_us = 9.0\n',
            18,
            "'latencyy'",
        ),
    ],
)
def test_a_misspelt_table_names_its_header_line(tail: str, line: int, word: str) -> None:
    with pytest.raises(CriteriaError) as err:
        criteria_from_text(_TOP + tail, "c.toml")
    assert err.value.line == line
    assert str(err.value).startswith(f"c.toml:{line}: unknown key {word}")


def test_a_subtable_of_a_table_is_found_by_its_dotted_header() -> None:
    text = "[topology]\nbasis = 'x'\n\n[topology.extra]\nx = 1\n"
    assert locate(text, "topology", None, "extra") == 4
    assert locate(text, "topology", None, "basis") == 2
    assert locate(text, None, None, "nothing") is None


# ------------------------------------------------ the tests moved beside the module
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
