"""ascend_p2p_lab.plots.dielinks and the report's plan of a die-link run: the die links
drawn apart, never mixed into the pair figures."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest

from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.plots.dielinks import die_link_table, die_links
from ascend_p2p_lab.plots.reports import plan
from ascend_p2p_lab.runtime import open_runtime


@pytest.fixture(scope="module")
def runs() -> tuple[pd.DataFrame, pd.DataFrame]:
    with open_runtime("sim", "atlas800t-a3") as rt:
        kw = {"pairs": "7-6", "sizes": "16MiB,256MiB", "samples": 1, "progress": False}
        chosen = pd.concat(
            [
                sweep(rt, die_link="hccs", **kw),
                sweep(rt, die_link="both", die_split=[0.4, 0.6, 0.8], **kw),
            ],
            ignore_index=True,
        )
        plain = sweep(rt, **kw)
    chosen.attrs = plain.attrs
    return chosen, plain


def test_the_table_gives_each_link_and_split_its_median(runs) -> None:
    table = die_link_table(runs[0])
    hccs = table[(table["die_link"] == "hccs") & (table["size_bytes"] == 256 << 20)]
    assert float(hccs["GBps"].iloc[0]) == pytest.approx(127.0, rel=0.03)
    both = table[table["die_link"] == "both"]
    best = both[both["size_bytes"] == 256 << 20].sort_values("GBps").iloc[-1]
    assert best["die_split"] == 0.6  # near the rates' ratio, 0.60
    assert die_link_table(runs[1]).empty or die_link_table(runs[1])["die_link"].isna().all()


def test_the_figure_draws_every_link_and_the_split_sweep(runs) -> None:
    fig = die_links(runs[0])
    labels = [line.get_label() for ax in fig.axes for line in ax.get_lines()]
    assert "hccs only" in labels and "both, SIO's share 0.6" in labels
    assert any(label.startswith("best share 0.6") for label in labels)
    assert len(fig.axes) == 2
    with pytest.raises(ValueError, match="no copy over a chosen die link"):
        die_links(runs[1])


def test_the_report_draws_die_links_apart_and_keeps_other_runs_plans(runs) -> None:
    chosen, plain = runs
    names = [j.name for j in plan(chosen)]
    assert names == ["die_links.png"]  # no heatmap mixing the links of one pair
    mixed = pd.concat([chosen, plain], ignore_index=True)
    mixed.attrs = plain.attrs
    assert [j.name for j in plan(mixed)] == ["die_links.png", *[j.name for j in plan(plain)]]
    assert "die_links.png" not in [j.name for j in plan(plain)]
