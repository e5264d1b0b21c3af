"""Worker processes made by ``fork``: whether this process may fork, and how many workers
the machine's idle cores pay for. ``report`` draws its figures in such workers, and a
sweep on the simulator may run its blocks in them (``sweep(workers=N)``).

Example:
    >>> n = idle_workers(4)
    >>> 1 <= n <= 4
    True
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: Threads that may run while this process forks: tqdm's monitor (a sleeping daemon left
#: by a progress bar) takes no lock a forked worker needs.
FORK_SAFE_THREADS = ("tqdm_monitor",)
#: How long :func:`busy_cores` watches the CPUs (seconds).
LOAD_WINDOW_S = 0.03


def can_fork() -> bool:
    """Whether ``fork`` exists here and no other thread runs (a forked child would
    inherit its locks held), but for :data:`FORK_SAFE_THREADS`."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return False
    others = [t for t in threading.enumerate() if t is not threading.current_thread()]
    return all(t.daemon and t.name in FORK_SAFE_THREADS for t in others)


@contextmanager
def ctrl_c_deferred() -> Iterator[None]:
    """Within: Ctrl-C (SIGINT) is noted, and delivered on leaving to the handler there was
    (KeyboardInterrupt, as a rule). Fork workers within it: they keep the noting handler,
    so a Ctrl-C (sent to the terminal's whole process group) prints no worker's
    traceback; the parent takes it and stops them. And a pool is never left half made (a
    pool interrupted while it starts its threads leaves workers that outlive this
    process). Outside the main thread (where no handler may be set): no effect.

    Example::

        with ExitStack() as stack:
            with ctrl_c_deferred():
                pool = stack.enter_context(Pool(2))
            pool.map(...)
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: noted.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if noted:
            signal.raise_signal(signal.SIGINT)


def idle_workers(most: int) -> int:
    """Worker processes for this machine: one per usable core that other work leaves
    idle now (:func:`busy_cores`; at most ``most``, at least 1); 1 where this process
    may not fork (:func:`can_fork`).

    Example: 2 cores, 0.3 of them busy -> 2; 1.4 busy -> 1.
    """
    if not can_fork():
        return 1
    cores = (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    )
    return max(1, min(most, cores, int(cores - busy_cores() + 0.5)))


def busy_cores(window_s: float = LOAD_WINDOW_S) -> float:
    """How many cores other work keeps busy now: the CPU time /proc/stat counts over
    ``window_s`` while this process sleeps (Linux), else the 1-minute load average
    (which also counts the work this process did just before, such as a sweep).

    Example: ``busy_cores()`` -> 0.02 on an idle machine, 1.0 beside one busy process.
    """
    try:
        before = _cpu_ticks()
        time.sleep(window_s)
        after = _cpu_ticks()
    except (OSError, ValueError, IndexError):
        return os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    total, idle = after[0] - before[0], after[1] - before[1]
    return (os.cpu_count() or 1) * (1.0 - idle / total) if total > 0 else 0.0


def _cpu_ticks() -> tuple[int, int]:
    """All CPUs' (total, idle) ticks from /proc/stat's first line (idle with iowait)."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    return sum(fields), fields[3] + fields[4]
