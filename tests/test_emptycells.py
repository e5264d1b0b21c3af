"""The run's N x N matrices (``matrices.run_matrices``), as the terminal prints them and
``--format json`` writes them: checked by value on an asymmetric run, so that a swapped
row and column, a wrong size or a lost reason cannot pass.

Gaps the suite let through (issue 20): the warm-up asked for is the warm-up issued, and
the two directions of a bidirectional sample are enqueued interleaved."""

from __future__ import annotations

import pytest
from helpers import SIZE, SMALL, asymmetric_a2_run

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.emptycells import explain
from ascend_p2p_lab.matrices import run_matrices
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.terminal import print_matrices


@pytest.fixture(scope="module")
def run():
    """0->1 at half speed, 2->3 failing, at two sizes; 1->0 and 3->2 healthy."""
    return asymmetric_a2_run(pairs="0-1,1-0,2-3,3-2", sizes=[SMALL, SIZE])


def _by_title(run, words):
    found = [m for m in run_matrices(run) if all(w in m.title for w in words)]
    assert len(found) == 1, [m.title for m in run_matrices(run)]
    return found[0]


def test_empty_cells_say_why(run) -> None:
    m = _by_title(run, ["one direction at a time"])
    assert m.kinds[2][3] == "runtime"  # judged by kind and code, the text is emptycells'
    assert m.reasons[2][3] == explain("runtime", 507013, "acl.rt.memcpy_async")
    assert m.reasons[3][2] is None and m.frame.loc[3, 2] > 0  # the other direction works
    assert m.reasons[0][1] is None and m.kinds[4][5] == "not_measured"
    assert m.kinds[0][0] == "same_device"  # no device-local copy in this run


def test_terminal_figures_and_dashboard_explain_an_empty_cell_alike(capsys) -> None:
    """One vocabulary (emptycells): a cell's kind gives the same tag in the terminal and
    in the figure, and the same explanation in the terminal, the figure's legend and the
    dashboard's caption. Judged by kinds, tags and explain(), not by hand-written text."""
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab.emptycells import NOT_MEASURED, TAGS, explain
    from ascend_p2p_lab.matrices import run_matrices
    from ascend_p2p_lab.plots.cells import heatmap_data

    with open_runtime("sim", preset="atlas300i-duo") as rt:
        run = sweep(rt, pairs="0-1,0-2", sizes="1MiB", samples=1, progress=False)
    (m,) = run_matrices(run)
    assert (m.kinds[0][2], m.kinds[0][3]) == ("unreachable", NOT_MEASURED)
    print_matrices(run)
    out = capsys.readouterr().out
    rows = {
        ln.split()[0]: ln.split()[1:]
        for ln in out.splitlines()
        if ln[:1].isdigit() and len(ln.split()) == 9
    }
    data = heatmap_data(run.frame())
    for (src, dst), kind in (((0, 2), "unreachable"), ((0, 3), NOT_MEASURED)):
        assert rows[str(src)][dst] == data.cells.loc[(src, dst), "code"] == TAGS[kind]
        assert f"{TAGS[kind]}: {explain(kind)}" in out
        assert any(text.startswith(f"{TAGS[kind]}: {explain(kind)}") for _code, text in data.legend)
    widgets = pytest.importorskip("ascend_p2p_lab.widgets.render")
    caption = widgets.heatmap_caption(run.frame(), ("uni", "on", None))
    assert explain("unreachable") in caption and explain(NOT_MEASURED) in caption
