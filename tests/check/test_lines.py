"""check/lines.py: a misspelt criteria table is refused at its header's FILE:LINE
(issue 30 item 18)."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.check.criteria import CriteriaError, criteria_from_text
from ascend_p2p_lab.check.lines import locate

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


@pytest.mark.parametrize(("tail", "line", "word"), [
    ('\n[[pairr]]\nmin_GBps = 1.0\n', 13, "'pairr'"),
    ('\n[verificaton]\nrequired = true\n', 13, "'verificaton'"),
    ('\n[[host]]\ndevice = 0\nmin_GBps = 1.0\nbasis = "t"\n\n[[latencyy]]\nmax_us = 9.0\n',
     18, "'latencyy'"),
])
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
