"""Virtual, deterministic time: a host clock, streams of device work, and shared links.

Every copy is an :class:`Op` on a :class:`Stream`. An op starts when it was enqueued and
the op before it on its stream finished; it then spends its link's fixed latency and
moves its bytes at a rate set by the resources it crosses (a directed link, what a write
or a read reaches of it, a device port, a budget shared by a group of devices, PCIe in
one direction, a device's HBM). Ops that overlap in time share the resources max-min
fairly (a fluid model: what one op cannot use of its share goes to the others);
opposite directions are separate resources, so links are full duplex unless a
both-directions budget couples them. Times are microseconds (floats) on one global clock.

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
from collections.abc import Callable, Hashable, Iterable

from .fluid import cannot_bind, run_fluid
from .jitter import factors, point_seed

Resource = Hashable
INF = float("inf")
NS_PER_US = 1000
#: :meth:`Engine._independent`'s answer for streams that may each run alone but wait
#: on events (true, so that callers reading it as "alone" stay right).
WAITS = "waits"


class Stream:
    """An in-order queue of device work on one device."""

    __slots__ = ("device", "id", "last_end", "limit", "pending")

    def __init__(self, sid: int, device: int) -> None:
        self.id, self.device = sid, device
        self.pending: deque[Op | CopyRun] = deque()
        self.last_end = 0.0
        #: what bound the last copy that ended on the stream (see :class:`SimEvent`)
        self.limit: Resource | None = None


class Op:
    """One unit of device work: a copy, an event record, or a wait on an event."""

    __slots__ = (
        "bound",
        "bw",
        "dep",
        "end",
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

    def __init__(
        self,
        kind: str,
        stream: Stream,
        enq: float,
        nbytes: int = 0,
        resources: tuple[Resource, ...] = (),
        latency: float = 0.0,
        scale: float = 1.0,
    ) -> None:
        self.kind, self.stream, self.enq = kind, stream, enq
        self.nbytes = nbytes
        self.resources: tuple[Resource, ...] = resources
        self.latency = latency
        self.scale = scale
        self.event: SimEvent | None = None
        self.dep: Op | None = None  # for a wait: the record op it waits for
        self.start: float | None = None
        self.end: float | None = None
        self.lat_end = 0.0
        self.remaining = 0.0
        #: bytes moved while each resource bound the copy (the fluid model's accounting)
        self.bound: dict[Resource, float] | None = None


class CopyRun:
    """Identical copies queued back to back on one stream, as :meth:`Engine.append_copy`
    keeps them: what each copy's :class:`Op` would hold, with only the enqueue time and
    the jitter factor stored per copy. Resolving one gives the times the Ops would have
    had; where ops must be simulated one by one (shared resources, waits) it is first
    expanded into them (:meth:`ops`)."""

    __slots__ = ("enqs", "kind", "latency", "nbytes", "resources", "scales", "stream")

    def __init__(
        self, stream: Stream, nbytes: int, resources: tuple[Resource, ...], latency: float
    ) -> None:
        self.kind = "run"
        self.stream, self.nbytes, self.resources, self.latency = stream, nbytes, resources, latency
        self.enqs: list[float] = []
        self.scales: list[float] = []

    def ops(self) -> list[Op]:
        """The copies as Ops, in order."""
        s, n, res, lat = self.stream, self.nbytes, self.resources, self.latency
        return [Op("copy", s, enq, n, res, lat, f) for enq, f in zip(self.enqs, self.scales)]


class SimEvent:
    """An event's device timestamp (microseconds), set when its record op runs, and
    ``limit``: the resource (link, port, shared budget; None: no copy) that held the last
    copy before the record for most of its bytes (``acl.simulator.copy_limit``)."""

    __slots__ = ("device", "flags", "id", "limit", "record_op", "ts")

    def __init__(self, eid: int, device: int, flags: int) -> None:
        self.id, self.device, self.flags = eid, device, flags
        self.ts: float | None = None
        self.record_op: Op | None = None
        self.limit: Resource | None = None


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
        #: _independent's verdict per combination of streams' resource tuples (the
        #: capacities and degradations are fixed once copies run)
        self._slack: dict[tuple, bool] = {}
        #: the slowest rate of each resources tuple a stream running alone has crossed
        self._bottleneck: dict[tuple, float] = {}
        #: and which resource of the tuple that is (the first of the slowest)
        self._binding: dict[tuple, Resource] = {}
        self.host_us = 0.0
        #: the absolute clock at host_us == 0, in whole nanoseconds (see :meth:`rebase`)
        self.epoch_ns = 0
        self.jitter = jitter
        self.seed = seed
        #: the next copy's time factor, 1 + jitter * N(0, 1) at least 0.5 (1.0 without
        #: jitter): what :meth:`_factor` gives, bound for the kept copies' fast path
        self.next_factor: Callable[[], float] = factors(random.Random(seed), jitter)
        self.dip: Callable[[tuple[Resource, ...]], float] | None = None  # injector's, per copy
        self._streams: list[Stream] = []
        self._busy: set[Stream] = set()
        self._next_id = 1

    def reseed(self, key: str) -> None:
        """Restart the jitter draws from ``(seed, key)`` alone (:func:`point_seed`).

        What follows no longer depends on the copies made before: a measurement that
        names each point gets the same draws for it whatever ran first (a resumed sweep
        equals an uninterrupted one).
        """
        if self.jitter:  # without jitter nothing is drawn: no generator to restart
            self.next_factor = factors(random.Random(point_seed(self.seed, key)), self.jitter)

    def rebase(self, events: Iterable[SimEvent] = ()) -> bool:
        """Move the clock's origin to the host's now, when no stream has work pending or
        ending later; False (nothing changed) otherwise.

        Times are floats, so ``t0 + x`` rounds differently for different t0: after a
        rebase the times a measurement computes no longer depend on how long the
        simulator ran before it (the rows of a point are the same whatever ran first, or
        in another process). ``epoch_ns`` keeps the absolute clock whole (to the
        nanosecond); the given events' times move with the origin.
        """
        self.resolve()
        origin = self.host_us
        if any(s.pending or s.last_end > origin for s in self._streams):
            return False
        self.epoch_ns += int(origin * NS_PER_US)
        self.host_us = 0.0
        for s in self._streams:
            s.last_end = 0.0  # idle: nothing it holds ends after now
        for e in events:
            if e.ts is not None:
                e.ts -= origin
            op = e.record_op
            if op is not None and op.end is not None:
                op.start = op.end = op.end - origin
        return True

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
    def _factor(self, resources: tuple[Resource, ...] = ()) -> float:
        """A copy's time factor: 1 + jitter * N(0, 1) >= 0.5 (1.0 without), times its dip."""
        return self.next_factor() * (1.0 if self.dip is None else self.dip(resources))

    def enqueue_copy(
        self, s: Stream, nbytes: int, resources: tuple[Resource, ...], latency_us: float
    ) -> Op:
        """Queue a copy of nbytes over resources, enqueued at the current host time."""
        op = Op("copy", s, self.host_us, nbytes, resources, latency_us, self._factor(resources))
        s.pending.append(op)
        self._busy.add(s)
        return op

    def append_copy(
        self, s: Stream, nbytes: int, resources: tuple[Resource, ...], latency_us: float
    ) -> CopyRun | None:
        """:meth:`enqueue_copy` for a caller that does not need the Op (an async copy).

        Consecutive copies on a stream with the same size, latency and resources object
        are stored as one :class:`CopyRun`; a copy right after an Op unlike it (a record,
        a wait, another kind of copy) is stored as its own Op. The jitter draw and the
        times are the same as enqueue_copy gives. Returns the CopyRun the copy is in
        (None: an Op), which the next such copy extends.
        """
        scale = self.next_factor() if self.dip is None else self._factor(resources)  # hot
        pending = s.pending
        run = pending[-1] if pending else None
        if (
            run is None
            or run.__class__ is not CopyRun
            or run.resources is not resources
            or run.nbytes != nbytes
            or run.latency != latency_us
        ):
            if (
                run is not None
                and run.__class__ is Op
                and (
                    run.kind != "copy"
                    or run.resources is not resources
                    or run.nbytes != nbytes
                    or run.latency != latency_us
                )
            ):
                # after a record, a wait or another copy: one Op, as the CopyRun would
                # expand to (copies between events, as the staged legs are, stay Ops)
                pending.append(Op("copy", s, self.host_us, nbytes, resources, latency_us, scale))
                self._busy.add(s)
                return None
            run = CopyRun(s, nbytes, resources, latency_us)
            pending.append(run)
            # extending a run needs no mark: resolve() runs or expands every CopyRun of
            # a marked stream it takes, so a stream that ends in one is still marked
            self._busy.add(s)
        run.enqs.append(self.host_us)  # type: ignore[union-attr]
        run.scales.append(scale)  # type: ignore[union-attr]
        return run  # type: ignore[return-value]

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
    ) -> Op | None:
        """A synchronous copy: runs on its own, now; the host waits for its end.

        With no other stream busy (the common case: a verification read, a memset) the
        copy's end is what :meth:`_run_alone` would give it, computed here (no Op is made:
        None is returned); otherwise it is resolved with the others (it may share a link
        with their copies) and its Op returned.
        """
        if not self._busy:
            scale = self._factor(resources)  # the draw enqueue_copy would make
            bw = self._bottleneck.get(resources)
            if bw is None:
                rate = self.rate
                bw = self._bottleneck[resources] = (
                    min(rate(r) for r in resources) if resources else INF
                )
            t = self.host_us
            end = t + (latency_us + nbytes / bw) * scale  # _run_alone's arithmetic
            if end > t:  # max(host_us, end)
                self.host_us = end
            return None
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

    def forget_rates(self) -> None:
        """Empty the caches of rates after ``degrade`` changed (a transient fault)."""
        self._slack.clear(), self._bottleneck.clear(), self._binding.clear()

    # --- time ---------------------------------------------------------------------------
    def rate(self, r: Resource) -> float:
        return self.capacity[r] * self.degrade.get(r, 1.0)

    def resolve(self) -> None:
        """Give every pending op its start and end times."""
        marked = self._busy
        if not marked:
            return
        if len(marked) == 1:  # the common case, without a pass over every stream
            (one,) = marked
            busy = [one] if one.pending and one in self._streams else []
        else:
            busy = [s for s in self._streams if s in marked and s.pending]
        marked.clear()
        if not busy:
            return
        alone = self._independent(busy)
        if alone is WAITS:
            busy = self._run_linked(busy)
            if not busy:
                return
        elif alone:
            for s in busy:
                self._run_alone(s)
            return
        for s in busy:
            self._expand_runs(s)
        self._run_fluid(busy)

    @staticmethod
    def _expand_runs(s: Stream) -> None:
        """Replace the stream's CopyRuns by their Ops (the fluid model goes op by op)."""
        pending = s.pending
        if not any(item.__class__ is CopyRun for item in pending):
            return
        items = list(pending)
        pending.clear()
        for item in items:
            if item.__class__ is CopyRun:
                pending.extend(item.ops())  # type: ignore[union-attr]
            else:
                pending.append(item)

    def _independent(self, streams: list[Stream]) -> bool | str:
        """Whether each stream may run alone: no resource that two streams cross can
        limit them (see :func:`.fluid.cannot_bind`; decided once per combination of the
        streams' resource tuples, which routes share). :data:`WAITS` (true) when they may,
        but a stream waits on an event (then :meth:`_run_linked` runs them)."""
        seen: set[Resource] = set()
        overlap = False
        waits = False
        for s in streams:
            mine: set[Resource] = set()
            last: tuple[Resource, ...] | None = None
            for op in s.pending:
                if op.kind == "wait":
                    dep = op.dep
                    if dep is not None and dep.end is None and dep.stream not in streams:
                        return False  # a record no run will reach: the fluid model decides
                    waits = True
                    continue
                res = op.resources
                if res is not last:  # runs of identical copies share one resources tuple
                    mine.update(res)
                    last = res
            if seen & mine:
                overlap = True
            seen |= mine
        if overlap:
            key = tuple(
                tuple(dict.fromkeys(op.resources for op in s.pending if op.kind != "wait"))
                for s in streams
            )
            alone = self._slack.get(key)
            if alone is None:
                alone = self._slack[key] = cannot_bind(key, self.rate)
            if not alone:
                return False
        return WAITS if waits else True

    def _run_linked(self, streams: list[Stream]) -> list[Stream]:
        """Streams that share no resource that could limit them, tied only by waits: each
        runs alone (:meth:`_run_alone`) up to a wait whose record has no time yet, then
        the next, until all are done (what is left if none could go on is returned for
        the fluid model; :meth:`_independent` sends waits on a record no run reaches there).

        The times are those the fluid model gives such streams, without its event loop:
        a copy nothing shares runs at its own rate from when its stream reaches it.
        """
        todo = streams
        while todo:
            left = [s for s in todo if not self._run_alone(s)]
            if len(left) == len(todo):
                return left  # unreachable: _independent sends such waits to the fluid model
            todo = left
        return todo

    def _run_alone(self, s: Stream) -> bool:
        """Give s's pending ops their times, as if nothing else ran; False when it stopped
        at a wait whose record has no time yet (the wait stays at the head).

        Same arithmetic, in the same order, as op by op: t = max(t, enq); a wait also
        waits for its record; then t + (latency + nbytes / bw) * scale. The bottleneck
        rate is looked up once per distinct resources tuple, and a CopyRun's (latency +
        nbytes / bw) once per run.
        """
        t = s.last_end
        rate = self.rate
        bottleneck = self._bottleneck
        binding = self._binding
        pending = s.pending
        popleft = pending.popleft
        last_res: tuple[Resource, ...] | None = None
        bw = float("inf")
        lim = s.limit  # what bound the last copy (a copy with no resources keeps it)
        while pending:
            op = popleft()
            if op.__class__ is CopyRun:
                res = op.resources
                if res is not last_res:
                    bw = bottleneck.get(res)  # type: ignore[assignment]
                    if bw is None:
                        bw = bottleneck[res] = min(rate(r) for r in res) if res else INF
                    last_res = res
                    if res:
                        lim = binding.get(res) or self._bind(res)
                per = op.latency + op.nbytes / bw
                for enq, scale in zip(op.enqs, op.scales):  # type: ignore[union-attr]
                    if enq > t:
                        t = enq
                    t = t + per * scale
                continue
            enq = op.enq  # type: ignore[union-attr]
            if enq > t:
                t = enq
            kind = op.kind
            if kind == "wait" and op.dep is not None:  # type: ignore[union-attr]
                ready = op.dep.end  # type: ignore[union-attr]
                if ready is None:
                    pending.appendleft(op)
                    s.last_end, s.limit = t, lim
                    return False
                if ready > t:
                    t = ready
            op.start = t  # type: ignore[union-attr]
            if kind == "copy":
                res = op.resources
                if res is not last_res:
                    bw = bottleneck.get(res)  # type: ignore[assignment]
                    if bw is None:
                        bw = bottleneck[res] = min(rate(r) for r in res) if res else INF
                    last_res = res
                    if res:
                        lim = binding.get(res) or self._bind(res)
                t = t + (op.latency + op.nbytes / bw) * op.scale  # type: ignore[union-attr]
            elif kind == "record" and op.event is not None:  # type: ignore[union-attr]
                op.event.ts = t  # type: ignore[union-attr]
                op.event.limit = lim  # type: ignore[union-attr]
            op.end = t  # type: ignore[union-attr]
        s.last_end, s.limit = t, lim
        return True

    def _bind(self, res: tuple[Resource, ...]) -> Resource:
        """The resource of a copy running alone that sets its rate (the first slowest)."""
        rate = self.rate
        found = self._binding[res] = min(res, key=rate)
        return found

    def _run_fluid(self, streams: list[Stream]) -> None:
        """Streams that share a resource that can limit them, event by event (see
        :mod:`.fluid`)."""
        run_fluid(streams, self.rate)

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
