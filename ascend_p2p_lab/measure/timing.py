"""The timing loop: how one sample of a test is taken, and how many copies a sample holds.

This module and :mod:`.phasetiming` (a collective's) are the only ones that issue timed
copies. A test's :class:`Streams` are made once
per test from its timing mode (:mod:`ascend_p2p_lab.patterns.model`); :meth:`Streams.sample`
takes one sample of ``n`` copies per transfer:

- a transfer whose value is its own time: a start event on the initiator's stream, ``n``
  async copies (host time measured around the enqueue), an end event; with the sweep's
  ``timing="host"`` the host clock around ``n`` blocking ``aclrtMemcpy`` calls instead
  (the runtime guide's own calls);
- transfers whose value is the window of all (sum, sum per direction, transfers): every
  stream waits for a lead stream's start event, enqueues its copies and records its end
  (and its start, when each transfer's own time is wanted too); the lead waits for every
  end and records the window's end (nvbandwidth's total-window method);
- interleaved: each transfer timed on its own stream, the copies issued in interleaved
  rounds, one untimed round before and after so that every window sees the others busy;
- staged: device -> pinned host -> device in chunks, each chunk's second leg waiting on an
  event after its first, timed by the host clock;
- phases (a collective): :class:`~.phasetiming.Phases`, in its own module.

:func:`calibrate` sizes a sample: a warm-up, an estimate of the time per copy, a trial,
and a correction, so that a sample spans at least ``min_sample_us``.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> from ascend_p2p_lab.measure.buffers import BufferPool
    >>> from ascend_p2p_lab.patterns import make_test
    >>> test = make_test("t", ["0->1"], 8).at(values="each")  # its own time
    >>> with open_runtime("sim") as rt, BufferPool(rt, 1 << 20) as pool:
    ...     with rt.peer_links([(0, 1), (1, 0)]):
    ...         streams = Streams(rt, test, "events")
    ...         s = streams.sample([(pool.recv(1), pool.send(0))], 1 << 20, 4)
    ...         streams.close()
    >>> round(s.window.elapsed_us / 4), s.each == (s.window,)
    (49, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..patterns.dielink import part_offsets, part_sizes
from ..patterns.model import OVER_WINDOW, PER_TRANSFER, PHASES, STAGED, Test, blocking
from ..runtime import Event, Runtime, Stream
from ..runtime.dielink import buffer_slice
from ..runtime.resources import close_all
from ..vocab import DIE_BOTH

if TYPE_CHECKING:
    from .phasetiming import Phases

#: The host-staged path moves a copy in pieces of this size.
STAGE_CHUNK = 4 << 20
#: What the host-staged path does without a stream that waits on an event.
STAGED_FALLBACK = (
    "the installed pyACL cannot make a stream wait on an event "
    "(aclrtStreamWaitEvent): each chunk's second leg waits for its first on "
    "the host (aclrtSynchronizeStream), so the legs do not overlap"
)


@dataclass(frozen=True)
class Timing:
    """A timed span: copies made (per transfer), time, and host time spent enqueueing."""

    copies: int
    elapsed_us: float
    host_enqueue_us: float


@dataclass(frozen=True)
class Sample:
    """One sample of a test: the window of all its copies (None when each transfer is
    timed on its own), and each transfer's own timing (empty when not timed)."""

    window: Timing | None
    each: tuple[Timing, ...]

    @property
    def span_us(self) -> float:
        """What must reach ``min_sample_us``: the window, or the shortest own time."""
        if self.window is not None:
            return self.window.elapsed_us
        return min(t.elapsed_us for t in self.each)

    @property
    def per_copy_us(self) -> float:
        """Time per copy: of the window, or of the fastest transfer (so that every
        transfer's window reaches the minimum)."""
        if self.window is not None:
            return self.window.elapsed_us / self.window.copies
        return min(t.elapsed_us / t.copies for t in self.each)


class Timer:
    """A stream of the initiating device with its start and end events."""

    def __init__(self, rt: Runtime, stream: Stream) -> None:
        """Takes ownership of stream: it is closed with the timer, or at once when making
        the events fails."""
        self.rt, self.stream = rt, stream
        assert stream.device is not None
        start = end = None
        try:
            start = rt.event(stream.device)
            end = rt.event(stream.device)
        except BaseException:
            close_all([start, stream])
            raise
        self.start: Event = start
        self.end: Event = end

    def sample(self, dst: Any, src: Any, size: int, copies: int) -> Timing:
        """Time ``copies`` back-to-back async copies of size bytes between two events."""
        self.start.record(self.stream)
        host_ns = self.rt.enqueue_copies(dst, src, size, self.stream, copies)
        self.end.record(self.stream)
        elapsed_ms = self.rt.elapsed_ms(self.start, self.end)
        return Timing(copies, elapsed_ms * 1000.0, host_ns / 1000.0)

    def close(self) -> None:
        close_all([self.start, self.end, self.stream])


#: (dst buffer, src buffer) of each transfer of a test, in its order.
Plans = Sequence[tuple[Any, Any]]


def parts(test: Test, plans: Plans, size: int) -> list[tuple[Any, Any, int]]:
    """(dst, src, bytes) each transfer copies at size: the whole buffers and size, except
    in a test over both die links, whose HCCS part follows its SIO part in the buffers
    (patterns.dielink)."""
    if test.die_link != DIE_BOTH:
        return [(dst, src, size) for dst, src in plans]
    counts, offsets = part_sizes(test, size), part_offsets(test, size)
    return [
        (buffer_slice(dst, off), buffer_slice(src, off), count)
        for (dst, src), count, off in zip(plans, counts, offsets)
    ]


class Streams:
    """The streams and events one test is timed with, made from its timing mode; closed
    with :meth:`close` (also after a failure). ``timing`` is the sweep's (events, host)."""

    def __init__(self, rt: Runtime, test: Test, timing: str) -> None:
        self.rt, self.test = rt, test
        self.blocking = blocking(test, timing)
        self.made: list[Any] = []
        self.timers: list[Timer] = []
        self.lead: Timer | None = None
        #: per-transfer start events: each transfer's own time is wanted
        self.own = test.values in PER_TRANSFER
        self.wait_on_device = True
        #: the calls the staged path lacks to wait on the device (then it waits on the host)
        self.missing_wait: list[str] = []
        self.phases: Phases | None = None
        try:
            self._make()
        except BaseException:
            self.close()
            raise

    def _make(self) -> None:
        rt, test = self.rt, self.test
        if test.timing == PHASES:
            from .phasetiming import Phases  # it imports this module's Sample

            self.phases = Phases(rt, test.program)
        elif test.timing == STAGED:
            t = test.transfers[0]
            assert t.src is not None and t.dst is not None
            self.made.append(rt.stream(t.src))
            self.made.append(rt.stream(t.dst))
            self.made.insert(0, rt.event(t.src))  # relay; closed first
            self.missing_wait = rt.lacks(["stream_wait"])
            self.wait_on_device = not self.missing_wait
        elif self.blocking:  # its device current before the point, as a stream makes it
            rt.use(test.transfers[0].by)
        else:  # each transfer its own window, and over them all a lead's if it spans them
            if test.values in OVER_WINDOW:
                self.lead = Timer(rt, rt.stream(test.transfers[0].by))
            for t in test.transfers:
                self.timers.append(Timer(rt, rt.stream(t.by)))

    def sample(self, plans: Plans, size: int, n: int) -> Sample:
        """One sample of n copies of size bytes per transfer (a collective: n runs)."""
        if self.phases is not None:
            return self.phases.sample(n)
        if self.test.timing == STAGED:
            return self._staged(plans[0], size, n)
        if self.blocking:
            return self._blocking(plans[0], size, n)
        if self.lead is None and len(self.timers) == 1:
            t = self.timers[0].sample(*plans[0], size, n)  # a die link: its view in the plan
            return Sample(t, (t,))
        if self.lead is None:
            return self._interleaved(plans, size, n)
        return self._window(plans, size, n)

    def _blocking(self, plan: tuple[Any, Any], size: int, n: int) -> Sample:
        """The seed's way: n synchronous aclrtMemcpy calls timed by the host clock."""
        rt, (dst, src) = self.rt, plan
        on = self.test.transfers[0].by
        t0 = rt.host_time_ns()
        for _ in range(n):
            rt.memcpy(dst, src, size, on=on)
        elapsed = (rt.host_time_ns() - t0) / 1000.0
        t = Timing(n, elapsed, elapsed)
        return Sample(t, (t,))

    def _window(self, plans: Plans, size: int, n: int) -> Sample:
        rt, lead = self.rt, self.lead
        assert lead is not None
        lead.start.record(lead.stream)
        host_ns = []
        for timer, (dst, src, count) in zip(self.timers, parts(self.test, plans, size)):
            rt.wait_event(timer.stream, lead.start)
            if self.own:
                timer.start.record(timer.stream)
            host_ns.append(rt.enqueue_copies(dst, src, count, timer.stream, n))
            timer.end.record(timer.stream)
        for timer in self.timers:
            rt.wait_event(lead.stream, timer.end)
        lead.end.record(lead.stream)
        window_us = rt.elapsed_ms(lead.start, lead.end) * 1000.0
        each = (
            tuple(
                Timing(n, rt.elapsed_ms(t.start, t.end) * 1000.0, ns / 1000.0)
                for t, ns in zip(self.timers, host_ns)
            )
            if self.own
            else ()
        )
        return Sample(Timing(n, window_us, sum(host_ns) / 1000.0), each)

    def _interleaved(self, plans: Plans, size: int, n: int) -> Sample:
        rt, timers = self.rt, self.timers
        rounds = min(n, 4)
        per = math.ceil(n / rounds)
        host_ns = 0
        for t, (dst, src) in zip(timers, plans):
            rt.enqueue_copies(dst, src, size, t.stream, per)
        for t in timers:
            t.start.record(t.stream)
        for _ in range(rounds):
            for t, (dst, src) in zip(timers, plans):
                host_ns += rt.enqueue_copies(dst, src, size, t.stream, per)
        for t in timers:
            t.end.record(t.stream)
        for t, (dst, src) in zip(timers, plans):
            rt.enqueue_copies(dst, src, size, t.stream, per)
        elapsed = [rt.elapsed_ms(t.start, t.end) * 1000.0 for t in timers]
        for t in timers:
            t.stream.synchronize()
        host_us = host_ns / 1000.0
        return Sample(None, tuple(Timing(rounds * per, e, host_us) for e in elapsed))

    def _staged(self, plan: tuple[Any, Any], size: int, n: int) -> Sample:
        rt, (dst, src) = self.rt, plan
        relay, s_src, s_dst = self.made
        host = self.staging
        chunk = min(size, STAGE_CHUNK)
        t0 = rt.host_time_ns()
        rt.enqueue_staged(
            dst,
            host,
            src,
            size,
            (s_src, s_dst),
            relay,
            n,
            chunk=chunk,
            wait_on_device=self.wait_on_device,
            synchronize=True,
        )
        elapsed = (rt.host_time_ns() - t0) / 1000.0
        t = Timing(n, elapsed, elapsed)
        return Sample(t, (t,))

    #: pinned host memory the staged path relays through (set by the executor)
    staging: Any = None

    def close(self) -> None:
        close_all([self.lead, *self.timers, *self.made, self.phases])  # None is skipped
        self.timers, self.made, self.lead, self.phases = [], [], None, None


def copies_for(per_copy_us: float, min_sample_us: float, max_copies: int) -> int:
    """Copies per sample so that one sample spans at least min_sample_us of device time.

    Example:
        >>> copies_for(10.0, 1000.0, 1000), copies_for(0.0, 1000.0, 1000)
        (100, 1)
    """
    if not per_copy_us > 0 or math.isinf(per_copy_us):
        return 1
    return max(1, min(max_copies, math.ceil(min_sample_us / per_copy_us)))


def calibrate(
    measure: Callable[[int], Sample], warmup: int, min_sample_us: float, max_copies: int
) -> int:
    """Warm up, then size a sample so that it spans at least ``min_sample_us``.

    A few warm-up copies give a first estimate of the time per copy (pessimistic: the
    first copy of a window also waits for its launch); a trial with that many copies
    corrects it, so samples reach the minimum without overshooting much.

    Example:
        >>> calibrate(lambda n: Sample(Timing(n, 10.0 * n, 0.0), ()), 2, 1000.0, 1000)
        100
    """
    first = measure(max(warmup, 1))
    copies = copies_for(first.per_copy_us, min_sample_us, max_copies)
    if 1 < copies < max_copies:
        trial = measure(copies)
        if trial.span_us < min_sample_us:
            copies = copies_for(trial.per_copy_us, min_sample_us, max_copies)
            copies = min(max_copies, copies + 1)
    return copies
