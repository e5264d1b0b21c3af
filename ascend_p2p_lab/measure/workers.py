"""A sweep's tests in forked worker processes, on the simulator only.

A simulated server is a Python object: a forked worker holds its own copy, and since
every point starts at the clock's origin with its own jitter draws
(``Runtime.begin_point``), a test gives the same rows in a worker as in the sweep's own
process, to the bit (``tests/measure/test_workers.py`` checks it). So ``sweep(workers=2)``
on a 2-core machine simulates two tests at a time. On hardware copies that run at once
disturb each other, and with injected faults a worker cannot see what another's faults
did (a lost device, the n-th call), so :func:`may_fork` says no there.

Workers take the next block from a shared counter, run it as the sweep would
(``run_test``, the executor) and send its rows back; the sweep's process keeps the progress bar, the
checkpoint and ``on_block`` as the tests arrive, and puts the rows in plan order.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim", "atlas800t-a2", announce=False) as rt:
    ...     may_fork(rt, 2), may_fork(rt, 1)
    (True, False)
"""

from __future__ import annotations

import multiprocessing
import os
import queue
from collections.abc import Callable, Sequence
from typing import Any

from ..forking import can_fork, ctrl_c_deferred
from ..patterns.model import Test
from ..runtime import AclError, MissingCall, Runtime
from .rows import Context

#: What the sweep's process does with a test that came back: (index, completed, rows).
Arrived = Callable[[int, bool, list[dict[str, Any]]], None]
#: Exceptions a worker sends to the sweep's process as they are (others: as text):
#: pyACL's errors and their subclasses (they pickle as themselves), and these exact types.
SENT_AS_IS = (KeyboardInterrupt, ValueError, TypeError, OSError, RuntimeError)
#: How long the sweep's process waits for a message before it checks its workers.
POLL_S = 0.5


class WorkerDied(RuntimeError):
    """A worker process ended without saying it was done (killed, or crashed)."""


def may_fork(rt: Runtime, workers: int) -> bool:
    """Whether tests may run in ``workers`` forked processes: more than one asked for,
    the simulator with no injected faults (``rt.forkable``), and a process that may
    fork (:func:`~ascend_p2p_lab.forking.can_fork`)."""
    return workers > 1 and rt.forkable and can_fork()


def check_workers(workers: Any) -> int:
    """The workers argument of a sweep, checked: a whole number of at least 1.

    Example: ``check_workers(2)`` -> 2; ``check_workers(0)`` raises ValueError.
    """
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a whole number of at least 1, got {workers!r}")
    return workers


def run_in_workers(
    ctx: Context,
    todo: Sequence[Test],
    workers: int,
    run_test: Callable[[Context, Test], bool],
    arrived: Arrived,
) -> None:
    """Run ``todo`` in ``workers`` forked processes; ``arrived(i, completed, rows)`` for
    each test as it comes back; ctx.rows gets every test's rows in todo's order.

    A worker's failure that no row can carry is raised here once the other workers have
    finished the tests they hold (no new test is dealt), so the rows of every test dealt
    before the failing one are in ctx.rows, as in one process; a worker's
    KeyboardInterrupt likewise. An interrupt of the sweep's own process stops the workers.
    """
    fork = multiprocessing.get_context("fork")
    counter, results = fork.Value("i", 0), fork.Queue()
    procs = [
        fork.Process(target=_work, args=(k, ctx, todo, run_test, counter, results), daemon=True)
        for k in range(min(workers, len(todo)))
    ]
    got: dict[int, list[dict[str, Any]]] = {}
    try:
        with ctrl_c_deferred():  # the workers never take Ctrl-C; this process does
            for p in procs:
                p.start()
        _collect(procs, results, got, ctx, todo, arrived)
    finally:
        for p in procs:
            if p.is_alive():
                p.terminate()
            p.join()
        ctx.rows.extend(row for i in sorted(got) for row in got[i])


def _collect(
    procs: list[Any],
    results: Any,
    got: dict[int, list[dict[str, Any]]],
    ctx: Context,
    todo: Sequence[Test],
    arrived: Arrived,
) -> None:
    """Take the workers' messages until each has said it is done or raised; then raise
    what the earliest failing test raised (once one raises, no new test is dealt); and
    WorkerDied at once for a worker that ended without saying either."""
    finished: set[int] = set()
    suspects: set[int] = set()
    failures: dict[int, BaseException] = {}
    while len(finished) < len(procs):
        try:
            kind, *body = results.get(timeout=POLL_S)
        except queue.Empty:
            # a worker flushes its messages before it ends: one that has ended and still
            # said nothing after one more wait never will
            dead = {k for k, p in enumerate(procs) if k not in finished and not p.is_alive()}
            if dead & suspects:
                code = procs[min(dead & suspects)].exitcode
                raise WorkerDied(
                    f"a simulator worker ended (exit code {code}) before its tests were done"
                ) from None
            suspects = dead
            continue
        if kind == "block":
            i, completed, rows, sizes = body
            got[i] = rows
            ctx.adopt(todo[i], sizes)
            arrived(i, completed, rows)
        elif kind == "done":
            k, fallbacks, lost = body
            ctx.fallbacks.update(fallbacks)
            ctx.lost.update(lost)
            finished.add(k)
        else:  # "raised": the test's rows so far, then what stopped it
            k, i, rows, sizes, exc = body
            if 0 <= i < len(todo):
                got[i] = rows
                ctx.adopt(todo[i], sizes)
            failures[i] = exc
            finished.add(k)
    if failures:
        raise failures[min(failures)]


def _work(
    k: int,
    ctx: Context,
    todo: Sequence[Test],
    run_test: Callable[[Context, Test], bool],
    counter: Any,
    results: Any,
) -> None:
    """A worker: take the next block, run it, send its rows; finally say done. What stops
    it closes the counter (no block is dealt after it) before it is sent."""
    ctx.bar = None  # the sweep's process keeps the bar
    i, start = -1, len(ctx.rows)
    try:
        while True:
            with counter.get_lock():
                i = counter.value
                counter.value += 1
            if i >= len(todo):
                break
            start = len(ctx.rows)
            completed = run_test(ctx, todo[i])
            results.put(("block", i, completed, ctx.rows[start:], ctx.emitted(todo[i])))
        ctx.pool.close()
        results.put(("done", k, {**ctx.rt.fallbacks, **ctx.fallbacks}, dict(ctx.lost)))
    except BaseException as exc:  # sent to the sweep's process, which raises it
        with counter.get_lock():  # the other workers finish what they hold, and no more
            counter.value = len(todo)
        rows = ctx.rows[start:] if 0 <= i < len(todo) else []
        sizes = ctx.emitted(todo[i]) if 0 <= i < len(todo) else []
        results.put(("raised", k, i, rows, sizes, sendable(exc)))
    finally:
        results.close()
        results.join_thread()
        os._exit(0)  # no atexit, no finalizers: the simulator copy dies with the process


def sendable(exc: BaseException) -> BaseException:
    """exc itself where its type is one the sweep handles (and that crosses a process
    boundary whole), else a RuntimeError that says what it was.

    Example: ``sendable(KeyError("x"))`` -> ``RuntimeError("KeyError: 'x'")``.
    """
    if isinstance(exc, (AclError, MissingCall)) or type(exc) in SENT_AS_IS:
        return exc
    return RuntimeError(f"{type(exc).__name__}: {exc}")
