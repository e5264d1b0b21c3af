"""Virtual, deterministic time: a host clock, streams of device work, and shared links.

Every copy is an :class:`Op` on a :class:`Stream`. An op starts when it was enqueued and
the op before it on its stream finished; it then spends its link's fixed latency and
moves its bytes at a rate set by the resources it crosses (a directed link, a device
port, PCIe in one direction, a device's HBM). Ops that overlap in time on one resource
share its bandwidth equally (a fluid model); opposite directions are separate resources,
so links are full duplex. Times are microseconds (floats) on one global clock.

Pending work is resolved lazily, when something needs a time (a synchronize, an
elapsed-time query): all streams with pending ops are simulated together, so copies
enqueued on two streams before a synchronize really do share what they share.

Example:
    >>> eng = Engine(capacity={("link", 0, 1): 26_200.0})  # bytes per microsecond
    >>> s = eng.new_stream(device=0)
    >>> op = eng.enqueue_copy(s, 1 << 20, (("link", 0, 1),), latency_us=8.0)
    >>> eng.resolve(); round(op.end - op.start, 1)
    48.0
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Hashable

Resource = Hashable
_EPS = 1e-9


class Stream:
    """An in-order queue of device work on one device."""

    __slots__ = ("device", "id", "last_end", "pending")

    def __init__(self, sid: int, device: int) -> None:
        self.id, self.device = sid, device
        self.pending: deque[Op] = deque()
        self.last_end = 0.0


class Op:
    """One unit of device work: a copy, an event record, or a wait on an event."""

    __slots__ = (
        "end",
        "dep",
        "enq",
        "event",
        "kind",
        "lat_end",
        "latency",
        "nbytes",
        "remaining",
        "resources",
        "scale",
        "start",
        "stream",
    )

    def __init__(self, kind: str, stream: Stream, enq: float) -> None:
        self.kind, self.stream, self.enq = kind, stream, enq
        self.nbytes = 0
        self.resources: tuple[Resource, ...] = ()
        self.latency = 0.0
        self.scale = 1.0
        self.event: SimEvent | None = None
        self.dep: Op | None = None  # for a wait: the record op it waits for
        self.start: float | None = None
        self.end: float | None = None
        self.lat_end = 0.0
        self.remaining = 0.0


class SimEvent:
    """An event's device timestamp (microseconds), set when its record op runs."""

    __slots__ = ("device", "flags", "id", "record_op", "ts")

    def __init__(self, eid: int, device: int, flags: int) -> None:
        self.id, self.device, self.flags = eid, device, flags
        self.ts: float | None = None
        self.record_op: Op | None = None


class Engine:
    """Host clock plus device streams; resolves pending device work on demand."""

    def __init__(
        self,
        capacity: dict[Resource, float] | None = None,
        *,
        jitter: float = 0.0,
        seed: int = 0,
    ) -> None:
        self.capacity: dict[Resource, float] = dict(capacity or {})
        self.degrade: dict[Resource, float] = {}
        self.host_us = 0.0
        self.jitter = jitter
        self._rng = random.Random(seed)
        self._streams: list[Stream] = []
        self._busy: set[Stream] = set()
        self._next_id = 1

    # --- construction -----------------------------------------------------------------
    def new_stream(self, device: int) -> Stream:
        s = Stream(self._next_id, device)
        self._next_id += 1
        s.last_end = self.host_us
        self._streams.append(s)
        return s

    def drop_stream(self, s: Stream) -> None:
        self.resolve()
        self._busy.discard(s)
        if s in self._streams:
            self._streams.remove(s)

    def new_event(self, device: int, flags: int) -> SimEvent:
        e = SimEvent(self._next_id, device, flags)
        self._next_id += 1
        return e

    # --- enqueue ----------------------------------------------------------------------
    def _factor(self) -> float:
        if not self.jitter:
            return 1.0
        return max(0.5, 1.0 + self.jitter * self._rng.gauss(0.0, 1.0))

    def enqueue_copy(
        self, s: Stream, nbytes: int, resources: tuple[Resource, ...], latency_us: float
    ) -> Op:
        """Queue a copy of nbytes over resources, enqueued at the current host time."""
        op = Op("copy", s, self.host_us)
        op.nbytes, op.resources, op.latency, op.scale = nbytes, resources, latency_us, self._factor()
        s.pending.append(op)
        self._busy.add(s)
        return op

    def enqueue_record(self, s: Stream, ev: SimEvent) -> Op:
        op = Op("record", s, self.host_us)
        op.event = ev
        ev.record_op, ev.ts = op, None
        s.pending.append(op)
        self._busy.add(s)
        return op

    def enqueue_wait(self, s: Stream, ev: SimEvent) -> Op:
        op = Op("wait", s, self.host_us)
        op.event = ev
        op.dep = ev.record_op  # the record as of now; a later re-record does not move it
        s.pending.append(op)
        self._busy.add(s)
        return op

    def run_blocking_copy(
        self, device: int, nbytes: int, resources: tuple[Resource, ...], latency_us: float
    ) -> Op:
        """A synchronous copy: runs on its own, now; the host waits for its end."""
        s = Stream(0, device)
        s.last_end = self.host_us
        op = self.enqueue_copy(s, nbytes, resources, latency_us)
        self._streams.append(s)
        try:
            self.resolve()
        finally:
            self._streams.remove(s)
            self._busy.discard(s)
        self.host_us = max(self.host_us, op.end or self.host_us)
        return op

    # --- time ---------------------------------------------------------------------------
    def rate(self, r: Resource) -> float:
        return self.capacity[r] * self.degrade.get(r, 1.0)

    def resolve(self) -> None:
        """Give every pending op its start and end times."""
        busy = [s for s in self._streams if s in self._busy and s.pending]
        self._busy.clear()
        if not busy:
            return
        if self._independent(busy):
            for s in busy:
                self._run_alone(s)
        else:
            self._run_fluid(busy)

    def _independent(self, streams: list[Stream]) -> bool:
        seen: set[Resource] = set()
        for s in streams:
            mine: set[Resource] = set()
            for op in s.pending:
                if op.kind == "wait":
                    return False
                mine.update(op.resources)
            if seen & mine:
                return False
            seen |= mine
        return True

    def _run_alone(self, s: Stream) -> None:
        t = s.last_end
        rate = self.rate
        while s.pending:
            op = s.pending.popleft()
            t = max(t, op.enq)
            op.start = t
            if op.kind == "copy":
                bw = min(rate(r) for r in op.resources) if op.resources else float("inf")
                t = t + (op.latency + op.nbytes / bw) * op.scale
            elif op.kind == "record" and op.event is not None:
                op.event.ts = t
            op.end = t
        s.last_end = t

    def _ready(self, s: Stream) -> float | None:
        op = s.pending[0]
        t = max(op.enq, s.last_end)
        if op.kind == "wait" and op.dep is not None:
            rec = op.dep
            if rec.end is None:
                return None
            t = max(t, rec.end)
        return t

    def _run_fluid(self, streams: list[Stream]) -> None:
        active: list[Op] = []
        t = min(max(s.pending[0].enq, s.last_end) for s in streams)
        live = list(streams)
        while live or active:
            started = True
            while started:  # start every head that is ready at t
                started = False
                for s in list(live):
                    if not s.pending:
                        live.remove(s)
                        continue
                    op = s.pending[0]
                    if op.start is not None:
                        continue
                    ready = self._ready(s)
                    if ready is None or ready > t + _EPS:
                        continue
                    op.start = t
                    if op.kind != "copy":
                        op.end = t
                        if op.kind == "record" and op.event is not None:
                            op.event.ts = t
                        s.last_end = t
                        s.pending.popleft()
                        started = True
                    else:
                        op.lat_end = t + op.latency * op.scale
                        op.remaining = float(op.nbytes)
                        active.append(op)
            if not active:
                readies = [r for s in live if s.pending and (r := self._ready(s)) is not None]
                if not readies:
                    for s in live:  # a wait that can never be satisfied: treat as done
                        s.pending[0].dep = None
                    if not live:
                        break
                    continue
                t = max(t, min(readies))
                continue
            counts: dict[Resource, int] = {}
            moving = [op for op in active if op.lat_end <= t + _EPS]
            for op in moving:
                for r in op.resources:
                    counts[r] = counts.get(r, 0) + 1
            rates = {
                id(op): min((self.rate(r) / counts[r] for r in op.resources), default=float("inf"))
                / op.scale
                for op in moving
            }
            nxt = float("inf")
            for op in active:
                if op.lat_end > t + _EPS:
                    nxt = min(nxt, op.lat_end)
                else:
                    nxt = min(nxt, t + op.remaining / rates[id(op)])
            for s in live:
                if s.pending and s.pending[0].start is None:
                    r = self._ready(s)
                    if r is not None and r > t + _EPS:
                        nxt = min(nxt, r)
            dt = nxt - t
            for op in moving:
                op.remaining -= rates[id(op)] * dt
            t = nxt
            for op in list(active):
                if op.lat_end <= t + _EPS and op.remaining <= 1e-6 * max(op.nbytes, 1):
                    op.end = t
                    op.stream.last_end = t
                    op.stream.pending.popleft()
                    active.remove(op)

    def stream_done_at(self, s: Stream) -> float:
        """When everything queued on s so far will have finished."""
        self.resolve()
        return s.last_end

    def all_done_at(self, device: int | None = None) -> float:
        """When all queued work (on one device, or on all) will have finished."""
        self.resolve()
        ends = [s.last_end for s in self._streams if device is None or s.device == device]
        return max(ends, default=self.host_us)

    def advance_host(self, us: float) -> None:
        self.host_us += us

    def wait_host_until(self, t: float) -> None:
        self.host_us = max(self.host_us, t)
