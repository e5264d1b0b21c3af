"""``sweep --processes``: every ordered pair measured across processes, beside in-process.

Real jobs run one process per device (torchrun, vLLM-Ascend, MindSpore): the copies that
matter to them cross a process boundary through IPC memory. :func:`sweep_processes`
starts one worker process per device (:mod:`.ipcworker`, as a launcher starts ranks),
each exporting its send and receive buffers to the others (whitelisted by their bare
tgids), and measures each ordered pair twice: a pull (the destination's process imports
the source's buffer and copies from it) and a push (the source's process imports the
destination's buffer and copies into it); the same sizes, samples, calibration and
verification as in-process. The same pairs are also measured in this process (both
initiators), so the rows carry ``process_mode`` ``in_process`` or ``ipc`` side by side.

One pair is measured at a time (no two workers copy at once). A worker that dies or stops
answering costs only its own points (``error_kind`` ``worker_lost``); the others go on.
An interrupt (Ctrl-C) stops the measuring, keeps the rows so far and tears every worker
down in the guide's order; the shared IPC state drops what a dead worker held.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim", "atlas800t-a2") as rt:
    ...     run = sweep_processes(rt, pairs=[(0, 1)], sizes="1MiB", samples=2)
    >>> sorted(set(zip(run.samples.process_mode, run.samples.initiator)))
    [('in_process', 'dst'), ('in_process', 'src'), ('ipc', 'dst'), ('ipc', 'src')]
    >>> bool(run.samples.verified.all())
    True
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..patterns.builtin import one_pair
from ..patterns.model import Test
from ..run import Run, RunMeta, deprecated
from ..runtime import Runtime
from ..schema import to_frame
from ..vocab import DST
from . import outcomes
from .ipcworker import CLOSED, serve
from .meta import new_run_id, run_metadata
from .plan import plan
from .rows import Context
from .spec import SweepSpec, devices_of, make_spec
from .sweep import nominal_rates, row_base, run_tests
from .timing import Sample

#: Seconds to wait for a worker's answer to one command (a point takes well under it).
ANSWER_S = 120.0
#: Seconds a worker gets to tear down before it is terminated.
JOIN_S = 30.0
#: What the process mode measures: one pair at a time, one way.
OPTIONS = {"patterns": one_pair(0, 1).pattern, "direction": "uni", "peer": "on"}


class WorkerLost(RuntimeError):
    """A worker died or did not answer in time."""


class _Worker:
    """The parent's handle on one worker process."""

    def __init__(self, ctx: Any, device: int, rt: Runtime, spec: SweepSpec) -> None:
        self.device = device
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(
            target=serve,
            name=f"ascend-p2p-lab worker {device}",
            daemon=True,
            args=(
                child,
                device,
                rt.backend,
                rt.preset,
                rt.seed,
                max(spec.sizes),
                spec,
                *rt.simulated_server(),
            ),
        )
        self.proc.start()
        child.close()
        self.lost: str | None = None
        self.hello: dict[str, Any] = {}
        self.seq = 0  # the number of the last command sent

    def ask(self, cmd: str, *args: Any, timeout: float = ANSWER_S) -> Any:
        """Send a command (none: wait for the hello); its answer, an ``("error",
        columns)`` pair, or WorkerLost. Answers to earlier commands (left unread by an
        interrupt) are skipped: each answer carries its command's number."""
        if self.lost:
            raise WorkerLost(self.lost)
        if cmd:
            self.seq += 1
        try:
            if cmd:
                self.conn.send((self.seq, cmd, *args))
            while True:
                if not self.conn.poll(timeout):
                    raise WorkerLost(f"worker of device {self.device} did not answer {cmd!r}")
                seq, status, value = self.conn.recv()
                if seq == self.seq or seq == CLOSED:
                    break
        except (EOFError, OSError, BrokenPipeError):
            self.lost = f"worker of device {self.device} died (exit code {self.proc.exitcode})"
            raise WorkerLost(self.lost) from None
        except WorkerLost as exc:
            self.lost = str(exc)
            raise
        if seq == CLOSED:  # it tore down on its own (a failure while starting)
            self.lost = f"worker of device {self.device} stopped"
            raise WorkerLost(self.lost)
        return value if status == "ok" else ("error", value)

    def request_stop(self) -> None:
        """Ask the worker to tear down (every worker is asked before any is waited for:
        they wait for each other's imports to close)."""
        try:
            if self.proc.is_alive():
                self.conn.send((self.seq + 1, "close"))
        except (OSError, ValueError):
            pass

    def stop(self) -> bool | None:
        """Wait for the teardown (terminate if stuck); whether its ledger ended empty."""
        clean = None
        try:
            while self.conn.poll(JOIN_S):
                seq, _status, value = self.conn.recv()
                if seq == CLOSED:
                    clean = value
                    break
        except (EOFError, OSError):
            pass
        self.proc.join(JOIN_S)
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join(JOIN_S)
        self.conn.close()
        return clean


def sweep_processes(
    rt: Runtime,
    pairs: str | Sequence[tuple[int, int]] | None = None,
    sizes: Any = None,
    *,
    in_process: bool = True,
    on_point: Callable[[dict[int, Any]], None] | None = None,
    **options: Any,
) -> Run:
    """Measure each ordered pair across processes (pull and push) and in-process: a
    :class:`~ascend_p2p_lab.run.Run` (an interrupt keeps the rows so far, with
    ``meta.interrupted``).

    Args:
        rt: this process's runtime (its backend, preset and seed are the workers').
        pairs, sizes, **options: as :func:`~.sweep.sweep` (samples, warmup, verify, ...);
            the pattern is ``pair``, one way, peer access on.
        in_process: also measure the same pairs in this process.
        on_point: called with {device: worker process} after each IPC point (tests use
            it to kill a worker).
    """
    if "out" in options:
        raise TypeError(
            "sweep_processes() saves nothing (no out=): save its run with run.save(folder)"
        )
    for name, value in OPTIONS.items():
        if options.get(name, value) != value:
            raise ValueError(f"sweep --processes measures {name}={value} only")
    spec = make_spec(rt, pairs=pairs, sizes=sizes, **{**options, **OPTIONS})
    meta = run_metadata(rt, spec.to_dict()).to_dict()  # the run's metadata, so far
    meta.update(run_id=new_run_id(), interrupted=False, failed=None, process_modes=[])
    rows: list[dict[str, Any]] = []
    try:
        if in_process:
            meta["process_modes"].append("in_process")
            for who in ("dst", "src"):
                mine = replace(spec, initiator=who)
                part = run_tests(rt, plan(rt, mine), mine.sampling)
                rows += part.samples.to_dict("records")
                if part.meta.interrupted:  # Ctrl-C inside run_tests(): stop here
                    raise KeyboardInterrupt
        meta["process_modes"].append("ipc")
        _ipc_rows(rt, spec, rows, on_point, row_base(rt, meta), meta)
    except KeyboardInterrupt:
        meta["interrupted"] = True
    for row in rows:
        row["run_id"] = meta["run_id"]
    return Run(to_frame(rows), RunMeta.from_dict(meta))


def sweep_processes_run(*args: Any, **kwargs: Any) -> Run:
    """Deprecated: :func:`sweep_processes` returns the Run itself."""
    deprecated("sweep_processes_run()", "sweep_processes()")
    return sweep_processes(*args, **kwargs)


def _ipc_rows(
    rt: Runtime,
    spec: SweepSpec,
    rows: list[dict[str, Any]],
    on_point: Callable[[dict[int, Any]], None] | None,
    base: dict[str, Any],
    meta: dict[str, Any],
) -> None:
    """Start the workers, measure every pair both ways, stop them; rows go to ``rows``
    as they are measured (an interrupt keeps them), and whether each worker's ledger ended
    empty to ``meta["workers_clean"]`` (None: it died)."""
    pair_list = list(
        spec.pairs or [(a, b) for a in devices_of(rt, spec) for b in devices_of(rt, spec) if a != b]
    )
    devices = sorted({d for p in pair_list for d in p})
    missing = rt.lacks(["ipc_memory"])
    if missing:  # an older CANN: every IPC point says so, no worker is started
        meta["workers_clean"] = {}
        failure = outcomes.missing_calls(missing)
        for s, d in pair_list:
            for who in ("dst", "src"):
                block = one_pair(s, d, who)
                sink = _sink(rt, spec, base)
                sink.error_rows(block, list(spec.sizes), failure, tick=False)
                rows += sink.rows
        return
    ctx = mp.get_context("fork" if rt.simulated else "spawn")
    workers: dict[int, _Worker] = {}
    clean: dict[str, Any] = {}
    meta["workers_clean"] = clean
    try:
        for d in devices:
            workers[d] = _Worker(ctx, d, rt, spec)
        for w in workers.values():
            _hello(w)
        pids = [w.hello["pid"] for w in workers.values() if w.hello]
        for w in workers.values():
            _try(w, "allow", pids)
        sinks = {who: _sink(rt, spec, base) for who in ("dst", "src")}
        for s, d in pair_list:
            for who in ("dst", "src"):
                _pair(sinks[who], workers, s, d, who, spec, rt)
                rows += sinks[who].rows
                sinks[who].rows.clear()
                if on_point is not None:
                    on_point({dev: w.proc for dev, w in workers.items()})
    finally:
        for w in workers.values():  # every importer closes before any exporter does
            if w.hello:
                _try(w, "close_imports")
        for w in workers.values():
            w.request_stop()
        for dev, w in workers.items():
            clean[str(dev)] = w.stop()


def _sink(rt: Runtime, spec: SweepSpec, base: dict[str, Any]) -> Context:
    """Where one initiator's IPC rows are made (no buffer pool: the workers hold them)."""
    pool: Any = None
    return Context(rt, spec.sampling, pool, {**base, "process_mode": "ipc"}, nominal_rates(rt))


def _hello(w: _Worker) -> None:
    answer = _try(w, "")
    if isinstance(answer, dict):
        w.hello = answer
    elif not w.lost:
        why = answer[1].get("error") if isinstance(answer[1], dict) else answer[1]
        w.lost = f"worker of device {w.device} could not start: {why}"


def _try(w: _Worker, cmd: str, *args: Any) -> Any:
    try:
        return w.ask(cmd, *args)
    except WorkerLost as exc:
        return ("lost", str(exc))


def _pair(
    sink: Context,
    workers: dict[int, _Worker],
    s: int,
    d: int,
    who: str,
    spec: SweepSpec,
    rt: Runtime,
) -> None:
    """Every size of one ordered pair, pulled (who == "dst") or pushed, across processes."""
    block = one_pair(s, d, who)
    issuer, other = (workers[d], workers[s]) if who == DST else (workers[s], workers[d])
    for size in spec.sizes:
        before = len(sink.rows)
        failure = _point(sink, block, issuer, other, who, size, spec)
        if failure is not None:
            sink.error_rows(block, [size], failure, tick=False)
        for row in sink.rows[before:]:
            row["process_mode"] = "ipc"


def _point(
    sink: Context,
    block: Test,
    issuer: _Worker,
    other: _Worker,
    who: str,
    size: int,
    spec: SweepSpec,
) -> outcomes.Failure | None:
    """One size of one pair; the failure that replaces its samples, or None."""
    for w in (issuer, other):
        if w.lost or not w.hello:
            return outcomes.worker_lost(w.lost or "worker not started")
    try:
        if who == DST:
            got = issuer.ask("measure", "pull", other.device, other.hello["send"], size)
        else:
            if spec.verify:
                _ok(other.ask("clear", size))
            got = issuer.ask("measure", "push", other.device, other.hello["recv"], size)
            if isinstance(got, dict) and spec.verify:
                got["verified"] = _ok(other.ask("verify", issuer.device, size))
    except WorkerLost as exc:
        return outcomes.worker_lost(str(exc))
    except _Refused as exc:
        return exc.failure
    if not isinstance(got, dict):
        return _columns_failure(got)
    sink.emit(block, size, [Sample(t, (t,)) for t in got["timings"]], [got["verified"]])
    return None


class _Refused(Exception):
    def __init__(self, failure: outcomes.Failure) -> None:
        self.failure = failure


def _ok(answer: Any) -> Any:
    if isinstance(answer, tuple) and answer and answer[0] == "error":
        raise _Refused(_columns_failure(answer))
    return answer


def _columns_failure(answer: Any) -> outcomes.Failure:
    cols = answer[1] if isinstance(answer, tuple) else {}
    return outcomes.Failure(
        cols.get("error_kind") or "runtime",
        cols.get("error") or "",
        cols.get("error_code"),
        cols.get("error_call"),
    )
