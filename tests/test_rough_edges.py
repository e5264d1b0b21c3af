"""Gaps the suite let through (issue 20): the warm-up asked for is the warm-up issued, and
the two directions of a bidirectional sample are enqueued interleaved."""

from __future__ import annotations

import itertools
import json
import math

import pandas as pd
import pytest

from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.runtime import open_runtime

POINTS = {"pairs": "0-1", "sizes": "4KiB,1MiB", "samples": 2, "progress": False}


def _copies_issued(warmup: int, timing: str) -> int:
    """Every copy a sweep of two points issued (async and blocking), on the simulator."""
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        sweep(rt, warmup=warmup, timing=timing, max_copies=1, **POINTS)
        counts = rt.acl.simulator.call_counts
        return counts.get("rt.memcpy_async", 0) + counts.get("rt.memcpy", 0)


@pytest.mark.parametrize("timing", ["events", "host"])
def test_the_copies_issued_grow_with_the_warmup_asked_for(timing: str) -> None:
    """max_copies=1: a point issues max(warmup, 1) warm-up copies and one per sample, so
    each extra warm-up copy asked for is one more copy per point (2 points)."""
    one = _copies_issued(1, timing)
    assert _copies_issued(0, timing) == one  # one copy is always needed to size a sample
    assert _copies_issued(4, timing) - one == 2 * 3
    assert _copies_issued(9, timing) - one == 2 * 8


def test_bidirectional_copies_are_enqueued_interleaved() -> None:
    """Each direction's copies of a sample go out in rounds of at most ceil(n / 4),
    alternating with the other direction's: on hardware the two directions then overlap
    instead of running one after the other (the simulator would not show it)."""
    trace: list[tuple[int | None, int]] = []
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        real = rt.enqueue_copies

        def spy(dst, src, size, stream, copies):
            trace.append((stream.device, copies))
            return real(dst, src, size, stream, copies)

        rt.enqueue_copies = spy
        run = sweep(rt, pairs="0-1", sizes="1MiB", direction="bi", samples=2, warmup=3,
                    min_sample_us=2000.0, max_copies=8, progress=False)
    n = int(run["copies"].iloc[0])
    assert n == 8 and (run["copies"] == n).all()
    devices = [dev for dev, _ in trace]
    assert all(a != b for a, b in itertools.pairwise(devices))  # strictly alternating
    # the warm-up is a sample of its own (3 copies: pre, 3 rounds of one, post), sized
    # as the samples are; max_copies is reached, so no trial follows
    warm, timed = trace[:2 * (1 + 3 + 1)], trace[2 * (1 + 3 + 1):]
    assert {copies for _, copies in warm} == {1}
    assert len(timed) == 2 * 2 * (1 + 4 + 1)  # samples x directions x (pre, 4 rounds, post)
    assert all(copies <= math.ceil(n / 4) for _, copies in timed)


# ------------------------------------------------------------------ damaged run folders
@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory):
    from ascend_p2p_lab.results import save_run

    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(rt, pairs="0-1,1-0", sizes="4KiB,64KiB", samples=1, progress=False)
    return save_run(run, tmp_path_factory.mktemp("runs") / "run")


def _meta(**change):
    def damage(folder):
        meta = json.loads((folder / "run.json").read_text())
        meta.update(change)
        for key in [k for k, v in change.items() if v is DROP]:
            del meta[key]
        (folder / "run.json").write_text(json.dumps(meta))
    return damage


def _text_bandwidth(folder) -> None:
    frame = pd.read_parquet(folder / "samples.parquet")
    frame["bandwidth_GBps"] = frame["bandwidth_GBps"].map(lambda v: f"{v:.3f}")
    frame.to_parquet(folder / "samples.parquet", index=False)


DROP = object()


@pytest.mark.parametrize("damage, named", [
    (_meta(params="pairs=0-1"), "run.json: params must be an object"),
    (_meta(device_count="eight"), "run.json: device_count must be a whole number"),
    (_meta(schema_version=DROP), "run.json: schema_version is missing"),
    (_meta(params=DROP), "run.json: params is missing"),
    (_meta(rows="4"), "run.json: rows must be a whole number"),
    (_meta(interrupted="no"), "run.json: interrupted must be true or false"),
    (_text_bandwidth, "samples.parquet: column bandwidth_GBps holds text, not numbers"),
])
def test_every_reader_refuses_a_damaged_run_with_one_line_naming_the_field(
        saved, tmp_path, capsys, damage, named) -> None:
    import shutil

    from ascend_p2p_lab.cli import main

    folder = tmp_path / "run"
    shutil.copytree(saved, folder)
    damage(folder)
    commands = [["report", str(folder), "--out", str(tmp_path / "rep")],
                ["compare", str(saved), str(folder)],
                ["compare", str(folder), str(saved)],
                ["calibrate", str(folder), "--out", str(tmp_path / "twin.toml")]]
    for argv in commands:
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 2, (argv, err)
        assert err.count("\n") == 1 and named in err, (argv, err)
    assert not (tmp_path / "rep").exists() and not (tmp_path / "twin.toml").exists()


def test_a_run_that_stops_early_counts_the_points_it_never_reached(
        capsys, tmp_path, monkeypatch) -> None:
    """3 blocks x 2 sizes; the second block stops the sweep (an error no row can carry):
    2 points measured, 4 never reached, and the summary and the JSON say so."""
    from ascend_p2p_lab.cli import main
    from ascend_p2p_lab.measure import execute
    from ascend_p2p_lab.results import load_run

    started: list[str] = []

    def stopping(ctx, test, fn=execute.measure_test):
        started.append(test.key)
        if len(started) == 2:
            raise RuntimeError("the peer state could not be restored")
        return fn(ctx, test)

    monkeypatch.setattr(execute, "measure_test", stopping)
    argv = ["sweep", "--backend", "sim", "--pairs", "0-1,1-0,2-3", "--sizes", "4KiB,64KiB",
            "--samples", "1", "--no-progress", "--out", str(tmp_path / "run")]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "4 of 6 points not reached" in out
    meta = load_run(tmp_path / "run").attrs["run"]
    assert (meta["points"], meta["points_not_reached"]) == (6, 4)
    started.clear()
    assert main([*argv[:-2], "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["points_not_reached"] == 4


@pytest.mark.parametrize("nth, seen", [(1, False), (2, False), (3, True)])
def test_verification_sees_the_bytes_of_the_points_last_copy(nth: int, seen: bool) -> None:
    """A point of 3 copies (1 warm-up, 2 samples of 1): the receive buffer is cleared
    before the point and read back after its last copy. A one-off corruption of an
    earlier copy is rewritten by the next before it is read (the documented choice:
    README, Verification); one of the last copy is found."""
    fault = {"kind": "corrupt", "link": [0, 1], "nth": nth}
    with open_runtime("sim", preset="atlas800t-a2", faults=[fault]) as rt:
        run = sweep(rt, pairs="0-1", sizes="4KiB", samples=2, warmup=1, max_copies=1,
                    progress=False)
        assert rt.acl.simulator.call_counts["rt.memcpy_async"] == 3
    assert run["verified"].eq(not seen).all()
    assert run["error_kind"].eq("verification").all() if seen else run["error_kind"].isna().all()


# ------------------------------------------------------------------------- figures
@pytest.mark.parametrize("hosts", [1, 2, 3, 6])
def test_the_fleet_figure_fits_its_title_for_any_number_of_hosts(hosts: int) -> None:
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab.plots import fleet_heatmaps, fleet_marked

    rows = [{"host": f"atlas{h:02d}", "src": s, "dst": d, "link": "HCCS",
             "fraction": 0.5 if (h, s, d) == (0, 2, 5) else 1.0, "bandwidth_GBps": 20.0}
            for h in range(hosts) for s in range(8) for d in range(8) if s != d]
    fig = fleet_heatmaps(pd.DataFrame(rows), threshold=0.9)
    fig.canvas.draw()
    title = fig._suptitle.get_window_extent()
    assert fig.bbox.x0 <= title.x0 and title.x1 <= fig.bbox.x1 and title.y1 <= fig.bbox.y1
    assert "fleet median" in fig._suptitle.get_text()
    assert fleet_marked(fig)["atlas00"] == [(2, 5)]


def test_the_dashboard_shows_the_simulator_fallback_as_information(
        capsys, monkeypatch) -> None:
    """Without pyACL the dashboard falls back to the simulator and says so in its own
    status line, as information: nothing on stderr (a kernel shows stderr as a pink
    error box)."""
    pytest.importorskip("ipywidgets")
    from ascend_p2p_lab.runtime import backend
    from ascend_p2p_lab.widgets import SweepDashboard

    def no_pyacl():
        raise backend.BackendUnavailable("no module named acl")

    monkeypatch.setattr(backend, "_import_real_acl", no_pyacl)
    monkeypatch.delenv("ASCEND_P2P_LAB_BACKEND", raising=False)
    dash = SweepDashboard()
    try:
        assert dash.rt.simulated and dash.rt.info.notice
        assert capsys.readouterr().err == ""
        assert dash.message == "ready; pyACL not found; using the simulated CANN runtime"
        assert 'class="p2p-status-info"' in dash.status.value
    finally:
        dash.close()
    with open_runtime() as rt:  # the command line still announces it on stderr
        assert rt.simulated
    assert "pyACL not found" in capsys.readouterr().err


def test_the_local_copy_sits_on_the_diagonal_of_device_paths_only() -> None:
    """p2p and direct copies go device to device: their matrices show the device-local
    copy on the diagonal; the host-staged path does not (620 GB/s beside 20 says nothing)."""
    from ascend_p2p_lab.matrices import run_matrices
    from ascend_p2p_lab.results import matrix

    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(rt, pairs="0-1", peer="both", patterns=("pair", "local"),
                    sizes="16MiB", samples=1, progress=False)
    local = run[run["pattern"] == "local"].set_index("src")["bandwidth_GBps"]
    by_path = {m.path: m.frame for m in run_matrices(run) if m.pattern == "pair"}
    assert set(by_path) == {"p2p", "direct", "staged"}
    assert by_path["p2p"].loc[0, 0] == pytest.approx(local[0])  # (direct: refused on A2)
    assert pd.isna(by_path["staged"].to_numpy().diagonal()).all()
    assert pd.isna(matrix(run, path="staged", peer="off").to_numpy().diagonal()).all()
    assert matrix(run, path="p2p", peer="on").loc[1, 1] == pytest.approx(local[1])
    assert by_path["staged"].loc[0, 1] > 0
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab.plots.cells import heatmap_data

    staged = heatmap_data(run, peer="off", path="staged")
    p2p = heatmap_data(run, peer="on", path="p2p")
    assert staged.cells.iat[0, 0] != p2p.cells.iat[0, 0]


def test_figures_show_the_devices_asked_for_as_the_terminal_does() -> None:
    """--devices 1,3,6 on an 8-device server: the heatmap and the link matrix are 3 x 3,
    labelled 1, 3, 6, like the terminal's matrices, not 8 x 8 with 58 empty cells."""
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab import plots
    from ascend_p2p_lab.matrices import run_matrices
    from ascend_p2p_lab.plots.cells import heatmap_data, link_frame

    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(rt, devices="1,3,6", sizes="1MiB", samples=1, progress=False)
    assert run_matrices(run)[0].devices == [1, 3, 6]
    data = heatmap_data(run)
    assert list(data.values.index) == list(data.values.columns) == [1, 3, 6]
    assert data.values.loc[3, 6] > 0 and pd.isna(data.values.loc[3, 3])
    assert list(link_frame(run)[0].index) == [1, 3, 6]
    ax = plots.heatmap(run).axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "3", "6"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["1", "3", "6"]


def test_every_legend_symbol_of_the_curves_appears_on_the_plot() -> None:
    """peer_on_off on the A2 (direct copies refused): the refused path has a legend entry
    with text only; every entry with a symbol (line or marker) matches something drawn."""
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab import plots

    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(rt, pairs="0-1,2-3", peer="both", sizes="64KiB,1MiB", samples=1,
                    progress=False)
    for fig in (plots.peer_on_off(run), plots.bandwidth_vs_size(run, peer="off",
                                                               path="direct")):
        ax = fig.axes[0]
        drawn = {line.get_marker() for line in ax.get_lines() if len(line.get_xdata())}
        symbols = [h.get_marker() for h in ax.get_legend().legend_handles
                   if hasattr(h, "get_marker") and h.get_marker() not in ("", "None", " ")]
        assert set(symbols) <= drawn, (symbols, drawn)


def test_the_aggregates_figure_names_its_size_as_every_figure_does() -> None:
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab import plots

    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(rt, sizes="1GiB", groups="0,1:2,3", samples=1, progress=False)
    title = plots.aggregate_bars(run).axes[0].get_title()
    assert "at 1 GiB" in title and "MiB" not in title


def test_curves_that_coincide_say_so_instead_of_hiding() -> None:
    """On the 310 the host-staged path is the same through a PHB or a SYS pair: the two
    lines coincide; the legend says which one is on top of which, and it is dashed."""
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab import plots

    with open_runtime("sim", preset="atlas300i-310") as rt:
        run = sweep(rt, pairs="0-1,0-4", peer="off", sizes="64KiB,1MiB,16MiB", samples=2,
                    progress=False)
    ax = plots.bandwidth_vs_size(run, peer="off", path="staged", by="link").axes[0]
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    phb, sys_ = "PHB (1 pairs, via host memory)", "SYS (1 pairs, via host memory) = PHB, on top"
    assert texts[:2] == [phb, sys_]  # the staged path says it goes through host memory
    styles = {line.get_label(): line.get_linestyle() for line in ax.get_lines()}
    assert styles[sys_] == "--" and styles[phb] == "-"
    with open_runtime("sim", preset="atlas800t-a3") as rt:  # SIO and HCCS_SW differ
        run = sweep(rt, pairs="0-1,0-2", sizes="1MiB,16MiB", samples=2, progress=False)
    texts = [t.get_text() for t in plots.bandwidth_vs_size(run, by="link").axes[0]
             .get_legend().get_texts()]
    assert not any("on top" in t for t in texts)


def test_terminal_figures_and_dashboard_explain_an_empty_cell_alike(capsys) -> None:
    """One vocabulary (emptycells): a cell's kind gives the same tag in the terminal and
    in the figure, and the same explanation in the terminal, the figure's legend and the
    dashboard's caption. Judged by kinds, tags and explain(), not by hand-written text."""
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab.emptycells import NOT_MEASURED, TAGS, explain
    from ascend_p2p_lab.matrices import run_matrices
    from ascend_p2p_lab.plots.cells import heatmap_data
    from ascend_p2p_lab.terminal import print_matrices

    with open_runtime("sim", preset="atlas300i-duo") as rt:
        run = sweep(rt, pairs="0-1,0-2", sizes="1MiB", samples=1, progress=False)
    (m,) = run_matrices(run)
    assert (m.kinds[0][2], m.kinds[0][3]) == ("unreachable", NOT_MEASURED)
    print_matrices(run)
    out = capsys.readouterr().out
    rows = {ln.split()[0]: ln.split()[1:] for ln in out.splitlines()
            if ln[:1].isdigit() and len(ln.split()) == 9}
    data = heatmap_data(run)
    for (src, dst), kind in (((0, 2), "unreachable"), ((0, 3), NOT_MEASURED)):
        assert rows[str(src)][dst] == data.cells.loc[(src, dst), "code"] == TAGS[kind]
        assert f"{TAGS[kind]}: {explain(kind)}" in out
        assert any(text.startswith(f"{TAGS[kind]}: {explain(kind)}")
                   for _code, text in data.legend)
    widgets = pytest.importorskip("ascend_p2p_lab.widgets.render")
    caption = widgets.heatmap_caption(run, ("uni", "on", None))
    assert explain("unreachable") in caption and explain(NOT_MEASURED) in caption
