"""The matrix figures of plots.heatmaps: heatmap, link_matrix and peer_access_matrix.

Each test checks what a user sees (a cell's colour and text, an E or V code, a legend
count, a title, an axis label, the colour scale) against the numbers of the run. Matrix
figures are oriented rows = source, columns = destination, in colour and text.

The runs are small simulated sweeps. Where direction matters they are asymmetric, so that a
picture drawn transposed cannot pass: on atlas800t-a2 the link 0->1 is degraded, the copies
2->3 fail and the bytes copied 4->5 arrive wrong, each in that direction only; one probe
table has peer access enabled 0->1 only. The latency heatmap's run (atlas800-9000, 0 -> 1
at a quarter of its bandwidth) measures 0 -> 1, 1 -> 0 and 0 -> 4 but not 4 -> 0: at 4
bytes the 0 -> 4 cell holds the SYS link's modelled latency, and 4 -> 0 is not measured.

Rewording the error texts changes no figure. Also here: plots.style.save_png draws the
pixels savefig draws of the layout finish left (a fast path of issue 24), the dashboard
shows the PNG a notebook shows, and no text of a saved figure is clipped or overlaps."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import base64
import io
from typing import Any

import matplotlib.image as mpimg
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from helpers import (
    BIG,
    FAULTS_2,
    _check_orientation_labels,
    _image,
    _legend_entries,
    _legend_text,
    _no_pyplot_figures,
    _text_at,
    asymmetric_a2_run,
)
from matplotlib import colors as mcolors
from matplotlib.figure import Figure

from ascend_p2p_lab import open_runtime, plots
from ascend_p2p_lab.measure import probe, sweep
from ascend_p2p_lab.plots import prepare
from ascend_p2p_lab.plots.style import DPI, LINK_COLORS, VERIFY_HATCH, save_png
from ascend_p2p_lab.topology import load_preset


# ------------------------------------------------------------------ figures
@pytest.fixture(scope="module")
def small_run():
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        table = probe(rt).frame()
        run = sweep(
            rt,
            pairs="0-1,1-0,2-5",
            sizes="64KiB,4MiB",
            direction="both",
            peer="both",
            samples=2,
            warmup=0,
            progress=False,
        )
    return table, run


def _pixels(png: bytes) -> np.ndarray:
    return mpimg.imread(io.BytesIO(png), format="png")


def test_save_png_draws_finishs_layout_as_savefig_would(small_run):
    """save_png: the pixels savefig draws of the layout finish left (no layout pass more)."""
    table, run = small_run
    for draw in (
        lambda: plots.heatmap(run, direction="bi"),
        lambda: plots.link_matrix(table),
        lambda: plots.bandwidth_vs_size(run),
    ):
        plain, fast = io.BytesIO(), io.BytesIO()
        fig = draw()
        fig.set_layout_engine(None)
        fig.savefig(plain, dpi=DPI)
        save_png(draw(), fast)
        assert np.array_equal(_pixels(fast.getvalue()), _pixels(plain.getvalue()))


def test_a_figure_changed_after_finish_is_laid_out_again(small_run):
    _, run = small_run
    plain, fast = io.BytesIO(), io.BytesIO()
    fig = plots.heatmap(run)
    fig.set_size_inches(9.0, 7.0)  # no longer the size finish laid it out at
    fig.savefig(plain, dpi=DPI)
    fig = plots.heatmap(run)
    fig.set_size_inches(9.0, 7.0)
    save_png(fig, fast)
    assert np.array_equal(_pixels(fast.getvalue()), _pixels(plain.getvalue()))


def test_the_dashboards_png_is_the_one_a_notebook_shows(small_run):
    from ascend_p2p_lab.widgets.render import _png_base64

    _, run = small_run
    shown = plots.heatmap(run)._repr_png_()
    assert _png_base64(plots.heatmap(run)) == base64.b64encode(shown).decode()


def _text_boxes(fig) -> list[tuple[str, Any]]:
    """Each visible text's box in pixels as save_png draws the figure (finish's layout:
    drawn again with no layout pass, to the same positions)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text

    save_png(fig, io.BytesIO())
    fig.set_layout_engine(None)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    axes = [axis for ax in fig.axes for axis in (ax.xaxis, ax.yaxis)]
    ticks = [t for axis in axes for t in axis.get_major_ticks() + axis.get_minor_ticks()]
    tick_labels = {id(lab) for t in ticks for lab in (t.label1, t.label2)}
    drawn = [lab for axis in axes for t in axis._update_ticks() for lab in (t.label1, t.label2)]
    texts = [t for t in fig.findobj(Text) if id(t) not in tick_labels] + drawn  # in view
    return [
        (t.get_text(), t.get_window_extent(renderer), t.get_in_layout())
        for t in texts
        if t.get_visible() and t.get_text().strip()
    ]


def test_no_text_clipped_or_overlapping_in_the_saved_figures(small_run):
    """Long, asymmetric labels (a refused direct copy's error text in the legend, a pair
    without its transpose, a colour bar, a side legend): every text inside the figure,
    and no two texts of the layout (titles, axis and tick labels, legend entries; not the
    cell texts, which sit in their cells) overlapping."""
    _, run = small_run
    for fig in (
        plots.heatmap(run, direction="uni", peer="off", path="direct"),
        plots.heatmap(run, direction="bi"),
        plots.bandwidth_vs_size(run, peer="off", path="staged"),
        plots.peer_on_off(run),
        plots.uni_vs_bi(run),
    ):
        w, h = fig.get_size_inches() * fig.dpi
        boxes = _text_boxes(fig)
        assert any("\n" in text for text, _, _ in boxes)  # a title of lines
        for text, box, _ in boxes:  # to finish's tolerance, 0.01 in (a pixel), of a box
            assert box.x0 >= -1 and box.x1 <= w + 1, (text, box, w)  # as high as the
            assert box.y0 >= -1 and box.y1 <= h + 1, (text, box, h)  # font, not its ink
        laid = [(t, b.expanded(1.0, 1.0).padded(-0.5)) for t, b, in_layout in boxes if in_layout]
        for i, (a, box_a) in enumerate(laid):
            for b, box_b in laid[i + 1 :]:
                assert not box_a.overlaps(box_b), (a, b)


PRESET = "atlas800-9000"


DEGRADE = 0.25


FAULTS = [{"kind": "degrade", "link": [0, 1], "factor": DEGRADE}]


SIZES = [4, 65536]


PAIRS = "0-1,1-0,0-4"


@pytest.fixture(scope="module")
def lab() -> tuple[pd.DataFrame, dict[tuple[int, int], tuple[float, float]]]:
    """The run and, per measured pair, the preset's (latency_us, bandwidth_GBps)."""
    with open_runtime("sim", preset=PRESET, faults=FAULTS) as rt:
        run = sweep(rt, pairs=PAIRS, patterns=("latency",), sizes=SIZES, samples=2, progress=False)
        topo = rt.topology
        model = {}
        for a, b in [(0, 1), (1, 0), (0, 4)]:
            lc = topo.link_classes[rt.link_class(a, b)]
            model[(a, b)] = (lc.latency_us, lc.bandwidth_GBps)
    return run, model


def modelled_us(model: dict, pair: tuple[int, int], size: int) -> float:
    """What the simulator charges per copy: the link's latency plus the transfer."""
    lat, bw = model[pair]
    factor = DEGRADE if pair == (0, 1) else 1.0
    return lat + size / (bw * factor * 1e3)


def test_heatmap_in_microseconds(lab) -> None:
    from ascend_p2p_lab.plots import heatmap
    from ascend_p2p_lab.plots.cells import heatmap_data

    run, model = lab
    data = heatmap_data(run.frame(), value="latency_us", pattern="latency", size=4)
    assert data.values.loc[0, 4] == pytest.approx(modelled_us(model, (0, 4), 4), rel=0.03)
    assert data.cells.loc[(4, 0), "state"] == "not_measured"
    fig = heatmap(run, value="latency_us", pattern="latency", size=4)
    ax, cbar_ax = fig.axes[0], fig.axes[1]
    assert "µs" in cbar_ax.get_ylabel() and "GB/s" not in cbar_ax.get_ylabel()
    assert "lower is better" in cbar_ax.get_ylabel()
    assert "latency" in ax.get_title().lower()
    assert ax.images[0].cmap.name.endswith("_r")  # bright = fast, as on bandwidth maps
    texts = {t.get_text() for t in ax.texts}
    assert "15.1" in texts or "15.0" in texts  # one decimal for tens of µs
    elapsed = heatmap(run, value="elapsed_us", pattern="latency", size=4)
    assert "(µs)" in elapsed.axes[1].get_ylabel()


@pytest.fixture(scope="module")
def run():
    """atlas800t-a2 (8 devices), pairs 0<->1, 2<->3, 4<->5 at 4 KiB and 16 MiB, uni and
    bi, peer on and off, three samples: 0->1 at half speed, 2->3 fails, 4->5 corrupt."""
    with open_runtime("sim", preset="atlas800t-a2", faults=FAULTS_2) as rt:
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


@pytest.fixture(scope="module")
def duo():
    """atlas300i-duo: its probe table and a run in which some pairs cannot access peer."""
    with open_runtime("sim", preset="atlas300i-duo") as rt:
        table = probe(rt).frame()
        frame = sweep(rt, sizes="4KiB,1MiB", samples=2, warmup=0, progress=False)
    return table, frame


def _rows(run, src=None, dst=None, *, direction="uni", peer="on", path="p2p", size=None):
    df = run.samples[
        prepare.eq(run.samples["pattern"], "pair")
        & prepare.eq(run.samples["direction"], direction)
        & prepare.eq(run.samples["peer"], peer)
        & prepare.eq(run.samples["path"], path)
    ]
    if src is not None:
        df = df[(df["src"] == src) & (df["dst"] == dst)]
    if size is not None:
        df = df[df["size_bytes"] == size]
    return df


def _legend(ax) -> list[str]:
    leg = ax.get_legend()
    return [" ".join(t.get_text().split()) for t in leg.get_texts()] if leg else []


def test_heatmap_colour_scale(run):
    im = plots.heatmap(run, vmin=1.0, vmax=50.0).axes[0].images[0]
    assert (im.norm.vmin, im.norm.vmax) == (1.0, 50.0)
    im = plots.heatmap(run).axes[0].images[0]
    assert im.norm.vmin == 0.0
    assert im.norm.vmax == pytest.approx(float(np.nanmax(im.get_array().filled(np.nan))))


def test_heatmap_titles_and_legend_counts(run):
    ax = plots.heatmap(run).axes[0]
    title = ax.get_title()
    assert title.startswith(
        "Copy bandwidth, unidirectional, peer on (p2p)\nat 16 MiB (largest size)"
    )
    legend = _legend(ax)
    assert any(e.startswith("n/m: not measured") and e.endswith("[50 cells]") for e in legend)
    assert any(e.startswith("E1 runtime:") and e.endswith("[1 cell]") for e in legend)
    assert any(e.startswith("V ") and e.endswith("[1 cell]") for e in legend)
    small = plots.heatmap(run, size="4KiB").axes[0]
    assert "\nat 4 KiB\n" in small.get_title()
    assert small.images[0].get_array()[0, 1] == pytest.approx(
        float(_rows(run, 0, 1, size=4096)["bandwidth_GBps"].median())
    )


def test_bidirectional_total_heatmap(run):
    fig = plots.heatmap(run, direction="bi", value="bidir_total_GBps")
    ax = fig.axes[0]
    img = ax.images[0].get_array()
    total = float(_rows(run, 0, 1, direction="bi", size=BIG)["bidir_total_GBps"].median())
    one_way = float(_rows(run, 0, 1, direction="bi", size=BIG)["bandwidth_GBps"].median())
    assert total > 1.5 * one_way
    assert img[0, 1] == pytest.approx(total)
    assert ax.get_title().startswith("Total of both directions, bidirectional, peer on")
    assert fig.axes[1].get_ylabel() == "both directions together (GB/s)"
    # the bytes of 4->5 arrived wrong: the total of the pair is untrusted on both cells
    assert _text_at(ax, 5, 4).startswith("V\n") and _text_at(ax, 4, 5).startswith("V\n")
    bi = plots.heatmap(run, direction="bi").axes[0]
    assert bi.get_title().startswith("Copy bandwidth, bidirectional, peer on")
    assert _text_at(bi, 5, 4).startswith("V\n") and not _text_at(bi, 4, 5).startswith("V")


def test_unreachable_is_n_a_and_a_failure_is_an_e_code(run, duo):
    _table, frame = duo
    data = plots.cells.heatmap_data(frame.frame())
    unreachable = data.cells[data.cells["state"] == "unreachable"]
    assert len(unreachable) > 0
    ax = plots.heatmap(frame).axes[0]
    for src, dst in unreachable.index:
        assert _text_at(ax, dst, src) == "n/a"
    assert any(e.startswith("n/a: cannot access peer") for e in _legend(ax))
    assert not any(e.startswith("E1") for e in _legend(ax))
    assert _text_at(plots.heatmap(run).axes[0], 3, 2) == "E1"


# ------------------------------------------------------------------------------ link / peer
def test_link_matrix_colours_match_the_legend(duo):
    table, _frame = duo
    ax = plots.link_matrix(table).axes[0]
    im = ax.images[0]
    img = im.get_array()
    checked = 0
    for s, d, link in table[["src", "dst", "link"]].itertuples(index=False):
        if s == d:
            continue
        assert _text_at(ax, d, s) == link
        assert mcolors.to_hex(im.cmap(im.norm(img[s, d]))) == LINK_COLORS[link]
        checked += 1
    assert checked
    legend = {
        h.get_label().split(":")[0]: mcolors.to_hex(h.get_facecolor())
        for h in ax.get_legend().legend_handles
    }
    assert all(legend[c] == LINK_COLORS[c] for c in legend if c in LINK_COLORS)


def test_peer_access_legend_counts_pairs(duo):
    table, _frame = duo
    n = int(max(table["src"].max(), table["dst"].max())) + 1
    legend = _legend(plots.peer_access_matrix(table).axes[0])
    yes = int(table.loc[table["src"] != table["dst"], "can_access_peer"].astype(bool).sum())
    assert f"yes ({yes} of {n * (n - 1)})" in legend
    assert any(e.startswith(f"no ({n * (n - 1) - yes} of {n * (n - 1)})") for e in legend)


@pytest.fixture(scope="module")
def run_2():
    """The asymmetric run on atlas800t-a2 (8 devices), every ordered pair: 0->1 at half
    speed, every copy 2->3 fails with ACL_ERROR_RT_SYS_DMA."""
    return asymmetric_a2_run()


@pytest.fixture(scope="module")
def one_way_table():
    """A probe table with peer access enabled 0->1 only."""
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        rt.enable_peer(0, 1)
        return probe(rt).frame()


def _median(
    run_2, src: int, dst: int, direction: str = "uni", col: str = "bandwidth_GBps"
) -> float:
    rows = run_2.samples[
        (run_2.samples["src"] == src)
        & (run_2.samples["dst"] == dst)
        & (run_2.samples["direction"] == direction)
        & (run_2.samples["pattern"] == "pair")
    ]
    return float(rows[col].median())


def _text_at_2(ax, x: int, y: int) -> str:
    """The cell text drawn at data position (x = column, y = row)."""
    found = [t.get_text() for t in ax.texts if tuple(t.get_position()) == (x, y)]
    assert len(found) == 1, f"{len(found)} texts at x={x}, y={y}"
    return found[0]


def _check_texts_match_colours(ax, n: int) -> None:
    """Every numbered cell's text is the image's value at [row = y, column = x]."""
    img = _image(ax)
    checked = 0
    for i in range(n):
        for j in range(n):
            if i == j or img.mask[i, j]:
                continue
            assert float(_text_at_2(ax, j, i)) == pytest.approx(float(img[i, j]), abs=0.051), (i, j)
            checked += 1
    assert checked > n


# ------------------------------------------------------------------------------ heatmaps
def test_heatmap_rows_are_sources_in_colour_and_text(run_2):
    fast, slow = _median(run_2, 1, 0), _median(run_2, 0, 1)
    assert slow == pytest.approx(fast / 2, rel=0.1)  # the fixture is what it says
    ax = plots.heatmap(run_2).axes[0]
    _check_orientation_labels(ax, 8)
    img = _image(ax)
    assert img[0, 1] == pytest.approx(slow, rel=1e-9)  # [row = src 0, column = dst 1]
    assert img[1, 0] == pytest.approx(fast, rel=1e-9)
    assert img[0, 1] == pytest.approx(img[1, 0] / 2, rel=0.1)
    assert float(_text_at_2(ax, 1, 0)) == pytest.approx(slow, abs=0.051)  # x = dst, y = src
    assert float(_text_at_2(ax, 0, 1)) == pytest.approx(fast, abs=0.051)
    _check_texts_match_colours(ax, 8)


def test_bidirectional_heatmaps(run_2):
    slow, fast = _median(run_2, 0, 1, "bi"), _median(run_2, 1, 0, "bi")
    assert slow == pytest.approx(fast / 2, rel=0.15)
    ax = plots.heatmap(run_2, direction="bi").axes[0]  # per direction: asymmetric
    _check_orientation_labels(ax, 8)
    img = _image(ax)
    assert img[0, 1] == pytest.approx(slow, rel=1e-9)
    assert img[1, 0] == pytest.approx(fast, rel=1e-9)
    assert float(_text_at_2(ax, 1, 0)) == pytest.approx(slow, abs=0.051)
    assert float(_text_at_2(ax, 0, 1)) == pytest.approx(fast, abs=0.051)
    _check_texts_match_colours(ax, 8)

    ax = plots.heatmap(run_2, direction="bi", value="bidir_total_GBps").axes[0]
    _check_orientation_labels(ax, 8)
    total = _image(ax)
    assert total[0, 1] == total[1, 0]  # one total per pair, shown in both cells
    assert total[0, 1] == pytest.approx(slow + fast, rel=0.02)
    assert total[0, 2] == pytest.approx(
        _median(run_2, 0, 2, "bi") + _median(run_2, 2, 0, "bi"), rel=0.02
    )
    assert total[0, 1] < 0.85 * total[0, 2]  # the degraded pair's total is the smaller
    assert _text_at_2(ax, 1, 0) == _text_at_2(ax, 0, 1)
    _check_texts_match_colours(ax, 8)


def test_error_cell_sits_at_its_source_row(run_2):
    ax = plots.heatmap(run_2).axes[0]
    img = _image(ax)
    assert img.mask[2, 3] and not img.mask[3, 2]
    assert _text_at_2(ax, 3, 2) == "E1"  # x = dst 3, y = src 2
    assert float(_text_at_2(ax, 2, 3)) == pytest.approx(float(img[3, 2]), abs=0.051)
    assert [t.get_text() for t in ax.texts].count("E1") == 1
    # bidirectionally the pair is measured together: both of its cells carry the error
    ax = plots.heatmap(run_2, direction="bi").axes[0]
    assert _text_at_2(ax, 3, 2) == _text_at_2(ax, 2, 3) == "E1"
    assert [t.get_text() for t in ax.texts].count("E1") == 2


def test_peer_access_matrix_rows_are_sources(one_way_table):
    table = one_way_table
    assert table.loc[(table["src"] == 0) & (table["dst"] == 1), "peer_enabled"].all()
    assert not table.loc[(table["src"] == 1) & (table["dst"] == 0), "peer_enabled"].any()
    ax = plots.peer_access_matrix(table, value="peer_enabled").axes[0]
    _check_orientation_labels(ax, 8)
    img = _image(ax)
    assert img[0, 1] == 1 and img[1, 0] == 0
    assert int(img.sum()) == 1
    assert _text_at_2(ax, 1, 0) == "yes"  # x = dst 1, y = src 0
    assert _text_at_2(ax, 0, 1) == "no"
    assert [t.get_text() for t in ax.texts].count("yes") == 1


def _measure(preset: str, **kw):
    """Probe and sweep on a fresh simulated runtime; the ledger must be empty after close."""
    kw.setdefault("samples", 2)
    kw.setdefault("warmup", 0)
    kw.setdefault("progress", False)
    with open_runtime("sim", preset=preset) as rt:
        table = probe(rt).frame()
        run = sweep(rt, **kw)
    assert rt.acl.simulator.ledger_is_empty()
    return table, run


@pytest.fixture(scope="module")
def a2():
    """8 devices, uni+bi, peer on+off (direct fails with an ACL code), local copies."""
    return _measure(
        "atlas800t-a2",
        sizes="64KiB,4MiB",
        direction="both",
        peer="both",
        patterns=("pair", "local"),
    )


@pytest.fixture(scope="module")
def duo_2():
    """atlas300i-duo: only the PIX pairs can access each other."""
    return _measure(
        "atlas300i-duo", sizes="64KiB,4MiB", direction="both", peer="on", patterns=("pair", "local")
    )


@pytest.fixture(scope="module")
def a3():
    """16 devices, 240 pairs."""
    return _measure("atlas800t-a3", sizes="64KiB,4MiB", patterns=("pair",))


#: faulty: two runtime errors that differ only in their code, one degraded link, and the
#: bytes copied 4->5 arrive wrong (verification fails, the numbers stay)
FAULTS_3 = [
    {"kind": "degrade", "link": [0, 1], "factor": 0.5},
    {"kind": "error", "call": "rt.memcpy_async", "link": [2, 3], "code": 507013},
    {"kind": "error", "call": "rt.memcpy_async", "link": [6, 7], "code": 507899},
    {"kind": "error", "call": "rt.memcpy_async", "link": [7, 6], "code": 507899},
    {"kind": "corrupt", "link": [4, 5]},
]


@pytest.fixture(scope="module")
def faulty():
    """atlas800t-a2, peer on, uni and bi at 64 KiB and 16 MiB, with FAULTS."""
    with open_runtime("sim", preset="atlas800t-a2", faults=FAULTS_3) as rt:
        run = sweep(rt, sizes="64KiB,16MiB", direction="both", samples=2, progress=False)
    assert rt.acl.simulator.ledger_is_empty()
    assert set(
        run.samples.loc[run.samples["error_kind"].eq("verification").fillna(False), "src"]
    ) == {4}
    return run


def _texts(ax) -> list[str]:
    return [t.get_text() for t in ax.texts]


def _hatched(ax) -> int:
    return sum(1 for p in ax.patches if p.get_hatch())


def _text_at_3(ax, x: int, y: int) -> str:
    """The cell text at data position (x = destination column, y = source row)."""
    (text,) = [t.get_text() for t in ax.texts if tuple(t.get_position()) == (x, y)]
    return text


def _words(fig) -> tuple[list[tuple[float, float, str]], str, str]:
    """What a figure says: its texts with their positions, its legend and its title."""
    ax = fig.axes[0]
    texts = [(*map(float, t.get_position()), t.get_text()) for t in ax.texts]
    return texts, _legend_text(ax), ax.get_title()


def _reworded(run, unique: bool = False):
    """The run with every error sentence replaced (by one word, or one per row)."""
    out = run.samples.copy()
    new = ("reworded " + out.index.astype(str)) if unique else "reworded"
    out["error"] = out["error"].where(out["error"].isna(), new)
    return out


# ------------------------------------------------------------------------------ heatmap
def test_heatmap_annotated_matrix(a2):
    _table, run = a2
    fig = plots.heatmap(run, figsize=(7.0, 6.5))
    assert isinstance(fig, Figure)
    assert tuple(fig.get_size_inches()) == (7.0, 6.5)
    assert fig.dpi == 100
    ax = fig.axes[0]
    texts = _texts(ax)
    assert len(texts) == 8 * 8  # 56 numbers + 8 local-copy figures on the diagonal
    assert all(t.replace(".", "").isdigit() for t in texts)
    assert {(t.get_ha(), t.get_va()) for t in ax.texts} == {("center", "center")}
    assert ax.get_ylabel() == "source device (row)"
    assert ax.get_xlabel() == "destination device (column)"
    cbar_ax = fig.axes[1]
    assert "GB/s" in cbar_ax.get_ylabel()
    title = ax.get_title()
    assert "simulated: atlas800t-a2" in title
    assert "at 4 MiB (largest size)" in title
    assert "device-local copy" in _legend_text(ax)
    assert _hatched(ax) == 0
    _no_pyplot_figures()


def test_heatmap_marks_unreachable_pairs(duo_2):
    _table, run = duo_2
    ax = plots.heatmap(run).axes[0]
    texts = _texts(ax)
    assert len(texts) == 64
    assert texts.count("n/a") == 48
    assert _hatched(ax) == 48
    assert (
        "n/a: cannot access peer (aclrtDeviceCanAccessPeer = 0), link SYS [48 cells]"
        in _legend_entries(ax)
    )
    _no_pyplot_figures()


def test_heatmap_link_classes_of_unreachable_cells_come_from_the_link_column(duo_2):
    _table, run = duo_2
    run = run.samples.copy()
    unreachable = run["error_kind"].eq("unreachable").fillna(False)
    run.loc[unreachable & (run["src"] < 2), "link"] = "PHB"  # the text still says SYS
    legend = _legend_entries(plots.heatmap(run).axes[0])
    assert (
        "n/a: cannot access peer (aclrtDeviceCanAccessPeer = 0), link PHB, SYS [48 cells]" in legend
    )


def test_heatmap_names_acl_error_when_direct_copies_fail(a2):
    _table, run = a2
    fig = plots.heatmap(run, peer="off", path="direct")
    ax = fig.axes[0]
    assert _texts(ax).count("E1") == 56
    assert _hatched(ax) == 56
    assert (
        "E1 refused: ACL_ERROR_RT_DRV_INTERNAL_ERROR (507899) from acl.rt.memcpy_async [56 cells]"
    ) in _legend_entries(ax)
    assert "no pair measured at any size" in ax.get_title()  # its diagonal: local copies
    assert len(fig.axes) == 1  # no colour bar without numbers


def test_heatmap_one_code_per_kind_code_and_call(faulty):
    ax = plots.heatmap(faulty).axes[0]
    legend = _legend_entries(ax)
    # more cells first: 6->7 and 7->6 (507899), then 2->3 (507013)
    assert legend[1] == (
        "E1 runtime: ACL_ERROR_RT_DRV_INTERNAL_ERROR (507899) from acl.rt.memcpy_async [2 cells]"
    )
    assert legend[2] == (
        "E2 runtime: ACL_ERROR_RT_SYS_DMA (507013) from acl.rt.memcpy_async [1 cell]"
    )
    assert _text_at_3(ax, 7, 6) == _text_at_3(ax, 6, 7) == "E1"
    assert _text_at_3(ax, 3, 2) == "E2"
    assert _texts(ax).count("E1") == 2 and _texts(ax).count("E2") == 1
    assert not any(t.startswith("n/") for t in _texts(ax))


def test_heatmap_marks_a_number_whose_bytes_arrived_wrong(faulty):
    ax = plots.heatmap(faulty).axes[0]
    img = np.ma.masked_invalid(ax.images[0].get_array())
    assert not img.mask[4, 5]  # the number is kept ...
    text = _text_at_3(ax, 5, 4)
    assert text.startswith("V\n") and float(text[2:]) == pytest.approx(img[4, 5], abs=0.051)
    framed = [p for p in ax.patches if p.get_hatch() == VERIFY_HATCH]
    assert [tuple(p.get_xy()) for p in framed] == [(5 - 0.45, 4 - 0.45)]  # ... but marked
    assert float(_text_at_3(ax, 4, 5)) == pytest.approx(img[5, 4], abs=0.051)  # 5->4 is fine
    assert (
        "V verification: bytes differ (bandwidth measured, not trusted) [1 cell]"
        in _legend_entries(ax)
    )
    assert _text_at_3(plots.heatmap(faulty, annotate=False).axes[0], 5, 4) == "V"
    # a bidirectional total holds both directions' bytes: both cells of the pair
    ax = plots.heatmap(faulty, direction="bi", value="bidir_total_GBps").axes[0]
    assert _text_at_3(ax, 5, 4).startswith("V\n") and _text_at_3(ax, 4, 5).startswith("V\n")
    assert (
        "V verification: bytes differ (bandwidth measured, not trusted) [2 cells]"
        in _legend_entries(ax)
    )


def test_heatmap_without_error_kinds_reads_no_text(faulty):
    run = faulty.samples.copy()  # as a run saved before error kinds loads: text only
    for col in ("error_kind", "error_code", "error_call"):
        run[col] = pd.NA
    ax = plots.heatmap(run).axes[0]
    assert _text_at_3(ax, 3, 2) == _text_at_3(ax, 7, 6) == "E1"
    assert (
        "E1 error without error_kind (a run saved before error kinds) [3 cells]"
        in _legend_entries(ax)
    )


def test_rewording_errors_changes_no_figure(a2, duo_2, faulty):
    size = {"figsize": (9.0, 8.0)}  # no layout passes: the words are what is compared
    figures = [
        (faulty, lambda r: plots.heatmap(r, **size)),
        (faulty, lambda r: plots.heatmap(r, direction="bi", **size)),
        (faulty, lambda r: plots.heatmap(r, direction="bi", value="bidir_total_GBps", **size)),
        (faulty, lambda r: plots.bandwidth_vs_size(r, **size)),
        (faulty, lambda r: plots.latency_vs_size(r, fit=False, **size)),
        (faulty, lambda r: plots.uni_vs_bi(r, src=4, dst=5, **size)),
        (faulty, lambda r: plots.uni_vs_bi(r, src=2, dst=3, **size)),
        (a2[1], lambda r: plots.heatmap(r, peer="off", path="direct", **size)),
        (a2[1], lambda r: plots.peer_on_off(r, src=2, dst=5, **size)),
        (duo_2[1], lambda r: plots.heatmap(r, **size)),
        (duo_2[1], lambda r: plots.bandwidth_vs_size(r, by="link", **size)),
    ]
    for run, draw in figures:
        assert run.samples["error"].notna().any()
        before = _words(draw(run))
        assert _words(draw(_reworded(run))) == before
        assert _words(draw(_reworded(run, unique=True))) == before
        plt.close("all")
    assert "reworded" not in _legend_text(plots.heatmap(_reworded(faulty)).axes[0])


def test_heatmap_diagonal_without_local_copies(a3):
    _table, run = a3
    ax = plots.heatmap(run).axes[0]  # the a3 run has no local pattern
    assert _texts(ax).count("—") == 16
    assert "same device" in _legend_text(ax)


def test_heatmap_legible_at_16_devices(a3):
    _table, run = a3
    fig = plots.heatmap(run)
    ax = fig.axes[0]
    texts = ax.texts
    assert len(texts) == 16 * 16
    numbers = [t for t in texts if t.get_text() != "—"]
    assert all("." not in t.get_text() for t in numbers)  # fewer digits
    assert max(t.get_fontsize() for t in texts) <= 7.5
    assert max(t.get_fontsize() for t in ax.get_xticklabels()) <= 8
    assert "simulated: atlas800t-a3" in ax.get_title()


def test_heatmap_size_value_and_errors(a2):
    _table, run = a2
    ax = plots.heatmap(run, size="64KiB").axes[0]
    assert "at 64 KiB" in ax.get_title()
    fig = plots.heatmap(run, direction="bi", value="bidir_total_GBps")
    assert "both directions" in fig.axes[1].get_ylabel()
    assert "GB/s" in fig.axes[1].get_ylabel()
    with pytest.raises(ValueError, match="direction='bi'"):
        plots.heatmap(run, value="bidir_total_GBps")
    with pytest.raises(ValueError, match="not in this run"):
        plots.heatmap(run, size="1GiB")
    with pytest.raises(ValueError, match="this run has"):
        plots.heatmap(run, peer="off", path="p2p")


def test_heatmap_on_given_axes_uses_its_figure(a2):
    _table, run = a2
    fig = Figure(figsize=(12, 5), dpi=100)
    left, _right = fig.subplots(1, 2)
    assert plots.heatmap(run, ax=left) is fig
    assert tuple(fig.get_size_inches()) == (12.0, 5.0)
    _no_pyplot_figures()


# ------------------------------------------------------------------------------ link / peer
def test_link_matrix_from_topology_and_table(a2, duo_2):
    fig = plots.link_matrix(load_preset("atlas800-9000"))
    ax = fig.axes[0]
    texts = _texts(ax)
    assert texts.count("X") == 8 and texts.count("HCCS") == 24 and texts.count("SYS") == 32
    legend = _legend_text(ax)
    assert "HCCS:" in legend and "SYS:" in legend and "X: self" in legend
    assert "topology: atlas800-9000" in ax.get_title()
    ax = plots.link_matrix(duo_2[0]).axes[0]
    assert _texts(ax).count("PIX") == 8
    assert "simulated: atlas300i-duo" in ax.get_title()
    colours = {k: v for k, v in plots.LINK_COLORS.items()}
    assert set(colours) >= {"HCCS", "HCCS_SW", "SIO", "PIX", "PXB", "PHB", "SYS", "UB", "NA", "X"}
    assert len(set(colours.values())) == len(colours)


def test_peer_access_matrix(duo_2):
    table, _run = duo_2
    ax = plots.peer_access_matrix(table).axes[0]
    texts = _texts(ax)
    assert texts.count("yes") == 8 and texts.count("no") == 48 and texts.count("X") == 8
    assert "aclrtDeviceCanAccessPeer" in ax.get_title()
    assert "link SYS" in _legend_text(ax)
    ax = plots.peer_access_matrix(table, value="peer_enabled").axes[0]
    assert _texts(ax).count("no") == 56
    with pytest.raises(ValueError):
        plots.peer_access_matrix(table, value="link")


def test_figures_are_deterministic_in_size(duo_2):
    table, _run = duo_2
    a = plots.peer_access_matrix(table).get_size_inches()
    b = plots.peer_access_matrix(table).get_size_inches()
    assert np.allclose(a, b)
