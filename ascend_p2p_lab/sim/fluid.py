"""The fluid model: streams whose copies share resources, simulated event by event.

:meth:`.engine.Engine.resolve` uses it when pending streams share a resource that can
limit them (otherwise each stream runs alone, which is cheaper, waits on events included:
``Engine._run_linked``). Event by event: start every
stream head that is ready at t (:func:`_start_ready`), share the resources max-min fairly
among the copies moving over them (:func:`_share`), advance to the next event (a latency ending,
a copy finishing, a head becoming ready: :func:`_next_event`), move the bytes and retire
the copies that finished (:func:`_advance`). Each copy keeps the bytes it moved while
each resource bound it (the one max-min sharing fixed its rate at, or alone its slowest):
when it ends, the one that held it for most bytes is its stream's ``limit``, which the
next event record on the stream keeps (``SimEvent.limit``). The arithmetic is the plain
reading of that, step for step; only lookups are hoisted: ``max(a, b)`` is written
``b if b > a else a`` and ``min(a, b)`` ``b if b < a else a`` (the same values), a head's
ready time is inlined, and the rate of each resource is read once per call.

Example:
    >>> from ascend_p2p_lab.sim.engine import Engine
    >>> eng = Engine(capacity={("link", 0, 1): 1000.0})
    >>> a, b = eng.new_stream(0), eng.new_stream(0)
    >>> x = eng.enqueue_copy(a, 1000, (("link", 0, 1),), latency_us=0.0)
    >>> y = eng.enqueue_copy(b, 1000, (("link", 0, 1),), latency_us=0.0)
    >>> eng.resolve(); x.end, y.end  # the link shared: each at half rate
    (2.0, 2.0)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .engine import Op, Stream

Resource = Hashable
EPS = 1e-9


def head_ready(s: Stream) -> float | None:
    """When the head of s may start (None: a wait whose record has not run)."""
    op = s.pending[0]
    t = max(op.enq, s.last_end)  # type: ignore[union-attr]
    if op.kind == "wait" and op.dep is not None:  # type: ignore[union-attr]
        rec = op.dep  # type: ignore[union-attr]
        if rec.end is None:
            return None
        t = max(t, rec.end)
    return t


def run_fluid(streams: list[Stream], rate: Callable[[Resource], float]) -> None:
    """Give every pending op of streams its start and end times (CopyRuns expanded)."""
    rate_cache: dict[Resource, float] = {}
    active: list[Op] = []
    t = min(max(s.pending[0].enq, s.last_end) for s in streams)  # type: ignore[union-attr]
    live = list(streams)
    while live or active:
        live = _start_ready(live, active, t)
        if not active:
            t, live = _idle(live, t)
            if t is None:
                break
            continue
        teps = t + EPS
        moving = [op for op in active if op.lat_end <= teps]
        rates, binds = _share(moving, rate, rate_cache)  # per moving op, in order
        nxt = _next_event(active, live, rates, t)
        active = _advance(active, moving, rates, binds, t, nxt)
        t = nxt


def _idle(live: list[Stream], t: float) -> tuple[float | None, list[Stream]]:
    """Nothing moves at t: jump to the next ready head (a wait that can never be
    satisfied is treated as done); None when no stream has work left."""
    readies = [r for s in live if s.pending and (r := head_ready(s)) is not None]
    if not readies:
        for s in live:
            s.pending[0].dep = None  # type: ignore[union-attr]
        return (None if not live else t), live
    return max(t, min(readies)), live


def _start_ready(live: list[Stream], active: list[Op], t: float) -> list[Stream]:
    """Start every head that is ready at t (copies join active; records and waits end at
    once, which may make the next head ready); returns the streams with work left."""
    started = True
    while started:
        started = False
        teps = t + EPS
        keep = []
        for s in live:
            pending = s.pending
            if not pending:
                continue  # drained: leaves live
            keep.append(s)
            op = pending[0]
            if op.start is not None:  # type: ignore[union-attr]
                continue
            # ready = head_ready(s)
            ready = op.enq  # type: ignore[union-attr]
            last = s.last_end
            if last > ready:
                ready = last
            kind = op.kind
            if kind == "wait" and op.dep is not None:  # type: ignore[union-attr]
                rec_end = op.dep.end  # type: ignore[union-attr]
                if rec_end is None:
                    continue
                if rec_end > ready:
                    ready = rec_end
            if ready > teps:
                continue
            op.start = t  # type: ignore[union-attr]
            if kind != "copy":
                op.end = t  # type: ignore[union-attr]
                if kind == "record" and op.event is not None:  # type: ignore[union-attr]
                    op.event.ts = t  # type: ignore[union-attr]
                    op.event.limit = s.limit  # type: ignore[union-attr]
                s.last_end = t
                pending.popleft()
                started = True
            else:
                op.lat_end = t + op.latency * op.scale  # type: ignore[union-attr]
                op.remaining = float(op.nbytes)  # type: ignore[union-attr]
                active.append(op)  # type: ignore[arg-type]
        live = keep
    return live


def _share(
    moving: list[Op], rate: Callable[[Resource], float], rate_cache: dict[Resource, float]
) -> tuple[list[float], list[Resource]]:
    """Each moving copy's rate, max-min fair, and the resource that bound it: where no
    resource is shared, its slowest resource; else by progressive filling
    (:func:`_max_min`). A copy's jitter factor (``scale``) then slows it on its own."""
    counts: dict[Resource, int] = {}
    shared = False
    for op in moving:
        for r in op.resources:
            c = counts.get(r, 0) + 1
            counts[r] = c
            if c > 1:
                shared = True
    for r in counts:
        if r not in rate_cache:
            rate_cache[r] = rate(r)
    if shared:
        binds: list[Resource] = []
        fair = _max_min(moving, counts, rate_cache, binds)
        return [v / op.scale for v, op in zip(fair, moving)], binds
    inf = float("inf")
    rates = []
    binds = []
    for op in moving:
        m = inf
        b = None
        for r in op.resources:
            rv = rate_cache[r]
            if rv < m:
                m, b = rv, r
        rates.append(m / op.scale)
        binds.append(b)
    return rates, binds


def _max_min(
    moving: list[Op],
    counts: dict[Resource, int],
    capacity: dict[Resource, float],
    binds: list[Resource] | None = None,
) -> list[float]:
    """Max-min fair rates by progressive filling: the resource whose remaining capacity
    per unfixed copy is smallest fixes its copies at that share; repeat with what is left.
    ``binds``, when given, receives the resource that fixed each copy (it is saturated).

    Example:
        >>> from types import SimpleNamespace as Op
        >>> a = Op(resources=("port", "slow"))  # limited to 10 by its own link
        >>> b = Op(resources=("port",))
        >>> _max_min([a, b], {"port": 2, "slow": 1}, {"port": 100.0, "slow": 10.0})
        [10.0, 90.0]
    """
    left = {r: capacity[r] for r in counts}
    users = dict(counts)
    fixed: list[float | None] = [None] * len(moving)
    why: list[Resource] = [None] * len(moving)
    todo = len(moving)
    while todo:
        bottleneck = min((r for r in users if users[r]), key=lambda r: left[r] / users[r])
        share = max(left[bottleneck], 0.0) / users[bottleneck]
        for i, op in enumerate(moving):
            if fixed[i] is None and bottleneck in op.resources:
                fixed[i], why[i] = share, bottleneck
                todo -= 1
                for r in op.resources:
                    left[r] -= share
                    users[r] -= 1
    if binds is not None:
        binds.extend(why)
    return [v if v is not None else 0.0 for v in fixed]


def _next_event(active: list[Op], live: list[Stream], rates: list[float], t: float) -> float:
    """The next event after t: a latency ending, a copy finishing, a head becoming ready."""
    teps = t + EPS
    nxt = float("inf")
    i = 0
    for op in active:
        lat_end = op.lat_end
        if lat_end > teps:
            if lat_end < nxt:
                nxt = lat_end
        else:
            v = t + op.remaining / rates[i]
            i += 1
            if v < nxt:
                nxt = v
    return _next_ready(live, teps, nxt)


def _next_ready(live: list[Stream], teps: float, nxt: float) -> float:
    """The earlier of nxt and the first time after teps a waiting head becomes ready."""
    for s in live:
        pending = s.pending
        if not pending:
            continue
        op = pending[0]
        if op.start is not None:  # type: ignore[union-attr]
            continue
        # r = head_ready(s)
        r = op.enq  # type: ignore[union-attr]
        last = s.last_end
        if last > r:
            r = last
        if op.kind == "wait" and op.dep is not None:  # type: ignore[union-attr]
            rec_end = op.dep.end  # type: ignore[union-attr]
            if rec_end is None:
                continue
            if rec_end > r:
                r = rec_end
        if r > teps and r < nxt:
            nxt = r
    return nxt


def _advance(
    active: list[Op],
    moving: list[Op],
    rates: list[float],
    binds: list[Resource],
    t: float,
    nxt: float,
) -> list[Op]:
    """Move the bytes from t to nxt (each copy's counted against what bound it); retire
    the copies that finished, their streams keeping what bound each; returns the rest."""
    dt = nxt - t
    if dt <= 0.0:  # t so large that a copy's last bytes end within its rounding: done
        for op, rt in zip(moving, rates):
            if t + op.remaining / rt <= t:
                op.remaining = 0.0
    for op, rt, b in zip(moving, rates, binds):
        moved = rt * dt
        op.remaining -= moved
        bound = op.bound
        if bound is None:
            op.bound = {b: moved}
        else:
            bound[b] = bound.get(b, 0.0) + moved
    t = nxt
    teps = t + EPS
    still = []
    for op in active:
        nb = op.nbytes
        if op.lat_end <= teps and op.remaining <= 1e-6 * (1 if nb < 1 else nb):
            op.end = t
            stream = op.stream
            stream.last_end = t
            stream.pending.popleft()
            bound = op.bound
            if bound and op.resources:  # a copy with no resources keeps the last one's
                stream.limit = max(bound, key=bound.__getitem__)
        else:
            still.append(op)
    return still


def cannot_bind(
    per_stream: tuple[tuple[tuple[Resource, ...], ...], ...], rate: Callable[[Resource], float]
) -> bool:
    """Whether no resource shared by several streams can limit them: for each, the
    fastest each stream's copies could go elsewhere adds up to no more than its rate
    (a both-directions budget that two copies of a pair never fill), so max-min
    sharing gives every copy the rate it has alone (``Engine._independent`` asks)."""
    users: dict[Resource, int] = {}
    demand: dict[Resource, float] = {}
    for tuples in per_stream:
        mine: dict[Resource, float] = {}
        for res in tuples:
            for r in res:
                other = min((rate(x) for x in res if x != r), default=float("inf"))
                if other > mine.get(r, 0.0):
                    mine[r] = other
        for r, most in mine.items():
            users[r] = users.get(r, 0) + 1
            demand[r] = demand.get(r, 0.0) + most
    return all(demand[r] <= rate(r) for r, n in users.items() if n > 1)
