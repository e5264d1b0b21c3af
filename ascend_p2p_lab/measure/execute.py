"""The one executor: runs any :class:`~ascend_p2p_lab.patterns.model.Test`, as
TransferBench's ``ExecuteTransfers`` runs every preset.

For a test: why it cannot run (waived by the plan, a device lost earlier, a call the
installed pyACL lacks) becomes its rows; otherwise peer access is set as the test needs it
(:mod:`.peerstate`), its streams and buffers are made, and for each size not done yet: the
receive buffers cleared, the sample sized once (:func:`.timing.calibrate`), the samples
taken (:class:`.timing.Streams`, the only code that issues timed copies), the bytes that
arrived checked, the rows written (:class:`.rows.Context`). A direct copy the runtime
refuses with peer access off is the point's result; another failure is recorded on the
test's remaining points, and a device the failure says is lost is skipped from then on.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> from ascend_p2p_lab.measure import sweep
    >>> from ascend_p2p_lab.patterns import make_test
    >>> with open_runtime("sim", "atlas800t-a2") as rt:
    ...     run = sweep(rt, tests=[make_test("t", ["0->1", "2->3 by 2"], 8)],
    ...                 sizes="1MiB", samples=1, progress=False)
    >>> run.samples[["test", "transfer", "src", "dst", "initiator"]].values.tolist()
    [['t', 0, 0, 1, 'dst'], ['t', 1, 2, 3, 'src'], ['t', <NA>, <NA>, <NA>, <NA>]]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..patterns.dielink import lanes
from ..patterns.model import PHASES, STAGED, SUM, SUM_PER_DIRECTION, Test, Transfer, needs
from ..runtime import AclError, MissingCall
from ..runtime.dielink import die_link_view
from ..runtime.resources import close_all
from ..vocab import DIE_HCCS, DIRECT, REFUSED, UNREACHABLE
from . import outcomes
from .buffers import HOST
from .peerstate import PeerRestoreError, peer_state
from .phasebuffers import PhaseBuffers
from .timing import STAGED_FALLBACK, Sample, Streams, calibrate

if TYPE_CHECKING:
    from .rows import Context


def run_test(ctx: Context, test: Test) -> bool:
    """Run one test, recording what went wrong as rows; whether it completed.

    A test that cannot be measured (waived, a device lost earlier, a pyACL call missing)
    gets its rows without touching a device. A failing test records the failure on its
    remaining points; if the failure says a device is lost, the device is checked, and
    later tests on it are skipped instead of failing call after call.
    """
    failure = test.waived or _lost_device(ctx, test)
    if failure is None:
        missing = ctx.rt.lacks(needs(test, ctx.sampling.timing, ctx.sampling.verify))
        failure = outcomes.missing_calls(missing) if missing else None
    if failure is not None:
        ctx.error_rows(test, ctx.remaining(test), failure)
        return failure.kind in (UNREACHABLE,)
    try:
        with peer_state(ctx.rt, test):
            measure_test(ctx, test)
    except PeerRestoreError as exc:
        ctx.error_rows(test, ctx.remaining(test), outcomes.from_exception(exc))
        raise
    except (AclError, MissingCall, ValueError) as exc:
        remaining = ctx.remaining(test)
        if not remaining:
            raise  # every point has its rows: nowhere to record it, so stop
        failure = outcomes.from_exception(exc)
        ctx.error_rows(test, remaining, failure)
        if isinstance(exc, AclError) and exc.device_lost:
            _check_devices(ctx, test, failure)
        return False
    return True


def measure_test(ctx: Context, test: Test) -> None:
    """Every size of a test: clear, size the sample, take the samples, verify, emit."""
    rt, spec, pool = ctx.rt, ctx.sampling, ctx.pool
    streams = Streams(rt, test, spec.timing)
    bufs: _Buffers | PhaseBuffers | None = None
    try:
        if test.timing == PHASES:  # a collective: its buffers, filled; verified by origin
            bufs = streams.phases.buffers = PhaseBuffers(rt, test.program)  # type: ignore
        else:
            bufs = _Buffers(ctx, test)
        plans = bufs.plans
        if test.timing == STAGED:
            streams.staging = pool.staging()
            if streams.missing_wait:
                ctx.fallbacks[streams.missing_wait[0]] = STAGED_FALLBACK
        for size in ctx.sizes_todo(test):
            for dst_buf, _ in plans:
                pool.clear(dst_buf, size)

            def measure(n: int, size: int = size) -> Sample:
                return streams.sample(plans, size, n)

            try:
                copies = calibrate(measure, spec.warmup, spec.min_sample_us, spec.max_copies)
                samples = [measure(copies) for _ in range(spec.samples)]
            except AclError as exc:  # peer access off: what the runtime does is data
                refused = outcomes.direct_copy_failure(exc)
                if test.path != DIRECT or refused.kind != REFUSED:
                    raise
                ctx.error_rows(test, [size], refused, tick=False)
                continue
            verified = (
                [bufs.verify(streams.phases.runs) if spec.verify else None]
                if isinstance(bufs, PhaseBuffers) and streams.phases is not None
                else _verify(ctx, test, plans, size)
            )
            ctx.emit(test, size, samples, verified)
    finally:
        streams.close()
        if bufs is not None:
            bufs.close()


class _Buffers:
    """The buffers of a test's transfers, in its order: the pool's per-device ones (a
    receive slot per transfer into one device), and extra pinned host buffers when
    several transfers write into host memory (freed at the end of the test)."""

    def __init__(self, ctx: Context, test: Test) -> None:
        self.ctx, self.extra = ctx, []  # type: ignore[var-annotated]
        self.plans: list[tuple[Any, Any]] = []
        into: dict[int | None, int] = {}
        try:
            for t in test.transfers:
                slot = into.get(t.dst, 0) if not test.die_link else 0  # both parts: one buffer
                into[t.dst] = slot + 1
                src = self._src(t)
                self.plans.append((self._dst(t, slot), src))
            for k, lane in enumerate(lanes(test)):  # the HCCS lane: through a mapping
                if lane == DIE_HCCS:
                    self.plans[k] = self._over_hccs(test.transfers[k], *self.plans[k])
        except BaseException:
            self.close()
            raise

    def _src(self, t: Transfer) -> Any:
        return self.ctx.pool.host_send() if t.src is None else self.ctx.pool.send(t.src)

    def _dst(self, t: Transfer, slot: int) -> Any:
        pool = self.ctx.pool
        if t.dst is not None:
            return pool.recv(t.dst, slot=slot)
        if slot == 0:
            return pool.host_recv()
        buf = self.ctx.rt.host_buffer(pool.max_size)
        self.extra.append(buf)
        return buf

    def _over_hccs(self, t: Transfer, dst: Any, src: Any) -> tuple[Any, Any]:
        """(dst, src) of a copy over the twin-die HCCS lane: the far buffer (the one not
        on the initiator) as the initiator maps it through the lane (runtime.dielink)."""
        far_is_src = t.by == t.dst
        view = die_link_view(self.ctx.rt, src if far_is_src else dst, t.by, "hccs")
        self.extra.insert(0, view)  # unmapped before any buffer it maps is freed
        return (dst, view) if far_is_src else (view, src)

    def close(self) -> None:
        close_all(self.extra)
        self.extra = []


def _verify(ctx: Context, test: Test, plans: list[tuple[Any, Any]], size: int) -> list[bool | None]:
    """Whether each transfer's destination holds its source's bytes (None: not checked).
    For a test whose rows are aggregates, a direction stops at its first bad transfer:
    its verdict is known."""
    if not ctx.sampling.verify:
        return [None] * len(test.transfers)
    aggregate = test.values in (SUM, SUM_PER_DIRECTION)
    out: list[bool | None] = []
    bad: set[int] = set()
    for k, (t, (dst_buf, _src)) in enumerate(zip(test.transfers, plans)):
        way = test.direction_of(k) if aggregate else k
        if way in bad:
            out.append(None)
            continue
        ok = ctx.pool.verify(dst_buf, HOST if t.src is None else t.src, size)
        if not ok and aggregate:
            bad.add(way)
        out.append(ok)
    return out


def _lost_device(ctx: Context, test: Test) -> outcomes.Failure | None:
    for dev in test.devices:
        if dev in ctx.lost:
            return outcomes.device_lost(dev, ctx.lost[dev])
    return None


def _check_devices(ctx: Context, test: Test, cause: outcomes.Failure) -> None:
    """After a device-lost code: which of the test's devices no longer take work."""
    for dev in test.devices:
        if dev not in ctx.lost:
            exc = ctx.rt.device_error(dev)
            if exc is not None and exc.device_lost:
                ctx.lost[dev] = cause
