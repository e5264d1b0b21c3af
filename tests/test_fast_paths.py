"""The fast paths of issue 24 give what the plain paths give, exactly.

- ``Runtime.enqueue_staged``: the same pyACL calls, in the same order, with the same
  virtual clock and bytes, as the per-call loop it replaces (memcpy_async, record,
  wait_event, memcpy_async per chunk, device switches included);
- ``sim.engine.Engine._run_linked``: the same start and end times, to 1e-12, as the
  fluid model's loop on streams that share no resource (waits across streams, jitter);
- ``plots.style.save_png`` and ``plots.report(workers=2)``: the same PNG bytes as
  ``savefig`` and as drawing in this process.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import base64
import io
import os
import random
import threading

import pytest

from ascend_p2p_lab import forking, open_runtime, plots
from ascend_p2p_lab.measure import probe, sweep
from ascend_p2p_lab.plots import reports
from ascend_p2p_lab.plots.style import DPI, save_png
from ascend_p2p_lab.sim import engine as engine_mod
from ascend_p2p_lab.sim.engine import Engine


# ------------------------------------------------------------------ staged copies
def _per_call(rt, dst, host, src, size, streams, relay, n, chunk):
    """The host-staged loop as it was before the fast path: one checked call at a time."""
    s_src, s_dst = streams
    for _ in range(n):
        for off in range(0, size, chunk):
            m = min(chunk, size - off)
            rt.memcpy_async(host, src, m, s_src, dst_offset=off, src_offset=off)
            relay.record(s_src)
            rt.wait_event(s_dst, relay)
            rt.memcpy_async(dst, host, m, s_dst, dst_offset=off, src_offset=off)


def _staged_trace(fast: bool, size: int, chunk: int, start: int, n: int = 3):
    """Calls made, the virtual host clock after the sync, and the bytes that arrived."""
    with open_runtime("sim", preset="atlas800t-a2", seed=7) as rt:
        sim = rt.acl.simulator
        s_src, s_dst = rt.stream(2), rt.stream(5)
        relay = rt.event(2)
        with rt.device_buffer(2, size) as src, rt.device_buffer(5, size) as dst, \
                rt.host_buffer(size) as host:
            rt.write(src, bytes(range(251)) * (size // 251) + bytes(size % 251))
            rt.use(start)  # the destination: the first chunk switches devices
            before = dict(sim.call_counts)
            if fast:
                rt.enqueue_staged(dst, host, src, size, (s_src, s_dst), relay, n, chunk=chunk)
            else:
                _per_call(rt, dst, host, src, size, (s_src, s_dst), relay, n, chunk)
            s_dst.synchronize()
            calls = {k: v - before.get(k, 0) for k, v in sim.call_counts.items()
                     if v != before.get(k, 0)}
            clock, data = sim.host_time_us, rt.read(dst)
        for r in (relay, s_src, s_dst):
            r.close()
    return calls, clock, data


@pytest.mark.parametrize("size,chunk,start", [(4096, 4096, 5), (10 << 10, 4096, 5),
                                              (1 << 20, 1 << 18, 5), (4096, 4096, 2)])
def test_enqueue_staged_makes_the_calls_of_the_per_call_loop(size, chunk, start):
    fast, slow = _staged_trace(True, size, chunk, start), _staged_trace(False, size, chunk, start)
    assert fast[0] == slow[0]
    chunks = -(-size // chunk)
    assert fast[0]["rt.memcpy_async"] == 2 * 3 * chunks
    # to the source and back, per chunk (none to the source first when it is current)
    assert fast[0]["rt.set_context"] == 2 * 3 * chunks - (start == 2)
    assert fast[1] == slow[1]  # the same virtual time, to the bit
    assert fast[2] == slow[2]


def test_enqueue_staged_refuses_a_size_beyond_the_buffers():
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        s0, s1 = rt.stream(0), rt.stream(1)
        relay = rt.event(0)
        with rt.device_buffer(0, 4096) as a, rt.device_buffer(1, 8192) as b, \
                rt.host_buffer(8192) as h, pytest.raises(ValueError, match="do not fit"):
            rt.enqueue_staged(b, h, a, 8192, (s0, s1), relay, 1, chunk=4096)
        for r in (relay, s0, s1):
            r.close()


# ------------------------------------------------------------------ the fluid model
def _random_engine(seed: int, shared: bool) -> tuple[Engine, list]:
    """Three streams of copies, records and cross-stream waits, enqueued at odd times."""
    rng = random.Random(seed)
    res = [("d2h", 0), ("h2d", 1), ("link", 2, 3)]
    cap = {r: rng.uniform(500.0, 30_000.0) for r in res}
    eng = Engine(cap, jitter=0.03, seed=seed)
    streams = [eng.new_stream(i) for i in range(3)]
    events = [eng.new_event(i, 0) for i in range(3)]
    ops = []
    for _ in range(60):
        k = rng.randrange(3)
        s = streams[k]
        what = rng.random()
        if what < 0.6:
            r = res[rng.randrange(3)] if shared else res[k]
            ops.append(eng.enqueue_copy(s, rng.choice([0, 4096, 1 << 20, 3 << 20]), (r,),
                                        rng.uniform(0.0, 9.0)))
        elif what < 0.8:
            ops.append(eng.enqueue_record(s, events[k]))
        else:
            ops.append(eng.enqueue_wait(s, events[rng.randrange(3)]))
        eng.advance_host(rng.choice([0.0, 0.5, 37.25]))
    return eng, ops


@pytest.mark.parametrize("seed", range(12))
def test_unshared_streams_get_the_fluid_models_times(seed, monkeypatch):
    fast_eng, fast_ops = _random_engine(seed, shared=False)
    fast_eng.resolve()
    monkeypatch.setattr(Engine, "_independent", lambda self, streams: False)  # fluid model
    slow_eng, slow_ops = _random_engine(seed, shared=False)
    slow_eng.resolve()
    fast = [(o.kind, o.start, o.end) for o in fast_ops]
    slow = [(o.kind, o.start, o.end) for o in slow_ops]
    # the fluid loop moves a copy's bytes in steps between events: the same times up to
    # the rounding of those steps
    assert [k for k, _, _ in fast] == [k for k, _, _ in slow]
    assert [t for _, s, e in fast for t in (s, e)] == pytest.approx(
        [t for _, s, e in slow for t in (s, e)], rel=1e-12, abs=0)
    assert any(k == "wait" for k, _, _ in fast) and all(e is not None for _, _, e in fast)


def test_only_streams_that_share_a_resource_take_the_fluid_model(monkeypatch):
    taken: list[int] = []
    real = engine_mod.run_fluid
    monkeypatch.setattr(engine_mod, "run_fluid",
                        lambda streams, rate: (taken.append(len(streams)), real(streams, rate)))
    eng, _ = _random_engine(3, shared=False)
    eng.resolve()
    assert taken == []
    eng, _ = _random_engine(3, shared=True)
    eng.resolve()
    assert taken == [3]


# ------------------------------------------------------------------ figures
@pytest.fixture(scope="module")
def small_run():
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        table = probe(rt)
        run = sweep(rt, pairs="0-1,1-0,2-5", sizes="64KiB,4MiB", direction="both",
                    peer="both", samples=2, warmup=0, progress=False)
    return table, run


def test_save_png_gives_the_bytes_savefig_gives(small_run):
    table, run = small_run
    for draw in (lambda: plots.heatmap(run, direction="bi"), lambda: plots.link_matrix(table),
                 lambda: plots.bandwidth_vs_size(run)):
        plain, fast = io.BytesIO(), io.BytesIO()
        draw().savefig(plain, dpi=DPI)
        save_png(draw(), fast)
        assert fast.getvalue() == plain.getvalue()


def test_a_figure_changed_after_finish_is_laid_out_again(small_run):
    _, run = small_run
    plain, fast = io.BytesIO(), io.BytesIO()
    fig = plots.heatmap(run)
    fig.set_size_inches(9.0, 7.0)  # no longer the size finish laid it out at
    fig.savefig(plain, dpi=DPI)
    fig = plots.heatmap(run)
    fig.set_size_inches(9.0, 7.0)
    save_png(fig, fast)
    assert fast.getvalue() == plain.getvalue()


def test_report_in_two_processes_writes_the_same_files_in_order(small_run, tmp_path):
    table, run = small_run
    run = run[run["direction"].eq("uni") & run["peer"].eq("on")]  # five figures are enough
    one = plots.report(run, tmp_path / "one", table=table)
    two = plots.report(run, tmp_path / "two", table=table, workers=2)
    assert [p.name for p in two] == [p.name for p in one]
    assert len(one) == 5 and all(p.parent == tmp_path / "two" for p in two)
    for a, b in zip(one, two):
        assert a.read_bytes() == b.read_bytes(), a.name


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
    monkeypatch.setattr(threading, "enumerate",
                        lambda: [threading.current_thread(), monitor])
    monkeypatch.setattr(forking.os, "sched_getaffinity", lambda pid: {0, 1},
                        raising=False)
    monkeypatch.setattr(forking, "busy_cores", lambda: 0.3)
    assert reports.default_workers() == 2
    monkeypatch.setattr(forking, "busy_cores", lambda: 0.8)
    assert reports.default_workers() == 1  # most of the other core is busy: draw here
    monkeypatch.setattr(forking, "busy_cores", lambda: 1.4)
    assert reports.default_workers() == 1


def test_busy_cores_reads_the_cpu_time_spent_meanwhile(monkeypatch):
    ticks = iter([(1000, 600), (1100, 625)])  # 100 ticks, 25 of them idle
    monkeypatch.setattr(forking, "_cpu_ticks", lambda: next(ticks))
    monkeypatch.setattr(forking.os, "cpu_count", lambda: 4)
    assert forking.busy_cores(0.0) == pytest.approx(3.0)  # three quarters of 4 cores

    def unreadable():
        raise OSError("no /proc")

    monkeypatch.setattr(forking, "_cpu_ticks", unreadable)
    monkeypatch.setattr(forking.os, "getloadavg", lambda: (1.25, 0.0, 0.0), raising=False)
    assert forking.busy_cores(0.0) == 1.25


@pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="Linux only")
def test_cpu_ticks_read_proc_stat():
    total, idle = forking._cpu_ticks()
    assert total > idle >= 0
    assert 0.0 <= forking.busy_cores(0.01) <= (os.cpu_count() or 1)


def test_the_dashboards_png_is_the_bytes_savefig_gives(small_run):
    from ascend_p2p_lab.widgets.render import _png_base64

    _, run = small_run
    plain = io.BytesIO()
    plots.heatmap(run).savefig(plain, format="png")
    assert _png_base64(plots.heatmap(run)) == base64.b64encode(plain.getvalue()).decode()
