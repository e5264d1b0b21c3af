"""Tests written to kill the plotting mutants of ``tools/mutants.py`` (see docs/testing.md).

Each test checks what a user sees in a figure (a cell's colour and text, a code, a legend
count, a title, an axis label, a line's points, which PNGs a report writes) against the
numbers of the run, on small asymmetric runs: only the link 0->1 is degraded, only the
copies 2->3 fail, only the bytes copied 4->5 arrive wrong."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import pandas as pd
import pytest
from matplotlib import colors as mcolors

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep

FAULTS = [
    {"kind": "degrade", "link": [0, 1], "factor": 0.5},
    {"kind": "error", "call": "rt.memcpy_async", "link": [2, 3], "code": 507013},
    {"kind": "corrupt", "link": [4, 5]},
]


@pytest.fixture(scope="module")
def run():
    """atlas800t-a2 (8 devices), pairs 0<->1, 2<->3, 4<->5 at 4 KiB and 16 MiB, uni and
    bi, peer on and off, three samples: 0->1 at half speed, 2->3 fails, 4->5 corrupt."""
    with open_runtime("sim", preset="atlas800t-a2", faults=FAULTS) as rt:
        return sweep(
            rt,
            pairs="0-1,1-0,2-3,3-2,4-5,5-4",
            sizes="4KiB,16MiB",
            direction="both",
            peer="both",
            samples=3,
            warmup=0,
            progress=False,
        )


def test_heatmap_tick_labels_come_from_the_frame(run):
    """A sub-matrix whose labels are not 0..n-1 in order: the ticks name the devices."""
    from ascend_p2p_lab.plots.matrix import draw_matrix
    from ascend_p2p_lab.plots.style import new_figure

    frame = pd.DataFrame([[1.0, 2.0], [3.0, 4.0]], index=[4, 6], columns=[5, 7])
    ax = new_figure((3, 3)).add_subplot()
    draw_matrix(frame, ax, cmap="viridis", norm=mcolors.Normalize(0, 4))
    assert [t.get_text() for t in ax.get_xticklabels()] == ["5", "7"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["4", "6"]
    assert ax.images[0].get_array()[0, 1] == 2.0


def test_cell_texts_sit_at_column_x_row_y() -> None:
    from ascend_p2p_lab.plots.matrix import annotate_matrix
    from ascend_p2p_lab.plots.style import new_figure

    texts = pd.DataFrame([["a", "b", "c"], ["d", "e", "f"]])  # 2 rows x 3 columns
    ax = new_figure((3, 3)).add_subplot()
    out = annotate_matrix(ax, texts)
    assert {t.get_text(): t.get_position() for t in out}["c"] == (2, 0)  # column 2, row 0
    assert {t.get_text(): t.get_position() for t in out}["d"] == (0, 1)
