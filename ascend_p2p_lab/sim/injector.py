"""The fault injector: every decision the configured faults (see :mod:`.faults`) make.

Whether a call fails (``error``, ``device_lost`` and the devices already lost), whether a
copy is corrupted and how (``corrupt``) or lands at all (``drop``), how long host-side
work takes (``slow_host``), whether an allocation finds its device's memory exhausted
(``memory_exhausted``) and which links run slower (``degrade``, applied to the engine
once; ``transient``, drawn anew at each point's start: :meth:`FaultInjector.begin_point`).
Without faults every decision returns at once.

Example:
    >>> from ascend_p2p_lab.sim.engine import Engine
    >>> from ascend_p2p_lab.sim.errors import ErrorLog
    >>> log = ErrorLog()
    >>> inj = FaultInjector([{"kind": "error", "call": "rt.malloc", "nth": 2}], Engine(), log)
    >>> inj.fault("rt.malloc", (0,)), inj.fault("rt.malloc", (0,)), log.recent()
    (0, 507899, 'EE507899: injected fault in rt.malloc')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .. import codes as C
from ..topology.faultrules import DEVICE_LOST_FAULT
from ..vocab import DIE_HCCS
from .engine import Engine
from .errors import ErrorLog
from .faults import Fault, as_faults
from .jitter import point_seed
from .memory import ChunkedRegion, Region, copy_bytes, flip_pages

#: Calls that still release what the process holds on a lost device.
TEARDOWN = frozenset(
    {
        "rt.free",
        "rt.free_host",
        "rt.destroy_stream",
        "rt.destroy_event",
        "rt.reset_device",
        "rt.reset_device_force",
        "rt.device_disable_peer_access",
        "finalize",
    }
)


class FaultInjector:
    """The faults of one simulator and what they decide.

    Args:
        faults: the faults (Fault objects or dicts), in order.
        engine: the simulator's engine (degraded links are applied to it here; the host
            clock advances through :meth:`host`).
        errors: where a failing call's message goes.
        known_calls: the call names a fault's ``call`` may name (None: not checked).
    """

    def __init__(
        self,
        faults: Iterable[Fault | Mapping[str, object]] | None,
        engine: Engine,
        errors: ErrorLog,
        known_calls: Iterable[str] | None = None,
    ) -> None:
        self.faults = as_faults(faults)
        if known_calls is not None:
            known = set(known_calls)
            for f in self.faults:
                if f.call is not None and f.call not in known:
                    raise ValueError(
                        f"fault call {f.call!r} is not a simulated pyACL call; use "
                        "'init', 'finalize' or 'rt.<name>', e.g. 'rt.memcpy_async'"
                    )
        #: the ``corrupt`` faults (read at every copy while there are any)
        self.corrupt_faults = [f for f in self.faults if f.kind == "corrupt"]
        #: the ``drop`` faults (read at every copy while there are any)
        self.drop_faults = [f for f in self.faults if f.kind == "drop"]
        #: whether any fault acts on the bytes of copies (``corrupt``, ``drop``)
        self.copy_faults = bool(self.corrupt_faults or self.drop_faults)
        #: devices a ``device_lost`` fault has taken
        self.lost: set[int] = set()
        self.engine = engine
        self._fail = errors.fail
        self._flipped: dict[Any, tuple[Any, bytes | None]] = {}  # flip_pages' cache
        #: the ``transient`` faults, with their index among the faults (part of the draw)
        self.transient = [(i, f) for i, f in enumerate(self.faults) if f.kind == "transient"]
        self._passes: dict[str, int] = {}  # point key -> times it began
        self._steady: dict[Any, float] = {}  # the degrade faults' factors

    def degrade(self) -> None:
        """Apply the ``degrade`` faults to the engine's links (once, at start)."""
        for f in self.faults:
            if f.kind == "degrade" and f.link is not None:
                lane = "lane" if f.lane == DIE_HCCS else "link"  # see sim.dielinks
                self.engine.degrade[(lane, *f.link)] = f.factor
        self._steady = dict(self.engine.degrade)

    def begin_point(self, key: str) -> None:
        """A point starts: draw which links the ``transient`` faults dip for it (this
        pass of the point), and set the engine's rates to the steady degrades times the
        dips (its rate caches emptied when they change)."""
        if not self.transient:
            return
        n = self._passes[key] = self._passes.get(key, 0) + 1
        engine = self.engine
        rates = dict(self._steady)
        self.engine.dip = self._copy_dips(key, n)
        for i, f in self.transient:
            if (f.nth is not None and f.nth != n) or f.per == "copy":
                continue
            links = [f.link] if f.link else [r[1:] for r in engine.capacity if r[0] == "link"]
            for src, dst in links:
                draw = point_seed(engine.seed, f"transient/{i}/{key}/{n}/{src}-{dst}") / 2**64
                if draw < f.share:
                    r = ("link", src, dst)
                    rates[r] = rates.get(r, 1.0) * f.factor
        if rates != engine.degrade:
            engine.degrade = rates
            engine.forget_rates()

    def _copy_dips(self, key: str, n: int) -> Any:
        """The engine's per-copy dip for this pass of a point (None: no ``per = "copy"``
        transient fault acts in it): each copy over a faulty link draws, by a hash of
        (seed, fault, point, pass, link, the copy's number over that link), whether it
        runs at ``factor`` (its time / factor)."""
        faults = [
            (i, f) for i, f in self.transient if f.per == "copy" and (f.nth is None or f.nth == n)
        ]
        if not faults:
            return None
        seed, counts = self.engine.seed, {}

        def dip(resources: tuple[Any, ...]) -> float:
            slow = 1.0
            for i, f in faults:
                for r in resources:
                    if r[0] != "link" or (f.link is not None and r[1:] != f.link):
                        continue
                    c = counts[i, r] = counts.get((i, r), 0) + 1
                    at = f"transient/{i}/{key}/{n}/{r[1]}-{r[2]}/{c}"
                    if point_seed(seed, at) / 2**64 < f.share:
                        slow /= f.factor
            return slow

        return dip

    def host(self, us: float) -> None:
        """Advance the host clock by a call's modelled time (times any slow_host factor)."""
        if not self.faults:
            self.engine.host_us += us  # what advance_host(us * 1.0) does
            return
        factor = 1.0
        for f in self.faults:
            if f.kind == "slow_host":
                factor *= f.factor
        self.engine.advance_host(us * factor)

    def memory_exhausted(self, device: int) -> bool:
        """Whether a ``memory_exhausted`` fault empties this device's memory."""
        return any(f.kind == "memory_exhausted" and f.device == device for f in self.faults)

    def fault(
        self, call: str, devices: tuple[int, ...] = (), link: tuple[int, int] | None = None
    ) -> int:
        """The error code an injected fault gives this call, or 0 (counting the uses)."""
        if not self.faults and not self.lost:
            return 0
        for dev in devices:
            if dev in self.lost and call not in TEARDOWN:
                return self._fail(C.ACL_ERROR_RT_LOST_HEARTBEAT, f"device {dev} is lost")
        for f in self.faults:
            if f.kind not in ("error", DEVICE_LOST_FAULT):
                continue
            if f.kind == DEVICE_LOST_FAULT:
                if f.device in devices and (f.call is None or f.call == call):
                    f.seen += 1
                    if f.seen >= (f.nth or 1) and call not in TEARDOWN:
                        self.lost.add(int(f.device))  # type: ignore[arg-type]
                        return self._fail(f.code, f"device {f.device} is lost")
                continue
            if f.call not in (None, call) or not f.concerns(devices, link):
                continue
            f.seen += 1
            if f.nth is None or f.seen == f.nth:
                return self._fail(f.code, f.message or f"injected fault in {call}")
        return 0

    def _hits(
        self,
        faults: list[Fault],
        call: str,
        devices: tuple[int, ...],
        link: tuple[int, int] | None,
    ) -> bool:
        """Whether one of these copy faults acts on this copy (counting it for their nth)."""
        if link is None:  # host copies and copies within one device
            return False
        hit = False
        for f in faults:
            if f.call not in (None, call) or f.link != link:
                continue
            if f.device is not None and f.device not in devices:
                continue
            f.seen += 1
            if f.nth is None or f.seen == f.nth:
                hit = True  # several faults on one copy still act on it once
        return hit

    def corrupts(self, call: str, devices: tuple[int, ...], link: tuple[int, int] | None) -> bool:
        """Whether a ``corrupt`` fault corrupts this copy (counting it for their nth).

        Called only for a copy that is about to happen (after the error faults passed).
        """
        return self._hits(self.corrupt_faults, call, devices, link)

    def drops(self, call: str, devices: tuple[int, ...], link: tuple[int, int] | None) -> bool:
        """Whether a ``drop`` fault drops this copy (counting it for their nth), as
        :meth:`corrupts` decides for ``corrupt``."""
        return self._hits(self.drop_faults, call, devices, link)

    def move(self, call: str, route: Any) -> None:
        """The bytes of a routed copy while copy faults are configured: none when a
        ``drop`` fault drops it, corrupted when a ``corrupt`` fault says so, else moved.
        (Both kinds count the copy, whichever acts.)"""
        dreg, doff, sreg, soff = (
            route.dst_region,
            route.dst_offset,
            route.src_region,
            route.src_offset,
        )
        dropped = bool(self.drop_faults) and self.drops(call, route.devices, route.link)
        corrupted = bool(self.corrupt_faults) and self.corrupts(call, route.devices, route.link)
        if dropped:
            return  # the copy completes; the destination keeps what it held
        if corrupted:
            self.copy_corrupted(dreg, doff, sreg, soff, route.count)
        else:
            copy_bytes(dreg, doff, sreg, soff, route.count)

    def copy_corrupted(self, dreg: Region, doff: int, sreg: Region, soff: int, count: int) -> None:
        """A copy whose written bytes are corrupted (see :func:`.memory.flip_pages`).

        Repeating the corrupted copy that last wrote dst, neither side changed since, is a
        no-op (the bytes would be the same); a clean copy never takes it for one.
        """
        memo = None
        if isinstance(dreg, ChunkedRegion) and isinstance(sreg, ChunkedRegion) and dreg is not sreg:
            memo = ("corrupt", sreg.base, soff, doff, count, sreg.version)
            last = dreg.last_copy
            if last is not None and last[1] == dreg.version and last[0] == memo:
                return
        copy_bytes(dreg, doff, sreg, soff, count)
        flip_pages(dreg, doff, count, self._flipped)
        if memo is not None:
            dreg.version += 1
            dreg.last_copy = (memo, dreg.version)
