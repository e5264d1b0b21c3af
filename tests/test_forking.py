"""forking: the load read from /proc/stat, the workers it leaves room for, whether this
process may fork, and Ctrl-C while workers are forked."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import os
import signal
import threading
import time

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


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_ctrl_c_waits_within_and_a_worker_forked_there_never_takes_it() -> None:
    """SIGINT inside ctrl_c_deferred is KeyboardInterrupt on leaving it, not before; a
    process forked inside only notes it, and goes on."""
    reached, pid = False, 0
    try:
        with pytest.raises(KeyboardInterrupt), forking.ctrl_c_deferred():
            pid = os.fork()
            if pid == 0:  # the worker: a Ctrl-C taken here ends it at once
                try:
                    time.sleep(30)
                finally:
                    os._exit(0)
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # a signal not deferred is raised by now
            reached = True
        assert reached
        os.kill(pid, signal.SIGINT)
        time.sleep(0.3)
        assert os.waitpid(pid, os.WNOHANG) == (0, 0), "the worker took Ctrl-C"
    finally:
        if pid:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
