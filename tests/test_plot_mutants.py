"""Tests written to kill the plotting mutants of ``tools/mutants.py`` (see docs/testing.md).

Each test checks what a user sees in a figure (a cell's colour and text, a code, a legend
count, a title, an axis label, a line's points, which PNGs a report writes) against the
numbers of the run, on small asymmetric runs: only the link 0->1 is degraded, only the
copies 2->3 fail, only the bytes copied 4->5 arrive wrong.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib import colors as mcolors
from matplotlib.figure import Figure

from ascend_p2p_lab import open_runtime, plots, results
from ascend_p2p_lab.measure import probe, sweep
from ascend_p2p_lab.plots import prepare
from ascend_p2p_lab.plots.style import LINK_COLORS

BIG = 16 << 20
FAULTS = [{"kind": "degrade", "link": [0, 1], "factor": 0.5},
          {"kind": "error", "call": "rt.memcpy_async", "link": [2, 3], "code": 507013},
          {"kind": "corrupt", "link": [4, 5]}]


@pytest.fixture(scope="module")
def run():
    """atlas800t-a2 (8 devices), pairs 0<->1, 2<->3, 4<->5 at 4 KiB and 16 MiB, uni and
    bi, peer on and off, three samples: 0->1 at half speed, 2->3 fails, 4->5 corrupt."""
    with open_runtime("sim", preset="atlas800t-a2", faults=FAULTS) as rt:
        return sweep(rt, pairs="0-1,1-0,2-3,3-2,4-5,5-4", sizes="4KiB,16MiB",
                     direction="both", peer="both", samples=3, warmup=0, progress=False)


@pytest.fixture(scope="module")
def duo():
    """atlas300i-duo: its probe table and a run in which some pairs cannot access peer."""
    with open_runtime("sim", preset="atlas300i-duo") as rt:
        table = probe(rt)
        frame = sweep(rt, sizes="4KiB,1MiB", samples=2, warmup=0, progress=False)
    return table, frame


def _rows(run, src=None, dst=None, *, direction="uni", peer="on", path="p2p", size=None):
    df = run[prepare.eq(run["pattern"], "pair") & prepare.eq(run["direction"], direction)
             & prepare.eq(run["peer"], peer) & prepare.eq(run["path"], path)]
    if src is not None:
        df = df[(df["src"] == src) & (df["dst"] == dst)]
    if size is not None:
        df = df[df["size_bytes"] == size]
    return df


def _text_at(ax, x: int, y: int) -> str:
    (text,) = [t.get_text() for t in ax.texts if tuple(t.get_position()) == (x, y)]
    return text


def _legend(ax) -> list[str]:
    leg = ax.get_legend()
    return [" ".join(t.get_text().split()) for t in leg.get_texts()] if leg else []


def _line(ax, label: str):
    (line,) = [ln for ln in ax.lines if ln.get_label() == label]
    return line


# ------------------------------------------------------------------------------ heatmaps
def test_heatmap_cells_colours_texts_and_ticks(run):
    slow = float(_rows(run, 0, 1, size=BIG)["bandwidth_GBps"].median())
    fast = float(_rows(run, 1, 0, size=BIG)["bandwidth_GBps"].median())
    assert slow < 0.6 * fast
    ax = plots.heatmap(run).axes[0]
    img = ax.images[0].get_array()
    assert img.shape == (8, 8)
    assert img[0, 1] == pytest.approx(slow) and img[1, 0] == pytest.approx(fast)
    assert float(_text_at(ax, 1, 0)) == pytest.approx(slow, abs=0.051)  # x = dst, y = src
    assert float(_text_at(ax, 0, 1)) == pytest.approx(fast, abs=0.051)
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(i) for i in range(8)]
    assert [t.get_text() for t in ax.get_yticklabels()] == [str(i) for i in range(8)]
    # the failure code sits on the failing pair's cell (row 2, column 3), not on 3->2
    assert _text_at(ax, 3, 2) == "E1"
    assert float(_text_at(ax, 2, 3)) == pytest.approx(img[3, 2], abs=0.051)
    assert _text_at(ax, 5, 4).startswith("V\n") and not _text_at(ax, 4, 5).startswith("V")
    assert _text_at(ax, 7, 6) == "n/m"


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


def test_heatmap_colour_scale(run):
    im = plots.heatmap(run, vmin=1.0, vmax=50.0).axes[0].images[0]
    assert (im.norm.vmin, im.norm.vmax) == (1.0, 50.0)
    im = plots.heatmap(run).axes[0].images[0]
    assert im.norm.vmin == 0.0
    assert im.norm.vmax == pytest.approx(float(np.nanmax(im.get_array().filled(np.nan))))


def test_heatmap_titles_and_legend_counts(run):
    ax = plots.heatmap(run).axes[0]
    title = ax.get_title()
    assert title.startswith("Copy bandwidth, unidirectional, peer on (p2p)\n"
                            "at 16 MiB (largest size)")
    legend = _legend(ax)
    assert any(e.startswith("n/m: not measured") and e.endswith("[50 cells]") for e in legend)
    assert any(e.startswith("E1 runtime:") and e.endswith("[1 cell]") for e in legend)
    assert any(e.startswith("V ") and e.endswith("[1 cell]") for e in legend)
    small = plots.heatmap(run, size="4KiB").axes[0]
    assert "\nat 4 KiB\n" in small.get_title()
    assert small.images[0].get_array()[0, 1] == pytest.approx(
        float(_rows(run, 0, 1, size=4096)["bandwidth_GBps"].median()))


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
    data = plots.cells.heatmap_data(frame)
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
    legend = {h.get_label().split(":")[0]: mcolors.to_hex(h.get_facecolor())
              for h in ax.get_legend().legend_handles}
    assert all(legend[c] == LINK_COLORS[c] for c in legend if c in LINK_COLORS)


def test_peer_access_legend_counts_pairs(duo):
    table, _frame = duo
    n = int(max(table["src"].max(), table["dst"].max())) + 1
    legend = _legend(plots.peer_access_matrix(table).axes[0])
    yes = int(table.loc[table["src"] != table["dst"], "can_access_peer"].astype(bool).sum())
    assert f"yes ({yes} of {n * (n - 1)})" in legend
    assert any(e.startswith(f"no ({n * (n - 1) - yes} of {n * (n - 1)})") for e in legend)


# ------------------------------------------------------------------------------ curves
def test_bandwidth_per_link_is_the_median_with_its_band(run):
    ax = plots.bandwidth_vs_size(run, by="link", show_nominal=False).axes[0]
    sel = _rows(run)
    g = sel[sel["bandwidth_GBps"].notna()].groupby("size_bytes")["bandwidth_GBps"]
    (link,) = sel["link"].dropna().unique()
    line = next(ln for ln in ax.lines if str(ln.get_label()).startswith(f"{link} ("))
    np.testing.assert_allclose(line.get_xydata(), np.c_[g.median().index, g.median()])
    assert not np.allclose(g.median(), g.mean())  # the mutant "mean" would show
    band = ax.collections[0].get_paths()[0].vertices
    assert band[:, 1].max() == pytest.approx(float(g.quantile(0.9).max()))
    assert band[:, 1].min() == pytest.approx(float(g.quantile(0.1).min()))
    fmt = ax.xaxis.get_major_formatter()
    assert [fmt(4096), fmt(BIG)] == ["4 KiB", "16 MiB"]
    assert list(ax.xaxis.get_major_locator().tick_values(1, 2)) == [4096, BIG]


def test_pooled_bands_run_from_p10_to_p90(run):
    """The statistics of the per-link curves, the time per copy and the bidirectional
    total (pooled over samples): p10 is the lower edge, p90 the upper one (uni_vs_bi
    sets its y range from p90)."""
    sel = _rows(run, direction="bi")
    st = prepare.pooled_stats(sel, ["src", "dst"], "bidir_total_GBps")
    g = sel[sel["bidir_total_GBps"].notna()].groupby(["src", "dst", "size_bytes"])[
        "bidir_total_GBps"]
    np.testing.assert_allclose(st["p10"], g.quantile(0.10).to_numpy())
    np.testing.assert_allclose(st["p90"], g.quantile(0.90).to_numpy())
    assert (st["p10"] <= st["median"]).all() and (st["median"] <= st["p90"]).all()
    assert (st["p10"] < st["p90"]).any()


def test_bandwidth_per_pair_names_each_line_by_its_direction(run):
    ax = plots.bandwidth_vs_size(run, by="pair").axes[0]
    link = prepare.first_link(_rows(run, 0, 1))
    for s, d in ((0, 1), (1, 0)):
        y = _line(ax, f"{s} → {d} ({link})").get_xydata()[-1, 1]
        assert y == pytest.approx(float(_rows(run, s, d, size=BIG)["bandwidth_GBps"].median()))


def test_latency_fit_line_and_time_labels(run):
    ax = plots.latency_vs_size(run, by="pair", fit=True).axes[0]
    fits = results.fit_latency_bandwidth(prepare.select(run, direction="uni", peer="on",
                                                        path="p2p")[0])
    f = fits[(fits["src"] == 1) & (fits["dst"] == 0)].iloc[0]
    lat, bw = float(f["latency_us"]), float(f["bandwidth_GBps"])
    link = prepare.first_link(_rows(run, 1, 0))
    line = _line(ax, f"1 → 0 ({link}) fit: {lat:.1f} µs + size / {bw:.1f} GB/s")
    x, y = line.get_xydata().T
    np.testing.assert_allclose(y, lat + x / (bw * 1e3))
    med = _line(ax, f"1 → 0 ({link}) median").get_xydata()
    per_copy = prepare.time_per_copy(_rows(run, 1, 0)).groupby("size_bytes")["us_per_copy"]
    np.testing.assert_allclose(med[:, 1], per_copy.median().to_numpy())
    fmt = ax.yaxis.get_major_formatter()
    assert [fmt(5.0), fmt(2000.0), fmt(3e6)] == ["5 µs", "2 ms", "3 s"]


def test_peer_on_off_title_names_the_pair(run):
    ax = plots.peer_on_off(run, src=0, dst=1).axes[0]
    link = prepare.first_link(_rows(run, 0, 1))
    assert ax.get_title().startswith(f"Peer access on vs off: device 0 → 1 ({link}), "
                                     "unidirectional")
    line = _line(ax, "peer on: P2P copy")
    assert line.get_xydata()[-1, 1] == pytest.approx(
        float(_rows(run, 0, 1, size=BIG)["bandwidth_GBps"].median()))


def test_uni_vs_bi_labels_each_direction(run):
    ax = plots.uni_vs_bi(run, src=0, dst=1).axes[0]
    for label, s, d, direction in (("uni 0 → 1", 0, 1, "uni"), ("uni 1 → 0", 1, 0, "uni"),
                                   ("bi 0 → 1 (while 1 → 0 runs)", 0, 1, "bi")):
        y = _line(ax, label).get_xydata()[-1, 1]
        assert y == pytest.approx(float(_rows(run, s, d, direction=direction,
                                              size=BIG)["bandwidth_GBps"].median())), label


# ------------------------------------------------------------------------------ compare
def test_compare_presets_bars_sit_over_their_names(run, duo):
    _table, frame = duo
    frames = {"a2": run, "duo": frame}
    ax = plots.compare_presets(frames).axes[0]
    table = prepare.preset_table(frames, size=None, direction="uni", peer="on", path=None,
                                 include_local=False)
    heights = [p.get_height() for p in ax.patches]
    want = []
    for name in frames:
        g = table[table["name"] == name]
        want += g.sort_values("link", key=lambda c: c.map(prepare.link_rank))["GBps"].tolist()
    np.testing.assert_allclose(heights, want)
    labels = [t.get_text().split("\n")[0] for t in ax.get_xticklabels()]
    assert labels == ["a2", "duo"]
    at4k = plots.compare_presets({"a2": run}, size="4KiB").axes[0]
    assert at4k.patches[0].get_height() == pytest.approx(
        float(_rows(run, size=4096)["bandwidth_GBps"].median()))
    assert re.search(r"\nat 4 KiB, median over pairs\n", at4k.get_title())


# ------------------------------------------------------------------------------ report
def test_report_writes_every_figure_the_run_has(tmp_path, monkeypatch):
    """atlas800t-a3 copies directly with peer access off: both directions have numbers
    on every path, so every figure report() can write applies."""
    with open_runtime("sim", preset="atlas800t-a3") as rt:
        run = sweep(rt, pairs="0-1,1-0", sizes="4KiB,1MiB", direction="both", peer="both",
                    samples=2, warmup=0, progress=False)
    saved: list[str] = []

    def fake_savefig(self, path, **kw):  # the choice of figures, without rendering PNGs
        saved.append(Path(path).name)
        Path(path).write_bytes(b"")

    def no_drawing(*args, **kw):  # which figures, not how they look (tested above)
        return Figure()

    monkeypatch.setattr(Figure, "savefig", fake_savefig)
    for name in ("heatmap", "link_matrix", "peer_access_matrix", "bandwidth_vs_size",
                 "latency_vs_size", "peer_on_off", "uni_vs_bi"):
        monkeypatch.setattr(plots.reports, name, no_drawing)
    names = {p.name for p in plots.report(run, tmp_path)}
    assert names == set(saved)
    assert {"heatmap_uni_on_p2p.png", "heatmap_bi_on_p2p.png", "heatmap_bi_on_p2p_total.png",
            "heatmap_bi_off_direct.png", "heatmap_bi_off_direct_total.png",
            "peer_on_off.png", "uni_vs_bi_on.png", "uni_vs_bi_off.png"} <= names
