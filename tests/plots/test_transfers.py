"""Tests as data: transfers in the compact form, test files, the run and patterns
commands, and what the model says a set of simultaneous copies measures."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.patterns.builtin import expand
from ascend_p2p_lab.patterns.model import make_test
from ascend_p2p_lab.runtime import open_runtime


def test_figures_of_tests(tmp_path):
    """The bars list every transfer and the aggregate with their own values; the report
    writes them, and the scaling curve for a family of tests."""
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab.plots import report
    from ascend_p2p_lab.plots.transfers import scaling_stats, test_stats

    with open_runtime("sim", "atlas800t-a2", seed=2) as rt:
        run = sweep(rt, tests=[make_test("t", ["0->1", "2->3 by 2", "host->4"], 8),
                               *expand(rt, "scaling", [0, 1, 2, 3])],
                    sizes="64MiB", samples=2, progress=False)
    st = test_stats(run)
    first = st[st["test"] == "t"]
    assert list(first["what"]) == ["0->1", "2->3", "host->4", "all"]
    agg = run[(run["test"] == "t") & run["transfer"].isna()]
    assert first["median"].iloc[-1] == pytest.approx(agg["bandwidth_GBps"].median())
    assert first["median"].iloc[1] < first["median"].iloc[0]  # the push's own value
    curve = scaling_stats(run[run["test"].str.startswith("scaling")])
    assert list(curve["transfers"]) == [1, 2, 3]
    assert curve["median"].is_monotonic_increasing
    written = {p.name for p in report(run, tmp_path)}
    assert {"tests.png", "scaling.png"} <= written
    from matplotlib.colors import to_hex

    from ascend_p2p_lab.plots.transfers import AGGREGATE_COLOR, test_bars

    fig = test_bars(run[run["test"] == "t"])  # the aggregate: the row of no transfer
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0] == "  0->1" and labels[-1] == "t: all"
    colors = [to_hex(b.get_facecolor()) for b in ax.patches]
    assert colors[-1] == to_hex(AGGREGATE_COLOR) and AGGREGATE_COLOR not in colors[:-1]
