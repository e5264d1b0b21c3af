"""compare: run-vs-run bandwidth ratios, the points below a threshold, the verdict.

The degraded run halves one direction only (0 -> 1; 1 -> 0 stays clean), so a
comparison, a terminal matrix or a heatmap that swaps source and destination cannot pass."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from helpers import (
    saved_compare_runs,
)

from ascend_p2p_lab.comparison import (
    compare,
)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[pd.DataFrame, Path]]:
    """clean, clean2, degraded, failing, corrupt, other, wider (helpers.saved_compare_runs)."""
    return saved_compare_runs(tmp_path_factory.mktemp("runs"))


# ----------------------------------------------------------------------- the figure
def test_ratio_heatmap_marks_exactly_cell_0_1(runs) -> None:
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab.plots import ratio_heatmap
    from ascend_p2p_lab.plots.ratiomap import marked_cells

    fig = ratio_heatmap(compare(runs["clean"][0], runs["degraded"][0]))
    ax = fig.axes[0]
    assert marked_cells(ax) == [(0, 1)]
    image = ax.images[0].get_array()
    assert image[0, 1] == pytest.approx(0.5, abs=0.05)
    assert image[1, 0] == pytest.approx(1.0, abs=0.05)
    assert ax.images[0].norm.vcenter == 1.0
    bold = [(t.get_position(), t.get_text()) for t in ax.texts if t.get_fontweight() == "bold"]
    assert [pos for pos, _text in bold] == [(1, 0)]  # text at x = column 1, y = row 0
    assert float(bold[0][1]) == pytest.approx(0.5, abs=0.05)
    assert "row -> column" in ax.get_title()
    fig = ratio_heatmap(compare(runs["clean"][0], runs["degraded"][0]), threshold=0.3)
    assert marked_cells(fig.axes[0]) == []


def test_ratio_heatmap_marks_a_lost_point(runs) -> None:
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab.plots import ratio_heatmap
    from ascend_p2p_lab.plots.ratiomap import LOST_TEXT, marked_cells

    fig = ratio_heatmap(compare(runs["clean"][0], runs["failing"][0]))
    assert marked_cells(fig.axes[0]) == [(0, 1)]
    assert [t.get_position() for t in fig.axes[0].texts if t.get_text() == LOST_TEXT] == [(1, 0)]
