"""plots.prepare: the data behind the figures, and figures checked against it.

- at_size and size_text take each pair's largest size, as results.matrix does;
  point_stats and pooled_stats give the median and p10-p90 of results.summarize (which is
  handed only the columns it reads); select, narrow, distinct and combos keep the rows and
  columns asked for, and select names what a run has when a mode is missing.
- process_mode_table keeps process modes and initiators apart; mode_text names the
  direction, peer state and path.
- Tests written to kill the plotting mutants of ``tools/mutants.py`` (see docs/testing.md)
  check what a user sees against the numbers of the run: the heatmap's colours, texts and
  ticks, the curves' medians, p10-p90 bands, fit lines, labels and axis units, the
  peer_on_off title, and compare_presets' bars over their names.

The runs are asymmetric: only the link 0->1 is degraded, only the copies 2->3 fail, and
in the mutants' run only the bytes copied 4->5 arrive wrong."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest
from helpers import asymmetric_a2_run, columns_given

from ascend_p2p_lab import results
from ascend_p2p_lab.plots import cells, prepare

matplotlib.use("Agg")
import re

from helpers import BIG, _rows, _text_at

from ascend_p2p_lab import open_runtime, plots
from ascend_p2p_lab.measure import probe, sweep
from ascend_p2p_lab.plots.prepare import process_mode_table


@pytest.fixture(scope="module")
def run():
    """The asymmetric run (0->1 at half speed, 2->3 failing), the pairs 0<->1 and 2<->3
    only."""
    return asymmetric_a2_run(pairs="0-1,1-0,2-3,3-2")


# ------------------------------------------------------------------------------ sizes
def test_largest_size_per_pair():
    frame = _rows(
        [(0, 1, 4096, 10.0), (0, 1, 65536, 20.0), (0, 1, 65536, 22.0), (1, 0, 4096, 11.0)]
    )
    largest = prepare.at_size(frame)
    assert largest[["src", "dst", "size_bytes"]].to_numpy().tolist() == [
        [0, 1, 65536],
        [0, 1, 65536],
        [1, 0, 4096],
    ]
    assert prepare.at_size(frame, 4096)["bandwidth_GBps"].tolist() == [10.0, 11.0]
    assert prepare.at_size(frame, keys=["src"])["size_bytes"].tolist() == [65536, 65536, 4096]
    assert prepare.size_text(frame, None) == "at each pair's largest size"
    assert prepare.size_text(frame[frame["src"] == 0], None) == "at 64 KiB (largest size)"
    assert prepare.size_text(frame, 4096) == "at 4 KiB"
    # the heatmap shows what results.matrix takes as each pair's largest size
    values = cells.heatmap_data(frame).values
    assert values.loc[0, 1] == 21.0 and values.loc[1, 0] == 11.0
    table = prepare.preset_table(
        {"t": frame}, size=None, direction="uni", peer="on", path=None, include_local=False
    )
    assert table[["link", "GBps", "pairs", "size"]].to_numpy().tolist() == [
        ["HCCS", 20.0, 2, 65536]
    ]  # median over 22, 20 (0->1) and 11 (1->0)


def test_point_stats_are_results_summarize(run):
    sel, _path = prepare.select(run.frame(), direction="uni", peer="on", path=None)
    stats = prepare.point_stats(sel)
    summary = results.summarize(sel).dropna(subset=["bandwidth_GBps_median"])
    assert len(stats) == len(summary) == 3  # 0->1, 1->0, 3->2; 2->3 has no numbers
    np.testing.assert_array_equal(stats["median"], summary["bandwidth_GBps_median"])
    np.testing.assert_array_equal(stats["p90"], summary["bandwidth_GBps_p90"])


def test_point_stats_summarize_only_the_columns_summarize_reads(run, monkeypatch):
    """point_stats hands results.summarize the point keys and what it summarises, no
    other column; the statistics are those of the whole rows."""
    sel, _path = prepare.select(run.frame(), direction="uni", peer="on", path=None)
    real = results.summarize
    given = columns_given(monkeypatch, results, "summarize")
    stats = prepare.point_stats(sel)
    assert set(given[0]) == set(results.SUMMARIZED) and len(given[0]) < len(sel.columns) / 2
    whole = real(sel).dropna(subset=["bandwidth_GBps_median"])
    np.testing.assert_array_equal(stats["p10"], whole["bandwidth_GBps_p10"])


def test_distinct_values_as_text_in_order_of_first_appearance():
    rows = pd.DataFrame({"c": pd.array(["sim", None, "acl", "sim"], dtype="string")})
    assert prepare.distinct(rows, "c") == ["sim", "acl"]
    assert prepare.distinct(pd.DataFrame({"n": [3, 1, 3]}), "n") == ["3", "1"]
    assert prepare.distinct(rows, "absent") == []


def test_select_with_columns_gives_the_same_rows_of_those_columns(run):
    frame = run.frame()
    whole, path = prepare.select(frame, direction="uni", peer="on", path=None)
    some, same = prepare.select(
        frame, direction="uni", peer="on", path=None, columns=("dst", "src", "absent")
    )
    assert same == path and list(some.columns) == ["src", "dst"]
    pd.testing.assert_frame_equal(some, whole[["src", "dst"]])


def test_narrow_keeps_the_frames_order_and_its_rows():
    rows = pd.DataFrame({"a": [1, 2, 3], "b": [4, 5, 6], "c": [7, 8, 9]})
    kept = prepare.narrow(rows, ("c", "a", "x"), rows["b"] != 5)
    assert list(kept.columns) == ["a", "c"] and kept.index.tolist() == [0, 2]
    assert prepare.narrow(rows, ("b",)).equals(rows[["b"]])


def test_select_explains_what_the_run_has(run):
    with pytest.raises(ValueError, match=r"this run has .*: uni/on/p2p, bi/on/p2p"):
        prepare.select(run.frame(), direction="uni", peer="off", path="direct")
    assert prepare.combos(run.frame()) == [("uni", "on", "p2p"), ("bi", "on", "p2p")]


FAULTS = [
    {"kind": "degrade", "link": [0, 1], "factor": 0.5},
    {"kind": "error", "call": "rt.memcpy_async", "link": [2, 3], "code": 507013},
    {"kind": "corrupt", "link": [4, 5]},
]


@pytest.fixture(scope="module")
def run_2():
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


@pytest.fixture(scope="module")
def duo():
    """atlas300i-duo: its probe table and a run in which some pairs cannot access peer."""
    with open_runtime("sim", preset="atlas300i-duo") as rt:
        table = probe(rt).frame()
        frame = sweep(rt, sizes="4KiB,1MiB", samples=2, warmup=0, progress=False)
    return table, frame


def _rows_2(run_2, src=None, dst=None, *, direction="uni", peer="on", path="p2p", size=None):
    df = run_2.samples[
        prepare.eq(run_2.samples["pattern"], "pair")
        & prepare.eq(run_2.samples["direction"], direction)
        & prepare.eq(run_2.samples["peer"], peer)
        & prepare.eq(run_2.samples["path"], path)
    ]
    if src is not None:
        df = df[(df["src"] == src) & (df["dst"] == dst)]
    if size is not None:
        df = df[df["size_bytes"] == size]
    return df


def _line(ax, label: str):
    (line,) = [ln for ln in ax.lines if ln.get_label() == label]
    return line


# ------------------------------------------------------------------------------ heatmaps
def test_heatmap_cells_colours_texts_and_ticks(run_2):
    slow = float(_rows_2(run_2, 0, 1, size=BIG)["bandwidth_GBps"].median())
    fast = float(_rows_2(run_2, 1, 0, size=BIG)["bandwidth_GBps"].median())
    assert slow < 0.6 * fast
    ax = plots.heatmap(run_2).axes[0]
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


# ------------------------------------------------------------------------------ curves
def test_bandwidth_per_link_is_the_median_with_its_band(run_2):
    ax = plots.bandwidth_vs_size(run_2, by="link", show_nominal=False).axes[0]
    sel = _rows_2(run_2)
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


def test_pooled_bands_run_from_p10_to_p90(run_2):
    """The statistics of the per-link curves, the time per copy and the bidirectional
    total (pooled over samples): p10 is the lower edge, p90 the upper one (uni_vs_bi
    sets its y range from p90)."""
    sel = _rows_2(run_2, direction="bi")
    st = prepare.pooled_stats(sel, ["src", "dst"], "bidir_total_GBps")
    g = sel[sel["bidir_total_GBps"].notna()].groupby(["src", "dst", "size_bytes"])[
        "bidir_total_GBps"
    ]
    np.testing.assert_allclose(st["p10"], g.quantile(0.10).to_numpy())
    np.testing.assert_allclose(st["p90"], g.quantile(0.90).to_numpy())
    assert (st["p10"] <= st["median"]).all() and (st["median"] <= st["p90"]).all()
    assert (st["p10"] < st["p90"]).any()


def test_bandwidth_per_pair_names_each_line_by_its_direction(run_2):
    ax = plots.bandwidth_vs_size(run_2, by="pair").axes[0]
    link = prepare.first_link(_rows_2(run_2, 0, 1))
    for s, d in ((0, 1), (1, 0)):
        y = _line(ax, f"{s} → {d} ({link})").get_xydata()[-1, 1]
        assert y == pytest.approx(float(_rows_2(run_2, s, d, size=BIG)["bandwidth_GBps"].median()))


def test_latency_fit_line_and_time_labels(run_2):
    ax = plots.latency_vs_size(run_2, by="pair", fit=True).axes[0]
    fits = results.fit_latency_bandwidth(
        prepare.select(run_2.frame(), direction="uni", peer="on", path="p2p")[0]
    )
    f = fits[(fits["src"] == 1) & (fits["dst"] == 0)].iloc[0]
    lat, bw = float(f["latency_us"]), float(f["bandwidth_GBps"])
    link = prepare.first_link(_rows_2(run_2, 1, 0))
    line = _line(ax, f"1 → 0 ({link}) fit: {lat:.1f} µs + size / {bw:.1f} GB/s")
    x, y = line.get_xydata().T
    np.testing.assert_allclose(y, lat + x / (bw * 1e3))
    med = _line(ax, f"1 → 0 ({link}) median").get_xydata()
    per_copy = prepare.time_per_copy(_rows_2(run_2, 1, 0)).groupby("size_bytes")["us_per_copy"]
    np.testing.assert_allclose(med[:, 1], per_copy.median().to_numpy())
    fmt = ax.yaxis.get_major_formatter()
    assert [fmt(5.0), fmt(2000.0), fmt(3e6)] == ["5 µs", "2 ms", "3 s"]


def test_peer_on_off_title_names_the_pair(run_2):
    ax = plots.peer_on_off(run_2, src=0, dst=1).axes[0]
    link = prepare.first_link(_rows_2(run_2, 0, 1))
    assert ax.get_title().startswith(
        f"Peer access on vs off: device 0 → 1 ({link}), unidirectional"
    )
    line = _line(ax, "peer on: P2P copy")
    assert line.get_xydata()[-1, 1] == pytest.approx(
        float(_rows_2(run_2, 0, 1, size=BIG)["bandwidth_GBps"].median())
    )


def test_uni_vs_bi_labels_each_direction(run_2):
    ax = plots.uni_vs_bi(run_2, src=0, dst=1).axes[0]
    for label, s, d, direction in (
        ("uni 0 → 1", 0, 1, "uni"),
        ("uni 1 → 0", 1, 0, "uni"),
        ("bi 0 → 1 (while 1 → 0 runs)", 0, 1, "bi"),
    ):
        y = _line(ax, label).get_xydata()[-1, 1]
        assert y == pytest.approx(
            float(_rows_2(run_2, s, d, direction=direction, size=BIG)["bandwidth_GBps"].median())
        ), label


# ------------------------------------------------------------------------------ compare
def test_compare_presets_bars_sit_over_their_names(run_2, duo):
    _table, frame = duo
    frames = {"a2": run_2, "duo": frame}
    ax = plots.compare_presets(frames).axes[0]
    table = prepare.preset_table(
        {k: v.frame() for k, v in frames.items()},
        size=None,
        direction="uni",
        peer="on",
        path=None,
        include_local=False,
    )
    heights = [p.get_height() for p in ax.patches]
    want = []
    for name in frames:
        g = table[table["name"] == name]
        want += g.sort_values("link", key=lambda c: c.map(prepare.link_rank))["GBps"].tolist()
    np.testing.assert_allclose(heights, want)
    labels = [t.get_text().split("\n")[0] for t in ax.get_xticklabels()]
    assert labels == ["a2", "duo"]
    at4k = plots.compare_presets({"a2": run_2}, size="4KiB").axes[0]
    assert at4k.patches[0].get_height() == pytest.approx(
        float(_rows_2(run_2, size=4096)["bandwidth_GBps"].median())
    )
    assert re.search(r"\nat 4 KiB, median over pairs\n", at4k.get_title())


def test_the_table_separates_modes_and_initiators() -> None:
    rows = [
        dict(
            pattern="pair",
            direction="uni",
            src=s,
            dst=d,
            initiator=who,
            link="HCCS",
            size_bytes=1 << 20,
            bandwidth_GBps=gbps,
            process_mode=mode,
        )
        for s, d, who, mode, gbps in [
            (0, 1, "dst", "in_process", 10.0),
            (0, 2, "dst", "in_process", 30.0),
            (0, 1, "dst", "ipc", 12.0),
            (0, 1, "src", "ipc", 5.0),
        ]
    ]
    table = process_mode_table(pd.DataFrame(rows))
    got = {(r.process_mode, r.initiator): (r.GBps, r.pairs) for r in table.itertuples()}
    assert set(table["link"]) == {"HCCS"}
    assert got == {
        ("in_process", "dst"): (20.0, 2),
        ("ipc", "dst"): (12.0, 1),
        ("ipc", "src"): (5.0, 1),
    }


def test_mode_text_names_the_direction() -> None:
    from ascend_p2p_lab.plots.prepare import mode_text

    assert mode_text("uni", "on", "p2p") == "unidirectional, peer on (p2p)"
    assert mode_text("bi", None, ["p2p", "staged"]) == "bidirectional (p2p or staged)"
