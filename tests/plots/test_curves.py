"""Bandwidth vs size (``plots/curves.py``): the staged path's curves say they go through
host memory, not the link (issue 30 item 14)."""

from __future__ import annotations

import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep_run
from ascend_p2p_lab.plots import bandwidth_vs_size


@pytest.fixture(scope="module")
def both_run():
    """Pairs with peer access on (P2P) and off (direct and staged), over HCCS."""
    with open_runtime("sim", preset="atlas800t-a2", announce=False) as rt:
        return sweep_run(rt, pairs="0-1,1-0,2-3", sizes=["1MiB", "16MiB"], samples=2,
                         peer="both", progress=False)


def _labels(fig) -> list[str]:
    return [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


@pytest.mark.parametrize("by,max_legend", [("link", 8), ("pair", 8), ("pair", 1)])
def test_the_staged_curve_says_it_goes_through_host_memory(both_run, by, max_legend) -> None:
    labels = _labels(bandwidth_vs_size(both_run, by=by, peer="off", path="staged",
                                       max_legend=max_legend))
    lines = [t for t in labels if "→" in t or "pairs" in t]
    assert lines and all("via host memory" in t for t in lines), labels
    assert "HCCS (3 pairs)" not in labels and not any("nominal" in t for t in labels), labels


@pytest.mark.parametrize("by", ["link", "pair"])
def test_the_p2p_curve_is_the_links_with_its_nominal(both_run, by) -> None:
    labels = _labels(bandwidth_vs_size(both_run, by=by, peer="on"))
    assert not any("host memory" in t for t in labels), labels
    assert any(t.startswith("HCCS nominal") for t in labels), labels
    assert (by == "link") == ("HCCS (3 pairs)" in labels), labels
