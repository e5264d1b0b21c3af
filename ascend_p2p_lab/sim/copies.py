"""The copy calls: ``aclrtMemcpy``, ``aclrtMemcpyAsync``, and the fast path of a repeated
``aclrtMemcpyAsync``.

Both calls check the session (init, current device, the stream), route the copy with
:class:`~.routes.Router` (one cached :class:`~.routes.Route` per distinct copy), let the
fault injector decide (an error, a corrupted or dropped copy), move the bytes and charge
the time: a synchronous copy runs on its own and the host waits for it; an asynchronous
one is queued on its stream.

A sweep repeats one ``memcpy_async`` thousands of times. A successful one is kept in
:attr:`Copies.plans`, keyed by its argument tuple, as an :class:`AsyncCopy` (the current
device it was checked under, its stream, its Route); :meth:`Copies.fast_memcpy_async`
builds ``acl.rt.memcpy_async`` so that a call identical to a kept one (plain ints, same
current device, no call since that could change the outcome) skips the checks and does
only what has effects.

Example:
    >>> from ascend_p2p_lab.sim import simulated_acl
    >>> acl = simulated_acl("atlas800t-a2")
    >>> acl.init(), acl.rt.set_device(0)
    (0, 0)
    >>> (a, _), (b, _) = acl.rt.malloc(4096, 0), acl.rt.malloc(4096, 0)
    >>> acl.rt.memcpy_async(b, 4096, a, 4096, 3, 0), acl.rt.memcpy_async(b, 4096, a, 4096, 3, 0)
    (0, 0)
    >>> plan = acl._copies.plans[(b, 4096, a, 4096, 3, 0)]
    >>> plan.route is acl._router.cache[(b, 4096, a, 4096, 3, 0)]
    True
    >>> acl.rt.synchronize_device(), acl.rt.free(a), acl.rt.free(b), acl.rt.reset_device(0)
    (0, 0, 0, 0)
    >>> acl.finalize()
    0
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import codes as C
from .devices import Devices
from .engine import Stream
from .memory import Region, copy_bytes, move_bytes
from .part import Part, Shared, pyacl
from .routes import Route, Router
from .streams import Streams

_ASYNC = "rt.memcpy_async"
#: what :attr:`AsyncCopy.seen` holds before its first repeat: never a destination's
#: ``last_copy`` (not even None, a destination no memoized copy wrote yet)
_UNSEEN = object()


def plain_ints(args: tuple) -> bool:
    """Whether a ``memcpy_async`` call's six arguments are all plain ``int`` (what a kept
    copy is keyed by: a bool is a valid argument, never kept).

    Example:
        >>> plain_ints((1, 2, 3, 4, 0, 5)), plain_ints((1, 2, 3, True, 0, 5))
        (True, False)
    """
    dst, dest_max, src, count, kind, stream = args
    return (
        type(dst) is int is type(dest_max) is type(src) is type(count) is type(kind) is type(stream)
    )


@dataclass(frozen=True, slots=True)
class AsyncCopy:
    """A memcpy_async that passed every check: what its repeats reuse.

    (Slots, not a NamedTuple: unpacking a tuple subclass goes through the generic
    iterator protocol. The fast path reads :attr:`parts`, a plain tuple, in one unpack.)
    """

    current: int  # the current device it was checked under
    stream: Stream
    route: Route
    #: (current, stream, and the route's dst_region, dst_offset, src_region, src_offset,
    #: memo_able, resources, nbytes, latency_us, then :attr:`seen`): what a repeat reads,
    #: in one tuple
    parts: tuple = field(init=False, repr=False, compare=False)
    #: what the last repeat found, so that the next one can tell by identity that nothing
    #: changed: [the destination's ``last_copy`` that was this copy's memo (``_UNSEEN``
    #: before the first), the source's version in it, the CopyRun the copy was appended to]
    seen: list = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        r = self.route
        seen = [_UNSEEN, None, None]
        object.__setattr__(self, "seen", seen)
        object.__setattr__(
            self,
            "parts",
            (
                self.current,
                self.stream,
                r.dst_region,
                r.dst_offset,
                r.src_region,
                r.src_offset,
                r.memo_able,
                r.resources,
                r.nbytes,
                r.latency_us,
                seen,
            ),
        )


class Copies(Part):
    """The copy calls and the kept asynchronous copies."""

    def __init__(self, shared: Shared, devices: Devices, streams: Streams, router: Router) -> None:
        super().__init__(shared)
        self.devices, self.streams, self.router = devices, streams, router
        #: successful memcpy_async calls by their argument tuple (plain ints only)
        self.plans: dict[tuple[int, ...], AsyncCopy] = {}
        #: drops the fast path's last repeat (set by :meth:`fast_memcpy_async`)
        self.forget_last: Callable[[], None] = lambda: None
        #: how many times :meth:`clear` dropped what is kept (a compiled program of kept
        #: calls, :mod:`.programs`, holds while this is unchanged)
        self.cleared = 0

    def clear(self) -> None:
        """Forget the kept copies and routes, and the kept contexts, records and waits
        (memory, streams, devices or peers changed)."""
        self.cleared += 1
        self.router.clear()
        self.plans.clear()
        self.forget_last()
        self.devices.kept.clear()
        self.streams.kept_records.clear()
        self.streams.kept_waits.clear()

    def _move(self, call: str, route: Route) -> None:
        """The bytes of a routed copy (corrupted or dropped when a ``corrupt`` or ``drop``
        fault says so: :meth:`.injector.FaultInjector.move`)."""
        if self.injector.copy_faults:
            self.injector.move(call, route)
        else:
            copy_bytes(
                route.dst_region, route.dst_offset, route.src_region, route.src_offset, route.count
            )

    def _route_and_move(
        self, call: str, dst: int, dest_max: int, src: int, count: int, kind: int, cur: int
    ) -> tuple[Route | None, int]:
        """What both copy calls do before charging device time: route the copy, let the
        injector decide, move the bytes, charge the host's call cost."""
        route, code = self.router.resolve(dst, dest_max, src, count, kind, cur)
        if code or route is None:
            return None, code
        code = self._fault_and_move(call, route)
        return (None, code) if code else (route, 0)

    def _fault_and_move(self, call: str, route: Route) -> int:
        """A routed copy: let the injector decide, move the bytes, charge the host's call
        cost; the injected code, else 0."""
        injector = self.injector
        code = injector.fault(call, route.devices, route.link)
        if code:
            return code
        self._move(call, route)
        injector.host(self.topology.host.api_us)
        return 0

    @pyacl("rt.memcpy", "kkkki", keeps_plans=True)
    def memcpy(self, dst: int, dest_max: int, src: int, count: int, kind: int) -> int:
        if count == 0:  # aclrtMemcpyImpl: before any other check (memory.cpp)
            return 0
        cur, code = self.devices.init_and_current()
        if code or cur is None:
            return code
        if not dst or not src:
            return self.fail(C.ACL_ERROR_INVALID_PARAM, "dst or src is NULL")
        route, code = self.router.resolve(dst, dest_max, src, count, kind, cur, infer=True)
        if code or route is None:
            return code
        if route.link is None and _imported_cross(route):
            return self.fail(
                C.ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "no synchronous copy within one device through an imported pointer",
            )
        injector, engine, host = self.injector, self.engine, self.topology.host
        if injector.faults or injector.lost:
            code = self._fault_and_move("rt.memcpy", route)  # the route resolved once
            if code:
                return code
            engine.run_blocking_copy(route.device, route.nbytes, route.resources, route.latency_us)
            injector.host(host.sync_return_us)
            return 0
        # no fault can act: _fault_and_move's bytes and host(), without their calls
        copy_bytes(
            route.dst_region, route.dst_offset, route.src_region, route.src_offset, route.count
        )
        engine.host_us += host.api_us
        engine.run_blocking_copy(route.device, route.nbytes, route.resources, route.latency_us)
        engine.host_us += host.sync_return_us
        return 0

    @pyacl("rt.memcpy_async", "kkkkik", keeps_plans=True, fast="fast_memcpy_async")
    def memcpy_async(
        self, dst: int, dest_max: int, src: int, count: int, kind: int, stream: int
    ) -> int:
        if count == 0:  # aclrtMemcpyAsyncImpl: before any other check (memory.cpp)
            return 0
        devices = self.devices
        if not devices.initialized:
            return devices.check_init()
        cur, code = devices.need_current()
        if code or cur is None:
            return code
        if not dst or not src:
            return self.fail(C.ACL_ERROR_INVALID_PARAM, "dst or src is NULL")
        s, code = self.streams.stream_of(stream, cur)
        if code or s is None:
            return code
        route, code = self._route_and_move(_ASYNC, dst, dest_max, src, count, kind, cur)
        if code or route is None:
            return code
        args = (dst, dest_max, src, count, kind, stream)
        if plain_ints(args):  # bools are valid arguments but are not kept
            self.plans[args] = AsyncCopy(cur, s, route)
        self.engine.append_copy(s, route.nbytes, route.resources, route.latency_us)
        return 0

    def keep_routed(self, args: tuple, cur: int) -> AsyncCopy | None:
        """Keep ``memcpy_async(*args)`` under current device ``cur`` without making it,
        when its checks are known to pass: plain int arguments, count above 0, no NULL, the
        device set, a stream of ``cur``'s context, and the copy routed (the route cached, or
        resolved now as the call would route it, the call's last check: one that fails
        leaves no error text, the call reports it). What a first call would keep; None
        (nothing kept) otherwise. :mod:`.programs` then computes the call as a repeat."""
        if len(args) != 6 or not plain_ints(args):
            return None
        dst, dest_max, src, count, kind, stream = args
        devices, streams, router = self.devices, self.streams, self.router
        if count <= 0 or not dst or not src or not stream or not devices.initialized:
            return None
        s = streams.streams.get(stream)
        if devices.refs.get(cur, 0) == 0 or s is None or s.device != cur:
            return None
        ctx = devices.context_handle(cur)
        if streams.owner.get(stream, ctx) != ctx:
            return None
        key = (dst, dest_max, src, count, kind, cur)
        route = router.cache.get(key) or router.linked.get(key)
        if route is None:  # the call's own routing, its failure left to the call
            route = router.resolve_quietly(dst, dest_max, src, count, kind, cur)
            if route is None:
                return None
        kept = self.plans[args] = AsyncCopy(cur, s, route)
        return kept

    def fast_memcpy_async(
        self, name: str, lock: Any, counts: dict[str, int], checked: Callable[..., int]
    ) -> Callable[..., int]:
        """``acl.rt.memcpy_async``: the kept copy when the call repeats one, else
        ``checked`` (the format check, then :meth:`memcpy_async`).

        Under ``lock``, counting the call in ``counts`` as every wrapped call is. A repeat
        does what the checked path would: the fault check (when faults are configured:
        :meth:`_faulted_repeat`), moving the bytes (skipped when copy_bytes' own memo says
        they are already there: :attr:`AsyncCopy.seen` tells it by identity, else
        :func:`move_kept` decides as copy_bytes would), advancing the host clock, queueing
        the copy (on the run it extended last, found by identity, else as
        ``Engine.append_copy`` decides).
        """
        plans, tls, engine, injector = self.plans, self.devices.tls, self.engine, self.injector
        faults, append_copy, faulted = injector.faults, engine.append_copy, self._faulted_repeat
        api_us = self.topology.host.api_us
        # the arguments of the last repeat and its kept copy: a call whose arguments are
        # the same objects is that copy again (equal, and plain ints), without the lookup.
        # A kept copy stays right for its current device until all are dropped
        # (Copies.clear, which forgets this one too).
        a0 = a1 = a2 = a3 = a4 = a5 = last = None

        def forget() -> None:
            nonlocal last
            last = None

        self.forget_last = forget

        def memcpy_async(*args: Any) -> int:
            nonlocal a0, a1, a2, a3, a4, a5, last
            lock.acquire()  # acquire/release: cheaper than `with lock` per call
            try:
                try:
                    counts[name] += 1
                except KeyError:  # the first call
                    counts[name] = 1
                try:
                    dst, dest_max, src, count, kind, stream = args
                except ValueError:  # another number of arguments: the checks report it
                    return checked(*args)
                if (
                    dst is a0
                    and dest_max is a1
                    and src is a2
                    and count is a3
                    and kind is a4
                    and stream is a5
                    and last is not None
                ):
                    hit = last
                else:
                    hit = kept_copy(plans, args)
                    if hit is None:
                        return checked(*args)
                    a0, a1, a2, a3, a4, a5, last = (dst, dest_max, src, count, kind, stream, hit)
                cur, s, dreg, doff, sreg, soff, memo_able, res, nbytes, latency, seen = hit.parts
                if cur != tls.device:
                    return checked(*args)
                if faults:
                    return faulted(hit)
                if memo_able:  # copy_bytes' memo (count > 0, regions memoizable), inlined
                    last_copy = dreg.last_copy
                    if (
                        last_copy is not seen[0]
                        or last_copy[1] != dreg.version
                        or seen[1] != sreg.version
                    ):
                        move_kept(dreg, doff, sreg, soff, count, seen)
                else:
                    copy_bytes(dreg, doff, sreg, soff, count)
                now = engine.host_us + api_us  # what host() does without faults
                engine.host_us = now
                pending = s.pending
                run = seen[2]
                if pending and pending[-1] is run:  # extends its run: append_copy, inlined
                    run.enqs.append(now)
                    run.scales.append(engine.next_factor())
                else:
                    seen[2] = append_copy(s, nbytes, res, latency)
                return 0
            finally:
                lock.release()

        return memcpy_async

    def _faulted_repeat(self, hit: AsyncCopy) -> int:
        """A kept copy repeated while faults are configured: what the checked path does
        after its checks (the fault check, the bytes, corrupted, dropped or not, the host
        clock with any slow_host factor, the queued copy)."""
        route, injector = hit.route, self.injector
        code = injector.fault(_ASYNC, route.devices, route.link)
        if code:
            return code
        _, s, *_, res, nbytes, latency, seen = hit.parts
        self._move(_ASYNC, route)
        injector.host(self.topology.host.api_us)
        seen[2] = self.engine.append_copy(s, nbytes, res, latency)
        return 0


def kept_copy(plans: dict[tuple[int, ...], AsyncCopy], args: tuple) -> AsyncCopy | None:
    """The kept copy of these arguments (keyed by the argument tuple itself), if they are
    plain ints: an equal 1.0 or numpy integer is left to the checks, and so is an
    unhashable argument."""
    try:
        hit = plans.get(args)
    except TypeError:
        return None
    if hit is None:
        return None
    return hit if plain_ints(args) else None


def move_kept(dreg: Region, doff: int, sreg: Region, soff: int, count: int, seen: list) -> None:
    """:func:`copy_bytes` of a kept copy (memoizable, distinct regions, count > 0) whose
    :attr:`AsyncCopy.seen` did not vouch for the destination: the memo compared part by
    part, the bytes moved when it differs; then ``seen`` holds the memo now in place."""
    memo = (sreg.base, soff, doff, count, sreg.version)
    last = dreg.last_copy
    if last is None or last[1] != dreg.version or last[0] != memo:
        move_bytes(dreg, doff, sreg, soff, count)
        dreg.version += 1
        dreg.last_copy = last = (memo, dreg.version)
    seen[0], seen[1] = last, memo[4]


def _imported_cross(route: Route) -> bool:
    """The copy reads or writes memory imported from another device's process."""
    return getattr(route.src_region, "cross_device", False) or getattr(
        route.dst_region, "cross_device", False
    )
