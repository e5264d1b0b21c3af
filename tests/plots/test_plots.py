"""plots.prepare and plots.cells: what the figures show, as data, without drawing.

Asymmetric on purpose (a symmetric fixture passes with rows and columns swapped): only
the link 0->1 is degraded, only the copy 2->3 fails.

Matrix figures are oriented rows = source, columns = destination, in colour and text.

Every fixture here is asymmetric on purpose (a symmetric one passes with a picture drawn
transposed): only the link 0->1 is degraded (half speed), only the copy 2->3 fails, peer
access is enabled 0->1 only, and one link class is changed in one direction."""

from __future__ import annotations

import matplotlib
import pytest

from ascend_p2p_lab.plots import prepare

matplotlib.use("Agg")
from helpers import _check_orientation_labels, _image

from ascend_p2p_lab import open_runtime, plots
from ascend_p2p_lab.measure import probe


def test_link_colours_name_the_link_classes():
    from ascend_p2p_lab.plots import LINK_COLORS, LINK_ORDER

    assert tuple(LINK_COLORS) == LINK_ORDER == prepare.LINK_ORDER


@pytest.fixture(scope="module")
def one_way_table():
    """A probe table with peer access enabled 0->1 only."""
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        rt.enable_peer(0, 1)
        return probe(rt).frame()


def _text_at(ax, x: int, y: int) -> str:
    """The cell text drawn at data position (x = column, y = row)."""
    found = [t.get_text() for t in ax.texts if tuple(t.get_position()) == (x, y)]
    assert len(found) == 1, f"{len(found)} texts at x={x}, y={y}"
    return found[0]


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
