"""Widgets driven without a browser: set ``.value``, ``.click()`` buttons, check the runtime.

Example:
    python -m pytest tests/test_widgets.py -q -p no:nbval"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")
from helpers import _tiny

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab import widgets as W
from ascend_p2p_lab.widgets import SweepDashboard
from ascend_p2p_lab.widgets.status import error_summary


# ---------------------------------------------------------------------- errors as data
def _reworded(frame: Any) -> Any:
    out = frame.copy()
    out["error"] = out["error"].where(out["error"].isna(), "reworded " + out.index.astype(str))
    return out


def test_dashboard_failures_are_named_and_turn_the_status_red() -> None:
    faults = [{"kind": "error", "call": "rt.memcpy_async", "link": [2, 3], "code": 507013}]
    with open_runtime("sim", preset="atlas800t-a2", faults=faults) as rt:
        dash = SweepDashboard(rt)
        _tiny(dash, pairs=("0-1", "2-3"), sizes=(4096, 8192))
        frame = dash.run()
        message, status, errors = dash.message, dash.status.value, dash.errors
        dash.close()
    assert frame is not None
    assert (
        "; 2 rows carry an error: 2 runtime ACL_ERROR_RT_SYS_DMA (507013) from "
        "acl.rt.memcpy_async (2 of them failures that cost data)"
    ) in message
    assert "p2p-status-error" in status
    assert errors["failure"].tolist() == [True]

    # the counts and the status line come from error_kind, error_code and error_call only
    assert W.error_counts(_reworded(frame)).equals(W.error_counts(frame))
    assert error_summary(W.error_counts(_reworded(frame))) == error_summary(W.error_counts(frame))
    legacy = frame.copy()  # a run saved before error kinds: text only
    legacy[["error_kind", "error_code", "error_call"]] = None
    counts = W.error_counts(legacy)
    assert counts[["kind", "rows", "failure"]].values.tolist() == [["unclassified", 2, False]]
    assert W.error_counts(frame.iloc[0:0]).empty
