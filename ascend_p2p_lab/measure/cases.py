"""Test cases: what one block of a sweep measures, for every size.

A block is one case on one device pair (or one device): P2P unidirectional or
bidirectional, a direct copy with peer access off, the host-staged path, a
device-local copy, all peers of a device at once, the time per copy of small
back-to-back copies (latency), or pinned host memory to or from one device (h2d, d2h:
the two legs of the host-staged path, each alone). Each case takes a
:class:`~ascend_p2p_lab.measure.rows.Context` and emits rows through it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..runtime import AclError
from ..runtime.resources import close_all
from ..schema import (
    CARD_PATTERNS,
    DEVICE_TO_HOST,
    GIVEN_GROUPS,
    HOST_TO_DEVICE,
    LATENCY_PATTERN,
    LOCAL_PATTERN,
    PAIR_PATTERNS,
    PULL_FANOUT,
    PUSH_FANOUT,
    TEST_PATTERN,
)
from . import outcomes
from .copyengine import (
    HOST,
    Timer,
    Timing,
    copies_for,
    sample_bidirectional,
    sample_blocking,
    sample_fanout,
    sample_staged,
)
from .together import run_test

if TYPE_CHECKING:
    from .plan import Block
    from .rows import Context
    from .spec import SweepSpec

#: What a point needs besides the runtime guide's own calls (see runtime.capabilities):
#: clearing a receive buffer before it, and reading it back after (verification).
POINT_NEEDS = ("memset",)
VERIFY_NEEDS = ("pinned_host",)
EVENT_NEEDS = ("async_copy", "event_timing")
#: What the host-staged path does without a stream that waits on an event.
STAGED_FALLBACK = ("the installed pyACL cannot make a stream wait on an event "
                   "(aclrtStreamWaitEvent): each chunk's second leg waits for its first on "
                   "the host (aclrtSynchronizeStream), so the legs do not overlap")


def _refused(ctx: Context, block: Block, size: int, exc: AclError) -> bool:
    """Record a direct copy the runtime refused (peer access off) as the point's result;
    False when the error is not a refusal (a broken device), which the caller raises."""
    failure = outcomes.direct_copy_failure(exc)
    if block.path != "direct" or failure.kind != "refused":
        return False
    ctx.error_rows(block, [size], failure, tick=False)
    return True


def _calibrate(measure: Callable[[int], Timing], warmup: int, spec) -> int:
    """Warm up, then size a sample so that it spans at least ``min_sample_us``.

    A few warm-up copies give a first estimate of the time per copy (pessimistic: the
    first copy of a window also waits for its launch); a trial with that many copies
    corrects it, so samples reach the minimum without overshooting much.
    """
    t = measure(max(warmup, 1))
    copies = copies_for(t.elapsed_us / t.copies, spec.min_sample_us, spec.max_copies)
    if copies > 1 and copies < spec.max_copies:
        trial = measure(copies)
        if trial.elapsed_us < spec.min_sample_us:
            copies = copies_for(trial.elapsed_us / trial.copies, spec.min_sample_us,
                                spec.max_copies)
            copies = min(spec.max_copies, copies + 1)
    return copies


def run_pair_uni(ctx: Context, block: Block) -> None:
    """One ordered pair alone: P2P (peer on) or a direct copy with peer access off."""
    _uni(ctx, block, per_copy=False)


def run_latency(ctx: Context, block: Block) -> None:
    """One ordered pair's time per copy: back-to-back copies of each size on one stream
    (p2pBandwidthLatencyTest's latency), timed as the spec says; the value of a sample
    is ``elapsed_us / copies`` (``latency_us``). Peer off: a direct copy, or staged."""
    if block.path == "staged":
        _run_staged(ctx, block, per_copy=True)
    else:
        _uni(ctx, block, per_copy=True)


def _uni(ctx: Context, block: Block, *, per_copy: bool) -> None:
    """Back-to-back copies of one ordered pair on the initiator's stream, every size."""
    src, dst = block.src, block.dst
    assert src is not None and dst is not None
    initiator_dev = src if ctx.spec.initiator == "src" else dst
    pool = ctx.pool
    _copies(ctx, block, lambda: (pool.send(src), pool.recv(dst)), src, initiator_dev,
            per_copy=per_copy)


def run_host_copy(ctx: Context, block: Block) -> None:
    """Pinned host memory (``aclrtMallocHost``) to one device (h2d) or from it (d2h):
    back-to-back copies on the device's stream, timed as the spec says, every size. The
    bytes that arrive are checked against the host buffer's pattern (h2d) or the
    device's (d2h)."""
    pool = ctx.pool
    if block.pattern == HOST_TO_DEVICE:
        dev = block.dst
        assert dev is not None
        _copies(ctx, block, lambda: (pool.host_send(), pool.recv(dev)), HOST, dev,
                per_copy=False)
    else:
        dev = block.src
        assert dev is not None
        _copies(ctx, block, lambda: (pool.send(dev), pool.host_recv()), dev, dev,
                per_copy=False)


def _copies(ctx: Context, block: Block, bufs: Callable[[], tuple[Any, Any]], source: int,
            on: int, *, per_copy: bool) -> None:
    """Back-to-back copies on device on's stream, every size, from the first of the
    buffers ``bufs()`` gives (made after the stream) into the second; ``source`` is whose
    pattern the destination should then hold."""
    rt, spec, pool = ctx.rt, ctx.spec, ctx.pool
    timer = Timer(rt, rt.stream(on))
    try:
        sbuf, dbuf = bufs()
        for size in ctx.sizes_todo(block):
            pool.clear(dbuf, size)
            if spec.timing == "host":
                def measure(n: int, size: int = size) -> Timing:
                    return sample_blocking(rt, dbuf, sbuf, size, n, on=on)
            else:
                def measure(n: int, size: int = size) -> Timing:
                    return timer.sample(dbuf, sbuf, size, n)
            try:
                copies = _calibrate(measure, spec.warmup, spec)
                timings = [measure(copies) for _ in range(spec.samples)]
            except AclError as exc:
                if _refused(ctx, block, size, exc):  # what the runtime does without peer access
                    continue
                raise
            ok = pool.verify(dbuf, source, size) if spec.verify else None
            ctx.emit_samples(block, size, timings, verified=ok, per_copy=per_copy)
    finally:
        timer.close()


def run_pair_bi(ctx: Context, block: Block) -> None:
    """Both directions of a pair at once; one row per direction per sample."""
    rt, spec, pool = ctx.rt, ctx.spec, ctx.pool
    a, b = block.src, block.dst
    assert a is not None and b is not None
    dev_ab, dev_ba = (a, b) if spec.initiator == "src" else (b, a)
    made: list[Timer] = []
    try:
        made.append(Timer(rt, rt.stream(dev_ab)))
        made.append(Timer(rt, rt.stream(dev_ba)))
        timers = (made[0], made[1])
        plan = ((pool.recv(b), pool.send(a)), (pool.recv(a), pool.send(b)))
        for size in ctx.sizes_todo(block):
            pool.clear(plan[0][0], size)
            pool.clear(plan[1][0], size)
            try:
                # size the sample on the faster direction, so both windows reach the minimum
                warm = [t.sample(d, s, size, max(spec.warmup, 1))
                        for t, (d, s) in zip(timers, plan)]
                per_copy = min(w.elapsed_us / w.copies for w in warm)
                copies = copies_for(per_copy, spec.min_sample_us, spec.max_copies)
                pairs = [sample_bidirectional(rt, timers, plan, size, copies)
                         for _ in range(spec.samples)]
            except AclError as exc:
                if _refused(ctx, block, size, exc):
                    continue
                raise
            ok_ab = pool.verify(plan[0][0], a, size) if spec.verify else None
            ok_ba = pool.verify(plan[1][0], b, size) if spec.verify else None
            ctx.emit_bidirectional(block, size, pairs, (ok_ab, ok_ba))
    finally:
        close_all(made)


def run_pair_staged(ctx: Context, block: Block) -> None:
    """Device -> pinned host -> device, the path a copy takes without P2P."""
    _run_staged(ctx, block, per_copy=False)


def _run_staged(ctx: Context, block: Block, *, per_copy: bool) -> None:
    rt, spec, pool = ctx.rt, ctx.spec, ctx.pool
    src, dst = block.src, block.dst
    assert src is not None and dst is not None
    made: list[Any] = []
    try:
        s_src = rt.stream(src)
        made.append(s_src)
        s_dst = rt.stream(dst)
        made.append(s_dst)
        relay = rt.event(src)
        made.insert(0, relay)
        sbuf, dbuf, host = pool.send(src), pool.recv(dst), pool.staging()
        missing = rt.lacks(["stream_wait"])
        wait_on_device = not missing
        if missing:
            ctx.fallbacks[missing[0]] = STAGED_FALLBACK
        for size in ctx.sizes_todo(block):
            pool.clear(dbuf, size)

            def measure(n: int, size: int = size) -> Timing:
                return sample_staged(rt, (s_src, s_dst), relay, dbuf, host, sbuf, size, n,
                                     wait_on_device=wait_on_device)

            copies = _calibrate(measure, spec.warmup, spec)
            timings = [measure(copies) for _ in range(spec.samples)]
            ok = pool.verify(dbuf, src, size) if spec.verify else None
            ctx.emit_samples(block, size, timings, verified=ok, timing="host",
                             per_copy=per_copy)
    finally:
        close_all(made)  # relay, s_src, s_dst


def run_local(ctx: Context, block: Block) -> None:
    """A copy within one device (the diagonal of the matrix)."""
    rt, spec, pool = ctx.rt, ctx.spec, ctx.pool
    dev = block.src
    assert dev is not None
    timer = Timer(rt, rt.stream(dev))
    try:
        sbuf, dbuf = pool.send(dev), pool.recv(dev)
        for size in ctx.sizes_todo(block):
            pool.clear(dbuf, size)

            def measure(n: int, size: int = size) -> Timing:
                return timer.sample(dbuf, sbuf, size, n)

            copies = _calibrate(measure, spec.warmup, spec)
            timings = [measure(copies) for _ in range(spec.samples)]
            ok = pool.verify(dbuf, dev, size) if spec.verify else None
            ctx.emit_samples(block, size, timings, verified=ok)
    finally:
        timer.close()


def run_fanout(ctx: Context, block: Block) -> None:
    """one_to_all: the device pushes to all its peers at once; all_to_one: it pulls from
    all of them. Aggregate bandwidth over the whole window of all copies."""
    center = block.src if block.pattern == PUSH_FANOUT else block.dst
    assert center is not None
    peers = list(block.peers)
    if block.pattern == PUSH_FANOUT:
        flows = [(center, p) for p in peers]
    else:
        flows = [(p, center) for p in peers]
    # all_to_one: the centre gets one receive buffer per peer; one_to_all: one per peer
    def slot(x: int, y: int) -> int:
        return peers.index(x) if block.pattern == PULL_FANOUT else 0

    for size, timings, (ok,) in _together(ctx, block, [flows], [center] * len(flows), slot):
        ctx.emit_samples(block, size, timings, verified=ok, fanout=len(peers))


def run_group(ctx: Context, block: Block) -> None:
    """Every device of group A copies to every device of group B at once (bi: B to A as
    well, in the same window), each copy on its initiator's stream; the value of each
    direction is its bytes over the window of all copies (the total-window method), so
    that the two directions of a bi sample add up to its total."""
    assert block.groups is not None
    a, b = block.groups
    ways = [(a, b), (b, a)] if block.direction == "bi" else [(a, b)]
    flows = [[(x, y) for x in send for y in recv] for send, recv in ways]
    on = [x if ctx.spec.initiator == "src" else y for way in flows for x, y in way]
    senders = {x: send for send, _ in ways for x in send}
    for size, timings, verified in _together(ctx, block, flows, on,
                                             slot=lambda x, y: senders[x].index(x)):
        if block.direction == "bi":
            ctx.emit_bidirectional(block, size, [(t, t) for t in timings],
                                   (verified[0], verified[1]), fanout=len(flows[0]))
        else:
            ctx.emit_samples(block, size, timings, verified=verified[0],
                             fanout=len(flows[0]))


def _together(ctx: Context, block: Block, flows: list[list[tuple[int, int]]],
              on: list[int], slot: Callable[[int, int], int]
              ) -> Iterator[tuple[int, list[Timing], list[bool | None]]]:
    """Copies on several links at once, every size: one stream per flow on device ``on``
    (in flow order), one window from the lead stream (:func:`sample_fanout`). Flows come
    in directions (one list each); a flow x -> y writes y's receive buffer ``slot(x, y)``.
    Yields (size, timings, verified per direction); streams are closed at the end."""
    rt, spec, pool = ctx.rt, ctx.spec, ctx.pool
    made: list[Timer] = []
    try:
        made.append(Timer(rt, rt.stream(on[0])))
        made.extend(Timer(rt, rt.stream(dev)) for dev in on)
        lead, timers = made[0], made[1:]
        plans = [[(pool.recv(y, slot=slot(x, y)), pool.send(x)) for x, y in way]
                 for way in flows]
        every = [p for way in plans for p in way]
        for size in ctx.sizes_todo(block):
            for dst_buf, _ in every:
                pool.clear(dst_buf, size)

            def measure(n: int, size: int = size) -> Timing:
                t = sample_fanout(rt, lead, timers, every, size, n)
                return Timing(n, t.elapsed_us, t.host_enqueue_us)

            copies = _calibrate(measure, spec.warmup, spec)
            timings = [measure(copies) for _ in range(spec.samples)]
            verified = [all(pool.verify(d, x, size) for (d, _), (x, _y) in zip(p, way))
                        if spec.verify else None for p, way in zip(plans, flows)]
            yield size, timings, verified
    finally:
        close_all(made)


def _verify(spec: SweepSpec) -> tuple[str, ...]:
    return VERIFY_NEEDS if spec.verify else ()


def _timed(spec: SweepSpec) -> tuple[str, ...]:
    """A point timed as the spec says: events on a stream, or the host clock around
    blocking aclrtMemcpy (the runtime guide's calls only)."""
    return (EVENT_NEEDS if spec.timing == "events" else ()) + POINT_NEEDS + _verify(spec)


def _events(spec: SweepSpec) -> tuple[str, ...]:
    return EVENT_NEEDS + POINT_NEEDS + _verify(spec)


def _staged(spec: SweepSpec) -> tuple[str, ...]:
    # no stream_wait: without it the legs are ordered on the host (STAGED_FALLBACK)
    return ("async_copy", "events", "pinned_host", *POINT_NEEDS)


def _host(spec: SweepSpec) -> tuple[str, ...]:
    # pinned host memory is one end of every copy, also without verification
    return tuple(dict.fromkeys((*_timed(spec), "pinned_host")))


def _fanout(spec: SweepSpec) -> tuple[str, ...]:
    return (*_events(spec), "stream_wait")


def _test(spec: SweepSpec) -> tuple[str, ...]:
    # streams that wait on the lead's event; pinned host memory for a host end
    return tuple(dict.fromkeys((*_fanout(spec), "pinned_host")))


@dataclass(frozen=True)
class Case:
    """A test case: what it measures, the runtime capabilities it needs, how it runs."""

    description: str
    run: Callable[[Context, Block], None]
    capabilities: Callable[[SweepSpec], tuple[str, ...]]

    def needs(self, spec: SweepSpec) -> tuple[str, ...]:
        """The capabilities (see ``runtime.capabilities``) a block needs under spec."""
        return self.capabilities(spec)


PAIR = PAIR_PATTERNS[0]
CARD = CARD_PATTERNS[0]
#: (pattern, direction, path) -> case.
CASES: dict[tuple[str, str, str], Case] = {
    (PAIR, "uni", "p2p"): Case("one ordered pair alone, peer access on", run_pair_uni,
                               _timed),
    (PAIR, "uni", "direct"): Case("one ordered pair, a direct copy with peer access off",
                                  run_pair_uni, _timed),
    (PAIR, "bi", "p2p"): Case("both directions of a pair at once, peer access on",
                              run_pair_bi, _events),
    (PAIR, "bi", "direct"): Case("both directions at once with peer access off",
                                 run_pair_bi, _events),
    (PAIR, "uni", "staged"): Case("device -> pinned host -> device, host-timed",
                                  run_pair_staged, _staged),
    (LOCAL_PATTERN, "uni", "local"): Case("a copy within one device", run_local, _events),
    (PUSH_FANOUT, "uni", "p2p"): Case("a device pushes to all its peers at once",
                                      run_fanout, _fanout),
    (PULL_FANOUT, "uni", "p2p"): Case("a device pulls from all its peers at once",
                                      run_fanout, _fanout),
    (LATENCY_PATTERN, "uni", "p2p"): Case("time per copy of back-to-back copies, peer "
                                          "access on", run_latency, _timed),
    (LATENCY_PATTERN, "uni", "direct"): Case("time per copy of back-to-back direct copies, "
                                             "peer access off", run_latency, _timed),
    (LATENCY_PATTERN, "uni", "staged"): Case("time per copy through pinned host memory, "
                                             "host-timed", run_latency, _staged),
    (GIVEN_GROUPS, "uni", "p2p"): Case("every device of one group copies to every device "
                                       "of another at once", run_group, _fanout),
    (GIVEN_GROUPS, "bi", "p2p"): Case("two groups copy to each other at once, one window",
                                      run_group, _fanout),
    (CARD, "uni", "p2p"): Case("the devices of one card copy to those of another at once "
                               "(ascend-dmi -m card)", run_group, _fanout),
    (CARD, "bi", "p2p"): Case("two cards copy to each other at once, one window",
                              run_group, _fanout),
    (HOST_TO_DEVICE, "uni", "host"): Case("pinned host memory to one device, on the "
                                          "device's stream", run_host_copy, _host),
    (DEVICE_TO_HOST, "uni", "host"): Case("one device to pinned host memory, on the "
                                          "device's stream", run_host_copy, _host),
    (TEST_PATTERN, "uni", "p2p"): Case("a test's transfers at once, one window (a test "
                                       "file)", run_test, _test),
    (TEST_PATTERN, "uni", "direct"): Case("a test's transfers at once as direct copies "
                                          "(peer mode current, access not held)", run_test,
                                          _test),
}
