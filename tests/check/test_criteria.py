"""check/criteria.py: a [[collective]]'s size refused in one line that names the size
once (issue 30 item 18)."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.check.criteria import CriteriaError, criteria_from_text

_TEXT = """schema_version = 1
[topology]
links = [["X", "HCCS"], ["HCCS", "X"]]
peer_access = [["X", 1], [1, "X"]]
basis = "test"

[[collective]]
operation = "all_reduce"
size = "1MiB"
min_busbw_GBps = 1.0
basis = "test"

[[collective]]
operation = "all_gather"
size = "{size}"
min_busbw_GBps = 1.0
basis = "test"
"""


@pytest.mark.parametrize(("size", "said"), [("0", "size '0' must be positive"),
                                             ("0B", "size '0B' must be positive")])
def test_a_zero_collective_size_is_named_once(size: str, said: str) -> None:
    with pytest.raises(CriteriaError) as err:
        criteria_from_text(_TEXT.replace("{size}", size), "c.toml")
    assert str(err.value) == f"c.toml:15: {said}"
    assert str(err.value).count("size") == 1
