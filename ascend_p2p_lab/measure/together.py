"""Running a test: its transfers at once, each on its initiator's stream, one window.

Every stream waits for a lead stream's start event, records its own start, enqueues its
copies and records its end; the lead waits for every end and records the window's end
(nvbandwidth's total-window method). A transfer's value is its bytes over its own time;
the test's aggregate is the bytes of every transfer over the window, so that it equals
the sum of what the transfers moved in that window.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> from ascend_p2p_lab.measure import sweep
    >>> from ascend_p2p_lab.measure.transfers import make_test
    >>> with open_runtime("sim", "atlas800t-a2") as rt:
    ...     run = sweep(rt, tests=[make_test("t", ["0->1", "2->3 by 2"], 8)],
    ...                 sizes="1MiB", samples=1, progress=False)
    >>> run[["test", "transfer", "src", "dst", "initiator"]].values.tolist()
    [['t', 0, 0, 1, 'dst'], ['t', 1, 2, 3, 'src'], ['t', <NA>, <NA>, <NA>, <NA>]]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..runtime import AclError, HostBuffer, Runtime
from ..runtime.resources import close_all
from . import outcomes
from .copyengine import HOST, Timer, Timing, copies_for

if TYPE_CHECKING:
    from .plan import Block
    from .rows import Context
    from .transfers import Test, Transfer


@dataclass(frozen=True)
class Window:
    """One sample of a test: the window of all its copies, and each transfer's own."""

    window: Timing
    each: tuple[Timing, ...]


def sample_transfers(rt: Runtime, lead: Timer, timers: list[Timer],
                     plans: list[tuple[Any, Any]], size: int, n: int) -> Window:
    """n copies of size bytes on each timer's stream at once (plans: (dst, src) each)."""
    lead.start.record(lead.stream)
    host_ns = []
    for timer, (dst, src) in zip(timers, plans):
        rt.wait_event(timer.stream, lead.start)
        timer.start.record(timer.stream)
        host_ns.append(rt.enqueue_copies(dst, src, size, timer.stream, n))
        timer.end.record(timer.stream)
    for timer in timers:
        rt.wait_event(lead.stream, timer.end)
    lead.end.record(lead.stream)
    window_us = rt.elapsed_ms(lead.start, lead.end) * 1000.0
    each = tuple(Timing(n, rt.elapsed_ms(t.start, t.end) * 1000.0, ns / 1000.0)
                 for t, ns in zip(timers, host_ns))
    return Window(Timing(n * len(timers), window_us, sum(host_ns) / 1000.0), each)


class _Buffers:
    """The buffers of a test's transfers: the pool's per-device ones (a receive slot per
    transfer into one device), and extra pinned host buffers when several transfers
    write into host memory (freed at the end of the block)."""

    def __init__(self, ctx: Context, test: Test) -> None:
        self.ctx, self.extra = ctx, []  # type: ignore[var-annotated]
        self.plans: list[tuple[Any, Any]] = []
        into: dict[int | None, int] = {}
        for t in test.transfers:
            slot = into.get(t.dst, 0)
            into[t.dst] = slot + 1
            self.plans.append((self._dst(t, slot), self._src(t)))

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

    def close(self) -> None:
        close_all(self.extra)


def run_test(ctx: Context, block: Block) -> None:
    """A test's transfers at once, every size: one row per transfer per sample and an
    aggregate row per sample (see :meth:`~.rows.Context.emit_test`)."""
    test = block.test
    assert test is not None
    rt, spec = ctx.rt, ctx.spec
    made: list[Timer] = []
    bufs: _Buffers | None = None
    try:
        made.append(Timer(rt, rt.stream(test.transfers[0].by)))
        made.extend(Timer(rt, rt.stream(t.by)) for t in test.transfers)
        lead, timers = made[0], made[1:]
        bufs = _Buffers(ctx, test)
        plans = bufs.plans
        for size in ctx.sizes_todo(block):
            for dst_buf, _ in plans:
                ctx.pool.clear(dst_buf, size)

            def measure(n: int, size: int = size) -> Window:
                return sample_transfers(rt, lead, timers, plans, size, n)

            try:
                copies = _calibrate(measure, spec)
                windows = [measure(copies) for _ in range(spec.samples)]
            except AclError as exc:  # peer access not held: what the runtime does is data
                refused = outcomes.direct_copy_failure(exc)
                if block.path != "direct" or refused.kind != "refused":
                    raise
                ctx.error_rows(block, [size], refused, tick=False)
                continue
            verified = [_verify(ctx, t, d, size) for t, (d, _s) in zip(test.transfers, plans)]
            ctx.emit_test(block, size, windows, verified)
    finally:
        close_all(made)
        if bufs is not None:
            bufs.close()


def _calibrate(measure: Callable[[int], Window], spec: Any) -> int:
    """Warm up, then copies per transfer so that the window spans ``min_sample_us``."""
    warm = measure(max(spec.warmup, 1))
    rounds = warm.window.copies // len(warm.each)  # copies per transfer
    return copies_for(warm.window.elapsed_us / rounds, spec.min_sample_us, spec.max_copies)


def _verify(ctx: Context, t: Transfer, dst_buf: Any, size: int) -> bool | None:
    """Whether the transfer's destination holds its source's bytes (None: not checked)."""
    if not ctx.spec.verify:
        return None
    source = HOST if t.src is None else t.src
    assert isinstance(dst_buf, HostBuffer) or t.dst is not None
    return ctx.pool.verify(dst_buf, source, size)
