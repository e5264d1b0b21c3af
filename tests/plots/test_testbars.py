"""Tests' figures (``plots/testbars.py``): each transfer beside its aggregate, the report's
figures of tests, and a scaling curve only for a scaling family (issue 30 item 15)."""

from __future__ import annotations

import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.patterns import expand, make_test
from ascend_p2p_lab.plots.reports import plan
from ascend_p2p_lab.plots.testbars import scaling_family, scaling_stats

#: unrelated tests of 1, 2 and 3 transfers: no one holds another's transfers
_UNRELATED = [
    make_test("one", ["0->1"], 8),
    make_test("two", ["2->3", "4->5"], 8),
    make_test("three", ["6->7", "1->0", "3->2"], 8),
]


def _sweep(tests):
    with open_runtime("sim", "atlas800t-a2", seed=2, announce=False) as rt:
        return sweep(
            rt,
            tests=tests(rt) if callable(tests) else tests,
            sizes="16MiB",
            samples=2,
            progress=False,
        )


@pytest.fixture(scope="module")
def mixed():
    """The scaling family 0 -> 1..3 and an unrelated test of three transfers."""
    return _sweep(
        lambda rt: [
            make_test("t", ["4->5", "5->6", "host->7"], 8),
            *expand(rt, "scaling", [0, 1, 2, 3]),
        ]
    )


def test_unrelated_tests_draw_no_scaling_curve() -> None:
    run = _sweep(_UNRELATED)
    names = [job.name for job in plan(run.frame())]
    assert "tests.png" in names and "scaling.png" not in names
    assert scaling_stats(run.frame()).empty


def test_the_family_is_drawn_without_the_unrelated_test(mixed) -> None:
    curve = scaling_stats(mixed.frame())
    assert list(curve["test"]) == ["scaling-1", "scaling-2", "scaling-3"]
    assert list(curve["transfers"]) == [1, 2, 3]  # one point per x: no zig-zag
    assert "scaling.png" in [job.name for job in plan(mixed.frame())]


def test_a_test_that_drops_a_transfer_breaks_the_chain() -> None:
    import pandas as pd

    st = pd.DataFrame(
        {
            "test": ["a", "b", "b", "c", "c", "c"],
            "transfer": 1,
            "what": ["0->1", "0->1", "0->2", "0->1", "0->3", "0->4"],
        }
    )
    assert scaling_family(st) == ["a", "b"]  # c lacks b's 0->2


def test_figures_of_tests(tmp_path):
    """The bars list every transfer and the aggregate with their own values; the report
    writes them, and the scaling curve for a family of tests."""
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab.plots import report
    from ascend_p2p_lab.plots.testbars import bars_stats, scaling_stats

    with open_runtime("sim", "atlas800t-a2", seed=2) as rt:
        run = sweep(
            rt,
            tests=[
                make_test("t", ["0->1", "2->3 by 2", "host->4"], 8),
                *expand(rt, "scaling", [0, 1, 2, 3]),
            ],
            sizes="64MiB",
            samples=2,
            progress=False,
        )
    st = bars_stats(run.frame())
    first = st[st["test"] == "t"]
    assert list(first["what"]) == ["0->1", "2->3", "host->4", "all"]
    agg = run.samples[(run.samples["test"] == "t") & run.samples["transfer"].isna()]
    assert first["median"].iloc[-1] == pytest.approx(agg["bandwidth_GBps"].median())
    assert first["median"].iloc[1] < first["median"].iloc[0]  # the push's own value
    curve = scaling_stats(run.samples[run.samples["test"].str.startswith("scaling")])
    assert list(curve["transfers"]) == [1, 2, 3]
    assert curve["median"].is_monotonic_increasing
    written = {p.name for p in report(run, tmp_path)}
    assert {"tests.png", "scaling.png"} <= written
    from matplotlib.colors import to_hex

    from ascend_p2p_lab.plots.testbars import AGGREGATE_COLOR, transfer_bars

    fig = transfer_bars(
        run.samples[run.samples["test"] == "t"]
    )  # the aggregate: the row of no transfer
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0] == "  0->1" and labels[-1] == "t: all"
    colors = [to_hex(b.get_facecolor()) for b in ax.patches]
    assert colors[-1] == to_hex(AGGREGATE_COLOR) and AGGREGATE_COLOR not in colors[:-1]
