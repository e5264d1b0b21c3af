"""The fast paths of issue 24 give what the plain paths give, exactly.

- ``Runtime.enqueue_staged``: the same pyACL calls, in the same order, with the same
  virtual clock and bytes, as the per-call loop it replaces (memcpy_async, record,
  wait_event, memcpy_async per chunk, device switches included);
- ``sim.engine.Engine._run_linked``: the same start and end times, to 1e-12, as the
  fluid model's loop on streams that share no resource (waits across streams, jitter);
- ``plots.style.save_png`` and ``plots.report(workers=2)``: the same PNG bytes as
  ``savefig`` and as drawing in this process."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import os
import threading

import pytest

from ascend_p2p_lab import forking


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


def test_idle_workers_leave_the_busy_cores_and_a_running_thread_forbids_forking(
    monkeypatch,
) -> None:
    """The docstring's example (2 cores: 0.3 busy -> 2 workers, 1.4 busy -> 1), and one
    worker while a thread of ours runs (a forked child would inherit its locks)."""
    monkeypatch.setattr(forking.os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    monkeypatch.setattr(forking, "can_fork", lambda: True)
    for busy, workers in ((0.3, 2), (1.4, 1)):
        monkeypatch.setattr(forking, "busy_cores", lambda b=busy: b)
        assert forking.idle_workers(8) == workers
    monkeypatch.undo()
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name="not-fork-safe")
    thread.start()
    try:
        assert not forking.can_fork()
    finally:
        stop.set()
        thread.join()
