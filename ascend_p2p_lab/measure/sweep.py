"""The engine's API, TransferBench's: :func:`~.plan.plan` (spec -> tests) and
:func:`run_tests` (tests, sampling -> a Run); :func:`sweep` is the one after the other.

The parts have their own modules: :mod:`.spec` (parameters), :mod:`.plan` (the tests,
from the built-in declarations), :mod:`.execute` (the one executor: runs any test),
:mod:`.rows` (rows and formulas), :mod:`.checkpoint` (resuming) and :mod:`.workers`
(tests in forked processes on the simulator). :func:`run_tests` runs them in order.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim", preset="atlas800t-a2") as rt:
    ...     run = sweep(rt, pairs=[(0, 1)], sizes="4KiB:16KiB", samples=2, progress=False)
    >>> run.samples[["src", "dst", "size_bytes", "sample", "path"]].head(2).values.tolist()
    [[0, 1, 4096, 0, 'p2p'], [0, 1, 4096, 1, 'p2p']]
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..patterns.model import Test
from ..run import Run, RunMeta, deprecated
from ..runtime import AclError, Runtime
from ..schema import to_frame
from .buffers import BufferPool
from .checkpoint import Checkpoint, jsonable_rows, restore_rows
from .execute import run_test
from .meta import new_run_id, run_metadata
from .plan import check_memory, plan
from .rows import Context
from .spec import Sampling, SweepSpec, check_spec, make_spec
from .workers import check_workers, may_fork, run_in_workers


@dataclass(frozen=True)
class BlockDone:
    """What ``on_block`` gets after each test: the test (``block``), its rows, and how
    far along."""

    block: Test
    rows: pd.DataFrame
    done: int
    total: int


def sweep(
    rt: Runtime,
    pairs: str | Sequence[tuple[int, int]] | None = None,
    sizes: Any = None,
    *,
    spec: SweepSpec | None = None,
    progress: bool = True,
    checkpoint: str | os.PathLike[str] | None = None,
    on_block: Callable[[BlockDone], None] | None = None,
    workers: int = 1,
    **options: Any,
) -> Run:
    """Measure device-to-device copies at every size: a :class:`~ascend_p2p_lab.run.Run`
    of one row per sample and the run's metadata.

    Args:
        pairs, sizes, **options: the sweep's parameters, as :func:`~.spec.make_spec`
            takes them: ``direction`` (uni, bi, both), ``peer`` (on, off, both, current),
            ``initiator`` (dst pulls, the default; src pushes), ``samples``, ``warmup``,
            ``patterns`` (pair, local, one_to_all, all_to_one, latency: time per copy,
            ``latency_us``, 4 bytes when no sizes are given; h2d, d2h: pinned host memory
            to or from each device; group with ``groups="0,1:2,3"``; card), ``timing``
            (events, host), ``min_sample_us``, ``max_copies``, ``verify``, ``host_bound_ratio``.
        spec: a :class:`~.spec.SweepSpec` instead (checked against rt); progress: tqdm.
        checkpoint: a file that records each finished block; rerunning with the same
            parameters skips those blocks (a failed one is measured again); other
            parameters are refused. When it holds every block, the run's
            ``meta.finished_checkpoint`` names it, and saving the run removes it.
        on_block: called with a :class:`BlockDone` after each block (live views, progress);
            its rows carry the run's metadata as far as it is known.
        workers: on the simulator without faults, run the blocks in this many forked
            processes (:mod:`.workers`: the same rows, to the bit, in the same order).

    Nothing is written: save the run with ``run.save(folder)``
    (:func:`ascend_p2p_lab.run.save`).

    An interrupt (KeyboardInterrupt) stops the sweep and returns what was measured,
    with ``meta.interrupted``. A failing block records its failure in the error columns
    of its remaining points and the sweep goes on. An error no row can carry (peer access
    that cannot be restored, a release that fails after a block's last point) stops the
    sweep: it is raised with the run so far in ``exc.partial_run``. In every case the
    sweep's buffers, streams, events and peer enables are released. A runtime failure
    before the first block (checking the arguments, planning) raises with an empty
    partial run; an interrupt there propagates.
    """
    if "out" in options:
        raise TypeError("sweep() saves nothing (no out=): save its run with run.save(folder)")
    _check_args(checkpoint, workers)  # bad arguments: ValueError before any device work
    with _before_start():
        spec = _spec(rt, spec, pairs, sizes, options)
        tests = plan(rt, spec)
    return run_tests(
        rt,
        tests,
        spec.sampling,
        params=spec.to_dict(),
        progress=progress,
        checkpoint=checkpoint,
        on_block=on_block,
        workers=workers,
    )


def run_tests(
    rt: Runtime,
    tests: Sequence[Test],
    sampling: Sampling,
    *,
    params: Mapping[str, Any] | None = None,
    progress: bool = False,
    checkpoint: str | os.PathLike[str] | None = None,
    on_block: Callable[[BlockDone], None] | None = None,
    workers: int = 1,
) -> Run:
    """Run the tests, in order, at the sampling's sizes (a test's own sizes first): the
    engine's one entry (TransferBench's ``RunTransfers``), a
    :class:`~ascend_p2p_lab.run.Run` of their rows. ``params`` go into the run's metadata
    and identify a checkpoint (:func:`sweep` gives its spec's); the other arguments and
    what goes wrong are as :func:`sweep` says. The devices must have room for the tests'
    buffers at the largest size (ValueError before anything is allocated).

    Example:
        >>> from ascend_p2p_lab.runtime import open_runtime
        >>> from ascend_p2p_lab.patterns import make_test
        >>> with open_runtime("sim", "atlas800t-a2") as rt:
        ...     run = run_tests(rt, [make_test("t", ["3->1"], 8)], Sampling((1 << 20,), 1))
        >>> run.samples[["test", "transfer", "src", "dst"]].values.tolist()  # and the aggregate
        [['t', 0, 3, 1], ['t', <NA>, <NA>, <NA>]]
    """
    workers = _check_args(checkpoint, workers)
    with _before_start():
        check_memory(rt, sampling.sizes, tests)
        meta = run_metadata(rt, params).to_dict()  # the run's metadata, so far
    meta.update(run_id=new_run_id(), interrupted=False, failed=None, blocks=len(tests))
    ckpt, done_blocks, resumed = _resume(rt, params, checkpoint, meta)
    sizes = sampling.sizes
    pool = BufferPool(rt, max(sizes))
    ctx = Context(rt, sampling, pool, row_base(rt, meta), nominal_rates(rt), _cpu_affinity(rt))
    ctx.done = {(k, s) for k in done_blocks for s in sizes}
    todo = [b for b in tests if b.key not in done_blocks]
    if progress:
        from tqdm.auto import tqdm
    bar = ctx.bar = (
        tqdm(total=len(todo) * len(sizes), desc="sweep", unit="pt") if progress else None
    )
    failure = _run_blocks(ctx, todo, ckpt, _with_meta(on_block, meta), meta, workers)
    if bar is not None:
        bar.close()
    meta["points"] = len(tests) * len(sizes)  # those asked for, and those left
    meta["points_not_reached"] = sum(len(ctx.remaining(b)) for b in tests)
    meta["fallbacks"] = {**rt.fallbacks, **ctx.fallbacks}  # the runtime's and the sweep's
    meta["lost_devices"] = {str(d): f.message for d, f in sorted(ctx.lost.items())}
    release_failure = _release(pool, meta)  # always, also after a failure
    failure = failure or release_failure
    if ckpt is not None and {b.key for b in tests} <= ckpt.keys:
        meta["finished_checkpoint"] = str(ckpt.path)  # whole: saving the run removes it
    run = Run(to_frame([*resumed, *ctx.rows]), RunMeta.from_dict(meta))
    if failure is not None:
        _attach(failure, run)
        raise failure
    return run


def _check_args(checkpoint: str | os.PathLike[str] | None, workers: Any) -> int:
    """The checkpoint a file name (not a folder) and the workers a count: ValueError."""
    if checkpoint is not None and Path(checkpoint).is_dir():
        raise ValueError(f"checkpoint {checkpoint} is a folder; give a file name")
    return check_workers(workers)


@contextmanager
def _before_start() -> Iterator[None]:
    """A runtime failure before the first point (checking, planning, the metadata) is
    raised with an empty partial run."""
    try:
        yield
    except AclError as exc:
        _attach(exc, Run(to_frame([]), RunMeta(failed=f"{type(exc).__name__}: {exc}")))
        raise


def _attach(exc: BaseException, run: Run) -> None:
    """The run so far on the exception that stopped it, as ``partial_run`` (and, for one
    release, as ``partial_frame``: the same Run, whose DataFrame use warns)."""
    exc.partial_run = run  # type: ignore[attr-defined]
    exc.partial_frame = run  # type: ignore[attr-defined]


def sweep_run(*args: Any, **kwargs: Any) -> Run:
    """Deprecated: :func:`sweep` returns the :class:`~ascend_p2p_lab.run.Run` itself."""
    deprecated("sweep_run()", "sweep()")
    return sweep(*args, **kwargs)


def _with_meta(
    on_block: Callable[[BlockDone], None] | None, meta: dict[str, Any]
) -> Callable[[BlockDone], None] | None:
    """on_block, given each block's rows with the run's metadata as far as it is known."""
    if on_block is None:
        return None

    def call(event: BlockDone) -> None:
        rows = Run(event.rows, RunMeta.from_dict(meta)).frame()
        on_block(dataclasses.replace(event, rows=rows))

    return call


def _release(pool: BufferPool, meta: dict[str, Any]) -> BaseException | None:
    """Free the sweep's buffers; a failure is noted in meta (unless an earlier one is)
    and returned; an interrupt meanwhile marks the run interrupted."""
    try:
        pool.close()
    except KeyboardInterrupt:
        meta["interrupted"] = True
    except Exception as exc:
        meta["failed"] = meta["failed"] or f"{type(exc).__name__}: {exc}"
        return exc
    return None


def _run_blocks(
    ctx: Context,
    todo: list[Test],
    ckpt: Checkpoint | None,
    on_block: Callable[[BlockDone], None] | None,
    meta: dict[str, Any],
    workers: int = 1,
) -> BaseException | None:
    """Run the blocks in order (or in ``workers`` forked processes on the simulator,
    where :func:`.workers.may_fork` allows); an interrupt or an error no row can carry
    stops them (it is noted in meta; the error is returned)."""
    done = 0

    def finished(block: Test, completed: bool, rows: list[dict[str, Any]]) -> None:
        nonlocal done
        done += 1
        if ckpt is not None and completed:
            ckpt.append(block, jsonable_rows(rows))
        if on_block is not None:
            on_block(BlockDone(block, to_frame(rows), done, len(todo)))

    try:
        if may_fork(ctx.rt, workers) and len(todo) > 1:
            meta["workers"] = min(workers, len(todo))
            run_in_workers(
                ctx,
                todo,
                workers,
                run_test,
                lambda i, completed, rows: finished(todo[i], completed, rows),
            )
            return None
        for block in todo:
            start = len(ctx.rows)
            completed = run_test(ctx, block)
            finished(block, completed, ctx.rows[start:])
    except KeyboardInterrupt:
        meta["interrupted"] = True
    except BaseException as exc:
        meta["failed"] = f"{type(exc).__name__}: {exc}"
        return exc
    return None


def _resume(
    rt: Runtime,
    params: Mapping[str, Any] | None,
    checkpoint: str | os.PathLike[str] | None,
    meta: dict[str, Any],
) -> tuple[Checkpoint | None, set[str], list[dict[str, Any]]]:
    """The checkpoint (None without one), the blocks it holds and their rows."""
    if checkpoint is None:
        return None, set(), []
    ckpt = Checkpoint(
        checkpoint,
        {
            "params": dict(params or {}),
            "backend": rt.backend,
            "preset": rt.preset,
            "seed": rt.info.seed,
        },
    )
    done_blocks, rows = ckpt.load()
    resumed = restore_rows(rows)
    try:
        to_frame(resumed)
    except (ValueError, TypeError) as exc:
        raise ValueError(
            f"checkpoint {checkpoint}: its rows do not fit the schema ({exc})"
        ) from None
    meta["resumed_blocks"] = len(done_blocks)
    return ckpt, done_blocks, resumed


def row_base(rt: Runtime, meta: dict[str, Any]) -> dict[str, Any]:
    """The columns every row of the run shares: which run, backend, server, host."""
    return {
        "run_id": meta["run_id"],
        "backend": rt.backend,
        "preset": rt.preset,
        "host": meta["hostname"],
    }


def nominal_rates(rt: Runtime) -> dict[str, float]:
    """Nominal GB/s per link class, from the topology the runtime knows (if any)."""
    topo = rt.topology
    return (
        {name: lc.nominal_GBps for name, lc in topo.link_classes.items()}
        if topo is not None
        else {}
    )


def _cpu_affinity(rt: Runtime) -> dict[int, str]:
    """Device -> the CPUs npu-smi names for it ("0-23"), from the topology the runtime
    knows (a preset, or npu-smi text); devices without one are left out."""
    topo = rt.topology
    found = getattr(topo, "cpu_affinity", None) or ()
    return {dev: cpus for dev, cpus in enumerate(found) if cpus}


def _spec(
    rt: Runtime, spec: SweepSpec | None, pairs: Any, sizes: Any, options: Mapping[str, Any]
) -> SweepSpec:
    """The sweep's spec: the one given (checked against rt), or one made from arguments."""
    if spec is None:
        return make_spec(rt, pairs, sizes, **options)
    if not isinstance(spec, SweepSpec):
        raise TypeError(f"spec must be a SweepSpec, got {type(spec).__name__}")
    if pairs is not None or sizes is not None or options:
        raise TypeError("give either spec= or the sweep's parameters, not both")
    return check_spec(rt, spec)
