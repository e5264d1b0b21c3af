"""The timing loop: how one sample of a test is taken, and how many copies a sample holds.

This is the only module that issues timed copies. A test's :class:`Streams` are made once
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
- phases (a collective, :class:`Phases`): behind a gate (a chain of device-local copies on
  the lead device, sized to outlast the host's enqueue), every rank is released, each
  phase's moves run at once on slot streams, each after the end of the previous phase on
  its own rank and on its peer (the barrier), writes into a rank landed before its
  reduction pass (a device-local copy of the bytes it reduces) and its end; each rank's
  times are taken on its own device and set on the lead's clock by the measured
  cross-device hop.

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

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..collectives.schedule import DONE, END, START, Ref
from ..patterns.dielink import part_offsets, part_sizes
from ..patterns.model import OVER_WINDOW, PER_TRANSFER, PHASES, STAGED, Test, blocking
from ..runtime import Event, Runtime, Stream
from ..runtime.dielink import buffer_slice
from ..runtime.resources import close_all

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
    if test.die_link != "both":
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
        elif test.values not in OVER_WINDOW:  # each transfer its own window
            for t in test.transfers:
                self.timers.append(Timer(rt, rt.stream(t.by)))
        else:
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
        close_all(
            [
                *([self.lead] if self.lead else []),
                *self.timers,
                *self.made,
                *([self.phases] if self.phases else []),
            ]
        )
        self.timers, self.made, self.lead, self.phases = [], [], None, None


#: Bytes of one gate copy (device-local, on the lead device): the gate repeats it until the
#: host has enqueued the whole sample (nvbandwidth's spin kernel, which pyACL lacks).
GATE_BYTES = 128 << 20
#: The gate outlasts the host time of the previous sample by this factor.
GATE_MARGIN = 1.3
MAX_GATE_COPIES = 200_000


@dataclass(frozen=True)
class PhaseSample(Sample):
    """A sample of a collective: ``window`` spans its runs (``per_copy_us`` is one run),
    ``host_enqueue_us`` the host time of the whole sample; of its last run each phase's
    time, and when each move ended (since its rank's release, in the phase's order: the
    last to end is the one that set the phase's time); the cross-device hop the release
    measured; the gate's device time; ``host_bound``: the gate released the ranks before
    the host had enqueued everything (the window then holds host time); ``move_limits``:
    on the simulator, what bound each move (:meth:`.Runtime.copy_limit`: a saturated link
    or budget), empty on hardware."""

    phase_us: tuple[float, ...] = ()
    move_us: tuple[tuple[float, ...], ...] = ()
    hop_us: float = 0.0
    gate_us: float = 0.0
    host_bound: bool = False
    move_limits: tuple[tuple[tuple | None, ...], ...] = ()


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


class Phases:
    """The streams and events a collective is timed with (``phases`` in the module doc):
    a gate stream and one watch stream on the first rank's device, per rank its rank
    stream and slot streams, and the events of the program
    (:mod:`ascend_p2p_lab.collectives.schedule`); buffers are the executor's
    (:attr:`buffers`, a :class:`~.phasebuffers.PhaseBuffers`).

    Every rank's times are taken on its own device from its ``start`` (recorded when the
    gate releases it): the lead rank's start is the release itself, the others' one
    cross-device hop later; the watch stream sees a second rank's start one hop later
    again, which measures the hop (half that round trip), and the others' times are
    shifted by it onto the lead's clock.
    """

    def __init__(self, rt: Runtime, program: Any) -> None:
        self.rt, self.prog = rt, program
        self.ranks: tuple[int, ...] = program.collective.ranks
        self.lead = self.ranks[0]
        self.runs = 0  # runs made so far (the verification follows their data)
        self.gate_copies = 4
        #: from the last sample: the device time of one gate copy, the host time of a run
        self.per_gate_us: float | None = None
        self.host_per_run_us: float | None = None
        self.buffers: Any = None
        self.made: list[Any] = []
        try:
            self._make()
        except BaseException:
            self.close()
            raise

    def _make(self) -> None:
        rt, one, phases = self.rt, self.prog.one, self.prog.collective.phases

        def made(resource: Any) -> Any:
            self.made.append(resource)
            return resource

        self.gate, self.watch = made(rt.stream(self.lead)), made(rt.stream(self.lead))
        self.gate0, self.rel, self.seen = (made(rt.event(self.lead)) for _ in range(3))
        # slots before the rank streams: the simulator starts ready heads in the order the
        # streams were made, so a rank stream's waits on its slots resolve in one pass
        slots = {d: max(one.slots[d], self.prog.closed.slots[d]) for d in self.ranks}
        self.slot = {d: [made(rt.stream(d)) for _ in range(slots[d])] for d in self.ranks}
        self.rank = {d: made(rt.stream(d)) for d in self.ranks}
        self.start = {d: made(rt.event(d)) for d in self.ranks}
        self.pre = {d: made(rt.event(d)) for d in self.ranks}  # the last run's start
        self.end = [{d: made(rt.event(d)) for d in self.ranks} for _ in phases]
        self.done = [[made(rt.event(m.by)) for m in p.moves] for p in phases]
        self.land = [
            [made(rt.event(la.device)) for la in lands] for lands in self.prog.closed.landings
        ]  # the closing run's: more
        order = {d: i for i, d in enumerate(self.ranks)}  # a device's calls together
        self.order = [
            sorted(st, key=lambda s, p=p: order[p.moves[s.index].by])
            for st, p in zip(one.steps, phases)
        ]

    def _event(self, ref: Ref, run: int) -> Event:
        if ref.kind == START:
            return self.start[ref.who] if run == 0 else self.end[-1][ref.who]
        if ref.kind == END:
            return self.end[ref.phase][ref.who]
        return (self.done if ref.kind == DONE else self.land)[ref.phase][ref.who]

    def sample(self, n: int) -> PhaseSample:
        """n runs behind the gate, then their times (see :class:`PhaseSample`)."""
        rt, bufs = self.rt, self.buffers
        if self.per_gate_us and self.host_per_run_us:  # outlast this sample's enqueue
            self.gate_copies = max(
                1,
                min(
                    MAX_GATE_COPIES,
                    math.ceil(GATE_MARGIN * self.host_per_run_us * n / self.per_gate_us) + 1,
                ),
            )
        t0 = rt.host_time_ns()
        self.gate0.record(self.gate)
        rt.enqueue_copies(
            bufs.gate_dst, bufs.gate_src, bufs.gate_bytes, self.gate, self.gate_copies
        )
        self.rel.record(self.gate)
        for d in self.ranks:
            rt.wait_event(self.rank[d], self.rel)
            self.start[d].record(self.rank[d])
        rt.wait_event(self.watch, self.start[self.ranks[1]])  # the hop, there and back
        self.seen.record(self.watch)
        for run in range(n):
            if run == n - 1:
                for d in self.ranks:
                    self.pre[d].record(self.rank[d])
            program = self.prog.one if run == n - 1 else self.prog.closed
            for k in range(len(self.end)):
                self._phase(k, run, program)
        host_us = (rt.host_time_ns() - t0) / 1000.0
        self.runs += n
        return self._times(n, host_us)

    def _phase(self, k: int, run: int, one: Any) -> None:
        """Phase k of a run: its moves, its landings, each rank's reduction and end (the
        last run of a sample does not close: the host waits for all of it anyway)."""
        rt, bufs = self.rt, self.buffers
        moves, lay = self.prog.collective.phases[k].moves, self.prog.layout
        for st in self.order[k]:
            m = moves[st.index]
            stream = self.slot[m.by][st.slot]
            for ref in st.waits:
                rt.wait_event(stream, self._event(ref, run))
            into = (
                (bufs.recv[m.dst], lay.slots[(k, st.index)])
                if m.reduce
                else (bufs.data[m.dst], lay.offsets[m.dst][m.piece])
            )
            rt.memcpy_async(
                into[0],
                bufs.data[m.src],
                m.nbytes,
                stream,
                dst_offset=into[1],
                src_offset=lay.offsets[m.src][m.piece],
            )
            self.done[k][st.index].record(stream)
        for i, la in enumerate(one.landings[k]):
            stream = self.slot[la.device][la.slot]
            rt.wait_event(stream, self.done[la.of_phase][la.move])
            self.land[k][i].record(stream)
        for d in self.ranks:
            stream = self.rank[d]
            for ref in one.marks[k][d]:
                rt.wait_event(stream, self._event(ref, run))
            if (k, d) in lay.passes:  # the reduction: a local copy of what it reduces
                at, nbytes = lay.passes[(k, d)]
                rt.memcpy_async(bufs.scratch[d], bufs.recv[d], nbytes, stream, src_offset=at)
            self.end[k][d].record(stream)

    def _times(self, n: int, host_us: float) -> PhaseSample:
        """The sample's times on the lead's clock (see the class doc), and what the next
        sample's gate is sized from (one gate copy's time, the host's time per run)."""
        rt = self.rt
        gate_us = rt.elapsed_ms(self.gate0, self.rel) * 1000.0
        hop = rt.elapsed_ms(self.rel, self.seen) * 1000.0 / 2

        def at(d: int, ev: Event) -> float:
            return rt.elapsed_ms(self.start[d], ev) * 1000.0 + (hop if d != self.lead else 0.0)

        first = hop  # every rank but the lead released, one hop after the release
        bounds = [
            max(at(d, self.pre[d]) for d in self.ranks) if n > 1 else first,
            *(max(at(d, ends[d]) for d in self.ranks) for ends in self.end),
        ]
        phase_us = tuple(b - a for a, b in itertools.pairwise(bounds))
        moves = [p.moves for p in self.prog.collective.phases]
        move_us = tuple(
            tuple(at(m.by, e) for m, e in zip(ms, es)) for ms, es in zip(moves, self.done)
        )
        self.per_gate_us = gate_us / self.gate_copies
        self.host_per_run_us = host_us / n
        limits = (
            tuple(tuple(rt.copy_limit(e) for e in es) for es in self.done) if rt.simulated else ()
        )
        return PhaseSample(
            Timing(n, bounds[-1] - first, host_us),
            (),
            phase_us,
            move_us,
            hop,
            gate_us,
            gate_us < host_us,
            limits,
        )

    def close(self) -> None:
        made, self.made = self.made, []
        close_all(list(reversed(made)))
