"""plots.reports: which figures report plans for a run (plan, the Jobs; the modes' rows
selected once, with the columns they read), and how it draws them: in this process or in
forked workers (the same PNG bytes in the same order; Ctrl-C while the pool starts stops
it), with fewer collections and copied ticks; the latency matrix, the process-mode and
card figures where the run has their rows. Small simulated sweeps only."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import threading
from pathlib import Path

import matplotlib
import pandas as pd
import psutil  # comes with ipykernel
import pytest
from helpers import _no_pyplot_figures
from matplotlib.figure import Figure

from ascend_p2p_lab import forking, open_runtime, plots
from ascend_p2p_lab.measure import (
    probe,
    sweep,
    sweep_processes,
)
from ascend_p2p_lab.plots import reports
from ascend_p2p_lab.run import Run


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


def test_report_in_two_processes_writes_the_same_files_in_order(small_run, tmp_path):
    table, run = small_run
    run = run.select(run.samples["direction"].eq("uni") & run.samples["peer"].eq("on"))  # 5 figs
    one = plots.report(run, tmp_path / "one", table=table)
    two = plots.report(run, tmp_path / "two", table=table, workers=2)
    assert [p.name for p in two] == [p.name for p in one]
    assert len(one) == 5 and all(p.parent == tmp_path / "two" for p in two)
    for a, b in zip(one, two):
        assert a.read_bytes() == b.read_bytes(), a.name


def test_ctrl_c_as_the_drawing_pool_starts_stops_that_pool(small_run, tmp_path, monkeypatch):
    """A Ctrl-C that lands while report's pool starts is taken once the pool is whole:
    KeyboardInterrupt, and the pool's workers stopped (a pool interrupted half made left
    workers that outlived the command and held its terminal's pipes open)."""
    import multiprocessing
    import os
    import signal
    import time

    table, run = small_run
    fork = multiprocessing.get_context("fork")
    real, workers = fork.Pool, []

    def interrupted(n):
        pool = real(n)
        workers.extend(p.pid for p in pool._pool)
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, its workers just forked
        time.sleep(0.1)  # a signal not deferred is raised by now, here
        return pool

    monkeypatch.setattr(fork, "Pool", interrupted)
    with pytest.raises(KeyboardInterrupt) as info:
        plots.report(run, tmp_path, table=table, workers=2)
    assert "interrupted" not in [f.name for f in info.traceback]  # taken after it returned
    assert len(workers) == 2 and not any(psutil.pid_exists(pid) for pid in workers)


def test_default_workers_is_one_while_another_thread_runs(monkeypatch):
    monkeypatch.setattr(forking, "busy_cores", lambda: 0.0)  # idle cores: only the thread
    stop = threading.Event()
    t = threading.Thread(target=stop.wait, name="busy")
    t.start()
    try:
        assert not forking.can_fork()
        assert reports.default_workers() == 1
    finally:
        stop.set()
        t.join()
    monitor = threading.Thread(target=lambda: None, name="tqdm_monitor", daemon=True)
    monkeypatch.setattr(threading, "enumerate", lambda: [threading.current_thread(), monitor])
    monkeypatch.setattr(forking.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(forking, "busy_cores", lambda: 0.3)
    assert reports.default_workers() == 2
    monkeypatch.setattr(forking, "busy_cores", lambda: 0.8)
    assert reports.default_workers() == 1  # most of the other core is busy: draw here
    monkeypatch.setattr(forking, "busy_cores", lambda: 1.4)
    assert reports.default_workers() == 1


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


def test_report_draws_the_latency_matrix_at_the_smallest_size(lab, tmp_path, monkeypatch) -> None:
    from ascend_p2p_lab import plots
    from ascend_p2p_lab.plots import reports

    run, _model = lab
    asked: list[dict] = []
    real = reports.heatmap

    def spy(frame, **kwargs):
        asked.append(kwargs)
        return real(frame, **kwargs)

    monkeypatch.setattr(reports, "heatmap", spy)
    paths = plots.report(run, tmp_path)
    latency = [p for p in paths if p.name.startswith("latency_on_")]
    assert [p.name for p in latency] == ["latency_on_p2p.png"]
    drawn = [k for k in asked if k.get("value") == "latency_us"]
    assert len(drawn) == 1 and drawn[0]["size"] == min(SIZES)
    assert drawn[0]["pattern"] == "latency"


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


# ------------------------------------------------------------------------------ report
def test_report_writes_pngs(tmp_path):
    table, run = _measure("atlas800t-a2", pairs="0-1,1-0", sizes="64KiB,4MiB")
    paths = plots.report(run, tmp_path / "figs", table=table)
    assert [p.name for p in paths] == [
        "link_matrix.png",
        "peer_access.png",
        "heatmap_uni_on_p2p.png",
        "bandwidth_vs_size_uni_on_p2p.png",
        "latency_vs_size_uni_on_p2p.png",
    ]
    for p in paths:
        assert p.parent == tmp_path / "figs"
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    _no_pyplot_figures()


def test_report_draws_with_fewer_collections_and_puts_the_thresholds_back(
    small_run, tmp_path, monkeypatch
):
    import gc

    seen = []
    draw = reports._draw

    def recorded(job, frames, out):
        seen.append(gc.get_threshold()[0])
        return draw(job, frames, out)

    monkeypatch.setattr(reports, "_draw", recorded)
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        _, run = small_run
        plots.report(run, tmp_path / "figs", workers=1)
        assert gc.get_threshold() == (700, 10, 10)  # put back
    finally:
        gc.set_threshold(*before)
    assert seen and set(seen) == {reports.YOUNG_THRESHOLD}


def test_report_draws_with_ticks_copied(small_run, tmp_path, monkeypatch):
    """Each figure of a report drawn with an axis's ticks copied from its first
    (tickplaces.ticks_copied), and matplotlib's methods put back after."""
    from matplotlib.axis import Axis

    from ascend_p2p_lab.plots import tickplaces

    seen: list[bool] = []
    draw = reports._draw

    def recorded(job, frames, out):
        seen.append(Axis.get_major_ticks is tickplaces._get_major_ticks)
        return draw(job, frames, out)

    monkeypatch.setattr(reports, "_draw", recorded)
    _, run = small_run
    plots.report(run, tmp_path / "figs", workers=1)
    assert seen and all(seen)
    assert Axis.get_major_ticks is tickplaces._original_major


def test_report_covers_what_the_run_has(a2, tmp_path, monkeypatch):
    table, run = a2
    saved: list[tuple[str, int]] = []

    def fake_savefig(self, path, **kw):  # the choice of figures, without rendering PNGs
        saved.append((Path(path).name, kw.get("dpi")))
        Path(path).write_bytes(b"")

    monkeypatch.setattr(Figure, "savefig", fake_savefig)
    paths = plots.report(run, tmp_path, table=table)
    names = {p.name for p in paths}
    assert names == {name for name, _ in saved}
    assert {dpi for _, dpi in saved} == {100}
    assert {
        "heatmap_uni_on_p2p.png",
        "heatmap_uni_off_direct.png",
        "heatmap_uni_off_staged.png",
        "heatmap_bi_on_p2p.png",
        "heatmap_bi_on_p2p_total.png",
        "heatmap_bi_off_direct.png",
        "bandwidth_vs_size_uni_off_staged.png",
        "peer_on_off.png",
        "uni_vs_bi_on.png",
    } <= names
    # peer-off direct copies all failed on A2: a heatmap of the failure, no curve
    assert "bandwidth_vs_size_uni_off_direct.png" not in names
    assert all(p.exists() for p in paths)


def test_plan_selects_each_modes_rows_once(a2, monkeypatch):
    """The plan picks each (direction, peer, path)'s rows out of the run once, for its
    heatmaps and its curves alike (it picked them four times), and plans the same."""
    _table, run = a2
    run = run.frame()
    before = [(j.name, j.kwargs) for j in reports.plan(run)]
    asked: list[tuple[str, str, str]] = []
    real = reports.mode_rows

    def counted(frame, *mode):
        asked.append(mode)
        return real(frame, *mode)

    monkeypatch.setattr(reports, "mode_rows", counted)
    assert [(j.name, j.kwargs) for j in reports.plan(run)] == before
    assert len(asked) == len(set(asked)) == 5  # uni/bi x on/off x p2p/direct/staged seen


def test_in_process_leaves_a_run_without_ipc_or_die_link_rows_as_it_is(a2):
    """No row to drop: the run itself, not a copy of its every column; IPC rows dropped."""
    _table, run = a2
    frame = run.frame()
    assert reports.in_process(frame) is frame
    ipc = frame.assign(process_mode=["ipc"] + ["in_process"] * (len(frame) - 1))
    kept = reports.in_process(ipc)
    assert len(kept) == len(frame) - 1 and kept.index[0] == frame.index[1]
    die = frame.assign(die_link=pd.array([None] * (len(frame) - 2) + ["sio"] * 2, "string"))
    assert len(reports.in_process(die)) == len(frame) - 2


def test_plan_selects_the_pairs_columns_it_reads(a2, monkeypatch):
    """The plan's pair rows hold the columns it reads (reports.PLANNED), not the run's
    ~60 (each selection of them ~5 ms), and it plans the same as from every column."""
    _table, run = a2
    run = run.frame()
    before = [(j.name, j.kwargs) for j in reports.plan(run)]
    given: list[list[str]] = []
    real = reports.mode_rows

    def recorded(frame, *mode):
        given.append(list(frame.columns))
        return real(frame, *mode)

    monkeypatch.setattr(reports, "mode_rows", recorded)
    assert [(j.name, j.kwargs) for j in reports.plan(run)] == before
    assert given and all(set(cols) == set(reports.PLANNED) for cols in given)
    monkeypatch.setattr(reports, "narrow", lambda frame, _cols, keep: frame[keep])
    assert [(j.name, j.kwargs) for j in reports.plan(run)] == before  # the same plan


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    out = tmp_path_factory.mktemp("proc") / "run"
    with open_runtime("sim", "atlas800t-a3") as rt:
        Run.of(sweep_processes(rt, pairs=[(0, 1), (0, 2)], sizes="1MiB,8MiB", samples=2)).save(out)
    return Run.load(out).frame()


def test_report_draws_the_process_modes_figure(run: pd.DataFrame, tmp_path: Path) -> None:
    from ascend_p2p_lab.plots import report
    from ascend_p2p_lab.plots.reports import plan

    written = report(run, tmp_path)
    assert tmp_path / "process_modes.png" in written
    # the other figures keep to the in-process rows: the same files as without IPC rows
    # (report draws exactly its plan's jobs: the plan of the in-process rows names them)
    inside = plan(run[run["process_mode"] == "in_process"])
    assert {p.name for p in written} - {"process_modes.png"} == {j.name for j in inside}


# ------------------------------------------------------------------------------ report
def test_report_writes_every_figure_the_run_has(tmp_path, monkeypatch):
    """atlas800t-a3 copies directly with peer access off: both directions have numbers
    on every path, so every figure report() can write applies."""
    with open_runtime("sim", preset="atlas800t-a3") as rt:
        run_2 = sweep(
            rt,
            pairs="0-1,1-0",
            sizes="4KiB,1MiB",
            direction="both",
            peer="both",
            samples=2,
            warmup=0,
            progress=False,
        )
    saved: list[str] = []

    def fake_savefig(self, path, **kw):  # the choice of figures, without rendering PNGs
        saved.append(Path(path).name)
        Path(path).write_bytes(b"")

    def no_drawing(*args, **kw):  # which figures, not how they look (tested above)
        return Figure()

    monkeypatch.setattr(Figure, "savefig", fake_savefig)
    for name in (
        "heatmap",
        "link_matrix",
        "peer_access_matrix",
        "bandwidth_vs_size",
        "latency_vs_size",
        "peer_on_off",
        "uni_vs_bi",
    ):
        monkeypatch.setattr(plots.reports, name, no_drawing)
    names = {p.name for p in plots.report(run_2, tmp_path)}
    assert names == set(saved)
    assert {
        "heatmap_uni_on_p2p.png",
        "heatmap_bi_on_p2p.png",
        "heatmap_bi_on_p2p_total.png",
        "heatmap_bi_off_direct.png",
        "heatmap_bi_off_direct_total.png",
        "peer_on_off.png",
        "uni_vs_bi_on.png",
        "uni_vs_bi_off.png",
    } <= names


def test_plan_draws_the_card_matrix_of_a_card_run() -> None:
    with open_runtime("sim", "atlas800t-a3") as rt:
        cards = sweep(rt, patterns="card", sizes="1MiB", samples=1, warmup=0, progress=False)
    names = [j.name for j in reports.plan(cards.samples)]
    assert "card_uni.png" in names
