"""Groups of devices copying at once (``--groups 0,1:2,3``) and card pairs (``card``):
parsing, planning, peer state, the measured value, the nominal rate, card matrices, CLI.

The fixtures are asymmetric: one direction of one link is degraded or corrupt, so a
group or card named the wrong way round, or a matrix transposed, cannot pass."""

from __future__ import annotations

import pandas as pd
import pytest
from helpers import SLOW_1_TO_3

from ascend_p2p_lab import open_runtime, plots
from ascend_p2p_lab.measure import (
    sweep,
)

SIZE = 16 << 20


A2, A3 = "atlas800t-a2", "atlas800t-a3"


def _run(preset: str, faults: list | None = None, **kwargs) -> pd.DataFrame:
    spec = {"sizes": [SIZE], "samples": 2, "progress": False, **kwargs}
    with open_runtime("sim", preset, faults=faults) as rt:
        run = sweep(rt, **spec)
        assert rt.peer_refs() == {}  # every enable the groups needed was put back
    return run


def _median(
    run: pd.DataFrame, group: str, value: str = "bandwidth_GBps", direction: str = "uni"
) -> float:
    rows = run.samples[(run.samples["group"] == group) & (run.samples["direction"] == direction)]
    assert len(rows), f"no rows for {group} {direction}"
    return float(rows[value].median())


# ------------------------------------------------------------------ figures
def test_aggregate_bars_hold_each_group_its_value_and_nominal() -> None:
    from ascend_p2p_lab.plots.aggregates import aggregate_bars, aggregate_stats

    run = _run(A2, SLOW_1_TO_3, groups="0,1:2,3;2,3:0,1", direction="both")
    st = aggregate_stats(run.frame()).set_index("what")
    assert list(st.index) == ["group 0,1->2,3", "group 2,3->0,1", "group 0,1<->2,3"]
    assert st.loc["group 0,1->2,3", "median"] == pytest.approx(_median(run, "0,1->2,3"))
    assert st.loc["group 2,3->0,1", "median"] == pytest.approx(_median(run, "2,3->0,1"))
    both = run.samples[(run.samples["direction"] == "bi") & (run.samples["group"] == "0,1->2,3")]
    assert st.loc["group 0,1<->2,3", "median"] == pytest.approx(
        float(both["bidir_total_GBps"].median())
    )
    nominal = float(run.samples["nominal_GBps"].iloc[0])
    assert st.loc["group 0,1<->2,3", "nominal_GBps"] == 2 * nominal
    fig = aggregate_bars(run)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == list(st.index)
    widths = [p.get_width() for p in fig.axes[0].patches][:3]
    assert widths == pytest.approx(list(st["median"]))


def test_card_heatmap_rows_are_sending_cards_and_report_draws_it(tmp_path) -> None:
    from ascend_p2p_lab.plots import card_heatmap, report

    slow = [{"kind": "degrade", "link": [2, 0], "factor": 0.1}]
    run = _run(A3, slow, patterns="card", devices="0-5", samples=1)
    fig = card_heatmap(run)
    image = fig.axes[0].images[0].get_array()
    assert image[1, 0] < 0.5 * image[0, 1]  # row 2,3 -> column 0,1 is the slow one
    texts = {t.get_position(): t.get_text() for t in fig.axes[0].texts}
    assert texts[(0, 1)] == f"{image[1, 0]:.0f}" and texts[(0, 0)] == "—"
    names = {p.name for p in report(run, tmp_path)}
    assert {"aggregates.png", "card_uni.png"} <= names
    with pytest.raises(ValueError, match="no card matrix"):
        card_heatmap(run, direction="bi")


def test_the_aggregates_figure_names_its_size_as_every_figure_does() -> None:
    pytest.importorskip("matplotlib")

    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(rt, sizes="1GiB", groups="0,1:2,3", samples=1, progress=False)
    title = plots.aggregate_bars(run).axes[0].get_title()
    assert "at 1 GiB" in title and "MiB" not in title
