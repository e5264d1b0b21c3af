"""plots.history: an item's values over time with its baseline band."""

from __future__ import annotations

import pandas as pd

from ascend_p2p_lab.plots import item_history

VALUES = pd.DataFrame(
    {
        "time": ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04"],
        "value": [20.0, 20.4, 17.0, 16.5],
        "verdict": ["PASS", "PASS", "FAIL", None],
    }
)
BASE = {"median": 20.2, "low": 19.19, "high": 21.21, "from": "2026-01-01", "to": "2026-01-02"}


def test_the_band_the_median_and_the_failed_runs_are_drawn() -> None:
    drift = {"direction": "down", "change": -0.17, "since": "2026-01-03"}
    fig = item_history(VALUES, BASE, item="bandwidth uni pull 2->5", host="a2", drift=drift)
    ax = fig.axes[0]
    band = ax.patches[0].get_extents().transformed(ax.transData.inverted())
    assert (round(band.y0, 2), round(band.y1, 2)) == (19.19, 21.21)
    assert [float(y) for y in ax.lines[1].get_ydata()] == [17.0]  # the FAIL, in red
    assert ax.lines[2].get_ydata()[0] == 20.2  # the baseline's median
    assert "drifts down (-17.0% since 2026-01-03)" in ax.get_title()


def test_without_a_baseline_only_the_values() -> None:
    ax = item_history(VALUES.iloc[:2], None, item="x").axes[0]
    assert not ax.patches and len(ax.lines) == 1 and "no baseline yet" in ax.get_title()


def test_a_marked_run_and_one_file_per_item(tmp_path) -> None:
    from ascend_p2p_lab.plots import write_item_histories

    ax = item_history(VALUES, BASE, item="x", mark="2026-01-03").axes[0]
    marked = [line for line in ax.lines if line.get_label() == "this run"]
    assert len(marked) == 1
    x = marked[0].get_xdata()[0]
    assert pd.Timestamp(x).date().isoformat() == "2026-01-03"
    table = pd.DataFrame(
        {
            "host": ["a2", "a2"],
            "item": ["uni 2->5", "uni 5->2"],
            "values": [VALUES.to_dict("records"), VALUES.iloc[:2].to_dict("records")],
            "baseline": [BASE, None],
            "drift": [None, None],
        }
    )
    paths = write_item_histories(table, tmp_path, prefix="history_")
    assert [p.name for p in paths] == ["history_a2_uni_2-_5.png", "history_a2_uni_5-_2.png"]
    assert all(p.stat().st_size > 0 for p in paths)


def test_each_items_figure_marks_the_run_its_row_names(tmp_path, monkeypatch) -> None:
    """write_item_histories passes each row's ``mark`` on (a wrapper spies on the figure
    each row gets; the figures are still drawn and written)."""
    import ascend_p2p_lab.plots.history as history

    marks = []

    def spy(*args, **kw):
        marks.append(kw.get("mark"))
        return item_history(*args, **kw)

    monkeypatch.setattr(history, "item_history", spy)
    table = pd.DataFrame(
        {
            "host": ["a2", "a2"],
            "item": ["uni 2->5", "uni 5->2"],
            "values": [VALUES.to_dict("records")] * 2,
            "baseline": [BASE, BASE],
            "drift": [None, None],
            "mark": ["2026-01-03", "2026-01-04"],
        }
    )
    history.write_item_histories(table, tmp_path)
    assert marks == ["2026-01-03", "2026-01-04"]
