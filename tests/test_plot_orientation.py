"""Matrix figures are oriented rows = source, columns = destination, in colour and text.

Every fixture here is asymmetric on purpose (a symmetric one passes with a picture drawn
transposed): only the link 0->1 is degraded (half speed), only the copy 2->3 fails, peer
access is enabled 0->1 only, and one link class is changed in one direction.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest
from helpers import asymmetric_a2_run

from ascend_p2p_lab import open_runtime, plots
from ascend_p2p_lab.measure import probe


@pytest.fixture(scope="module")
def run():
    """The asymmetric run on atlas800t-a2 (8 devices), every ordered pair: 0->1 at half
    speed, every copy 2->3 fails with ACL_ERROR_RT_SYS_DMA."""
    return asymmetric_a2_run()


@pytest.fixture(scope="module")
def one_way_table():
    """A probe table with peer access enabled 0->1 only."""
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        rt.enable_peer(0, 1)
        return probe(rt)


def _median(run, src: int, dst: int, direction: str = "uni",
            col: str = "bandwidth_GBps") -> float:
    rows = run[(run["src"] == src) & (run["dst"] == dst) & (run["direction"] == direction)
               & (run["pattern"] == "pair")]
    return float(rows[col].median())


def _text_at(ax, x: int, y: int) -> str:
    """The cell text drawn at data position (x = column, y = row)."""
    found = [t.get_text() for t in ax.texts if tuple(t.get_position()) == (x, y)]
    assert len(found) == 1, f"{len(found)} texts at x={x}, y={y}"
    return found[0]


def _image(ax) -> np.ma.MaskedArray:
    return np.ma.masked_invalid(ax.images[0].get_array())


def _check_orientation_labels(ax, n: int) -> None:
    assert ax.get_ylabel() == "source device (row)"
    assert ax.get_xlabel() == "destination device (column)"
    assert ax.get_ylim() == (n - 0.5, -0.5)  # row 0 at the top
    assert ax.get_xlim() == (-0.5, n - 0.5)
    ticks = [str(i) for i in range(n)]
    assert [t.get_text() for t in ax.get_xticklabels()] == ticks
    assert [t.get_text() for t in ax.get_yticklabels()] == ticks


def _check_texts_match_colours(ax, n: int) -> None:
    """Every numbered cell's text is the image's value at [row = y, column = x]."""
    img = _image(ax)
    checked = 0
    for i in range(n):
        for j in range(n):
            if i == j or img.mask[i, j]:
                continue
            assert float(_text_at(ax, j, i)) == pytest.approx(float(img[i, j]), abs=0.051), \
                (i, j)
            checked += 1
    assert checked > n


# ------------------------------------------------------------------------------ heatmaps
def test_heatmap_rows_are_sources_in_colour_and_text(run):
    fast, slow = _median(run, 1, 0), _median(run, 0, 1)
    assert slow == pytest.approx(fast / 2, rel=0.1)  # the fixture is what it says
    ax = plots.heatmap(run).axes[0]
    _check_orientation_labels(ax, 8)
    img = _image(ax)
    assert img[0, 1] == pytest.approx(slow, rel=1e-9)  # [row = src 0, column = dst 1]
    assert img[1, 0] == pytest.approx(fast, rel=1e-9)
    assert img[0, 1] == pytest.approx(img[1, 0] / 2, rel=0.1)
    assert float(_text_at(ax, 1, 0)) == pytest.approx(slow, abs=0.051)  # x = dst, y = src
    assert float(_text_at(ax, 0, 1)) == pytest.approx(fast, abs=0.051)
    _check_texts_match_colours(ax, 8)


def test_bidirectional_heatmaps(run):
    slow, fast = _median(run, 0, 1, "bi"), _median(run, 1, 0, "bi")
    assert slow == pytest.approx(fast / 2, rel=0.15)
    ax = plots.heatmap(run, direction="bi").axes[0]  # per direction: asymmetric
    _check_orientation_labels(ax, 8)
    img = _image(ax)
    assert img[0, 1] == pytest.approx(slow, rel=1e-9)
    assert img[1, 0] == pytest.approx(fast, rel=1e-9)
    assert float(_text_at(ax, 1, 0)) == pytest.approx(slow, abs=0.051)
    assert float(_text_at(ax, 0, 1)) == pytest.approx(fast, abs=0.051)
    _check_texts_match_colours(ax, 8)

    ax = plots.heatmap(run, direction="bi", value="bidir_total_GBps").axes[0]
    _check_orientation_labels(ax, 8)
    total = _image(ax)
    assert total[0, 1] == total[1, 0]  # one total per pair, shown in both cells
    assert total[0, 1] == pytest.approx(slow + fast, rel=0.02)
    assert total[0, 2] == pytest.approx(_median(run, 0, 2, "bi") + _median(run, 2, 0, "bi"),
                                        rel=0.02)
    assert total[0, 1] < 0.85 * total[0, 2]  # the degraded pair's total is the smaller
    assert _text_at(ax, 1, 0) == _text_at(ax, 0, 1)
    _check_texts_match_colours(ax, 8)


def test_error_cell_sits_at_its_source_row(run):
    ax = plots.heatmap(run).axes[0]
    img = _image(ax)
    assert img.mask[2, 3] and not img.mask[3, 2]
    assert _text_at(ax, 3, 2) == "E1"  # x = dst 3, y = src 2
    assert float(_text_at(ax, 2, 3)) == pytest.approx(float(img[3, 2]), abs=0.051)
    assert [t.get_text() for t in ax.texts].count("E1") == 1
    # bidirectionally the pair is measured together: both of its cells carry the error
    ax = plots.heatmap(run, direction="bi").axes[0]
    assert _text_at(ax, 3, 2) == _text_at(ax, 2, 3) == "E1"
    assert [t.get_text() for t in ax.texts].count("E1") == 2


# ------------------------------------------------------------------------------ link / peer
def test_link_matrix_rows_are_sources(one_way_table):
    table = one_way_table.copy()
    one_way = (table["src"] == 0) & (table["dst"] == 1)
    table["link"] = table["link"].astype("object")
    table.loc[one_way, "link"] = "PIX"  # asymmetric on purpose: 0->1 PIX, 1->0 HCCS
    ax = plots.link_matrix(table).axes[0]
    _check_orientation_labels(ax, 8)
    img = _image(ax)
    assert img[0, 1] == plots.LINK_ORDER.index("PIX")
    assert img[1, 0] == plots.LINK_ORDER.index("HCCS")
    assert _text_at(ax, 1, 0) == "PIX"
    assert _text_at(ax, 0, 1) == "HCCS"


def test_peer_access_matrix_rows_are_sources(one_way_table):
    table = one_way_table
    assert table.loc[(table["src"] == 0) & (table["dst"] == 1), "peer_enabled"].all()
    assert not table.loc[(table["src"] == 1) & (table["dst"] == 0), "peer_enabled"].any()
    ax = plots.peer_access_matrix(table, value="peer_enabled").axes[0]
    _check_orientation_labels(ax, 8)
    img = _image(ax)
    assert img[0, 1] == 1 and img[1, 0] == 0
    assert int(img.sum()) == 1
    assert _text_at(ax, 1, 0) == "yes"  # x = dst 1, y = src 0
    assert _text_at(ax, 0, 1) == "no"
    assert [t.get_text() for t in ax.texts].count("yes") == 1
