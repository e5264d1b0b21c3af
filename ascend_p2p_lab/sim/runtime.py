"""The simulated CANN runtime: pyACL's API over a modelled Atlas server.

:class:`SimulatedACL` is a drop-in for ``import acl``: the same names under ``acl.rt``
and ``acl.util``, the same argument order, out-values first and ``ret`` last, the real
numeric error codes, and the semantics of pyacl-api.md section 5. Behind it: a
:class:`~ascend_p2p_lab.topology.Topology` (which links exist and how fast they are),
an :class:`~.engine.Engine` (virtual time), an :class:`~.memory.AddressSpace` (bytes
that really move) and a ledger of what is outstanding.

Example:
    >>> from ascend_p2p_lab.sim import simulated_acl
    >>> acl = simulated_acl("atlas800t-a2")
    >>> acl.init()
    0
    >>> acl.rt.device_can_access_peer(0, 1)
    (1, 0)
    >>> acl.rt.device_enable_peer_access(1, 0)  # no current device yet
    107002
    >>> acl.finalize()
    0
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Callable, Iterable, Mapping
from types import SimpleNamespace
from typing import Any

from .. import codes as C
from ..topology.model import Topology
from .engine import Engine, SimEvent, Stream
from .faults import Fault, as_faults
from .memory import AddressSpace, ChunkedRegion, ViewRegion, copy_bytes, flip_pages

#: pyACL functions that only newer CANN releases have; ``api_level="old"`` hides them.
NEWER_CALLS = (
    "device_peer_access_status",
    "get_devices_topo",
    "reset_device_force",
    "create_event_ex_with_flag",
    "event_get_timestamp",
)
#: Host time of the first aclrtSetDevice of a device in a process (op upload, AICPU start).
FIRST_SET_DEVICE_US = 200_000.0
_CONTEXT_BASE = 0xC7_0000  # default context handle of device d: _CONTEXT_BASE + d
_GB = 1e3  # GB/s -> bytes per microsecond
_HOST_H2H_GBPS = 10.0
_TEARDOWN = frozenset(
    {"rt.free", "rt.free_host", "rt.destroy_stream", "rt.destroy_event", "rt.reset_device",
     "rt.reset_device_force", "rt.device_disable_peer_access", "finalize"}
)
#: Calls that cannot change what a copy resolves to (its regions, its stream, whether the
#: device is set, peer access). Every other call drops the cached copy plans.
_KEEPS_PLANS = frozenset(
    {"rt.memcpy", "rt.memcpy_async", "rt.memset", "rt.set_context", "rt.get_device",
     "rt.get_context", "rt.get_device_count", "rt.get_devices_topo", "rt.get_device_info",
     "rt.device_can_access_peer", "rt.device_peer_access_status", "rt.get_mem_info",
     "rt.synchronize_stream", "rt.synchronize_device", "rt.create_event",
     "rt.create_event_with_flag", "rt.create_event_ex_with_flag", "rt.destroy_event",
     "rt.record_event", "rt.stream_wait_event", "rt.synchronize_event",
     "rt.event_elapsed_time", "rt.event_get_timestamp"}
)


def _f32(x: float) -> float:
    """Round to a C float, as pyACL's ``Py_BuildValue("f", ...)`` does."""
    return struct.unpack("f", struct.pack("f", x))[0]


def _int(name: str, value: object) -> int:
    """Argument check in the spirit of PyArg_ParseTuple: ints only (bool is an int)."""
    if type(value) is int:
        return value
    if not isinstance(value, int):
        raise TypeError(f"{name}: an integer is required (got type {type(value).__name__})")
    return value


class SimulatedACL:
    """A module-like simulated pyACL (``acl``); see the module docstring.

    Args:
        topology: the server to model.
        seed: seed of the jitter; the same seed gives the same numbers.
        faults: faults to inject (see :mod:`.faults`).
        api_level: ``"new"`` (all calls) or ``"old"`` (hides :data:`NEWER_CALLS`).
        jitter: overrides the topology's relative jitter of copy times.
    """

    def __init__(
        self,
        topology: Topology,
        *,
        seed: int = 0,
        faults: Iterable[Fault | Mapping[str, object]] | None = None,
        api_level: str = "new",
        jitter: float | None = None,
    ) -> None:
        if api_level not in ("new", "old"):
            raise ValueError("api_level must be 'new' or 'old'")
        self.topology = topology
        self.seed = seed
        self.api_level = api_level
        self.faults = as_faults(faults)
        #: the ``corrupt`` faults (read at every copy while there are any; see _corrupts)
        self._corrupt_faults = [f for f in self.faults if f.kind == "corrupt"]
        known = {"init", "finalize", *(f"rt.{name}" for name in _RT_CALLS)}
        for f in self.faults:
            if f.call is not None and f.call not in known:
                raise ValueError(f"fault call {f.call!r} is not a simulated pyACL call; use "
                                 "'init', 'finalize' or 'rt.<name>', e.g. 'rt.memcpy_async'")
        self._lock = threading.RLock()
        self._tls = threading.local()
        self._reset_state(jitter if jitter is not None else topology.jitter)
        self.__name__ = "acl"
        self.__simulated__ = True
        self.rt = self._namespace("rt", _RT_CALLS)
        self.util = SimpleNamespace(
            bytes_to_ptr=self._bytes_to_ptr,
            ptr_to_bytes=self._ptr_to_bytes,
            numpy_to_ptr=self._bytes_to_ptr,
        )

    # ------------------------------------------------------------------ plumbing
    def _reset_state(self, jitter: float) -> None:
        topo = self.topology
        cap: dict[Any, float] = {}
        n = topo.device_count
        for i in range(n):
            cap[("hbm", i)] = topo.local_copy_GBps * _GB
            cap[("h2d", i)] = topo.host.h2d_GBps * _GB
            cap[("d2h", i)] = topo.host.d2h_GBps * _GB
            if topo.port_GBps:
                cap[("egress", i)] = topo.port_GBps * _GB
                cap[("ingress", i)] = topo.port_GBps * _GB
            for j in range(n):
                lc = topo.link_class(i, j)
                if lc is not None:
                    cap[("link", i, j)] = lc.bandwidth_GBps * _GB
        cap[("h2h",)] = _HOST_H2H_GBPS * _GB
        self.engine = Engine(cap, jitter=jitter, seed=self.seed)
        for f in self.faults:
            if f.kind == "degrade" and f.link is not None:
                self.engine.degrade[("link", *f.link)] = f.factor
        self.space = AddressSpace()
        self.initialized = False
        self.device_refs: dict[int, int] = {}
        self.ever_set: set[int] = set()
        self.peer_refs: dict[tuple[int, int], int] = {}
        self.streams: dict[int, Stream] = {}
        self.default_streams: dict[int, Stream] = {}
        self.events: dict[int, SimEvent] = {}
        self.device_allocs: dict[int, int] = {}  # base -> accounted bytes
        self.host_allocs: set[int] = set()
        self.used: dict[int, int] = {}
        self.views: dict[int, ViewRegion] = {}
        self.implicit_releases: list[str] = []
        self.lost: set[int] = set()
        self.call_counts: dict[str, int] = {}
        self._errmsg: dict[int, str] = {}
        # Memo of successful copy checks. A sweep repeats one copy thousands of times;
        # what it resolves to only changes when memory, streams, devices or peer access
        # do, and every call that may change them clears these (see _KEEPS_PLANS).
        self._routes: dict[tuple[int, ...], dict[str, Any]] = {}
        self._async_plans: dict[tuple[int, ...], tuple[Any, ...]] = {}
        self._flipped: dict[Any, tuple[Any, bytes | None]] = {}  # flip_pages' cache (corrupt)

    def _invalidate(self) -> None:
        """Forget the memoized copy plans (memory, streams, devices or peers changed)."""
        self._routes.clear()
        self._async_plans.clear()

    def _namespace(self, prefix: str, names: Iterable[str]) -> SimpleNamespace:
        ns = SimpleNamespace()
        for name in names:
            if self.api_level == "old" and name in NEWER_CALLS:
                continue
            setattr(ns, name, self._wrap(f"{prefix}.{name}", getattr(self, f"_{name}")))
        return ns

    def _wrap(self, qualname: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        lock = self._lock
        if qualname == "rt.memcpy_async":
            call = self._wrap_memcpy_async(qualname, fn)
        elif qualname in _KEEPS_PLANS:
            def call(*args: Any) -> Any:
                lock.acquire()  # acquire/release: cheaper than `with lock` per call
                try:
                    counts = self.call_counts
                    counts[qualname] = counts.get(qualname, 0) + 1
                    return fn(*args)
                finally:
                    lock.release()
        else:
            def call(*args: Any) -> Any:
                lock.acquire()
                try:
                    counts = self.call_counts
                    counts[qualname] = counts.get(qualname, 0) + 1
                    return fn(*args)
                finally:
                    self._invalidate()
                    lock.release()

        call.__name__ = qualname.split(".")[-1]
        call.__qualname__ = qualname
        call.__doc__ = fn.__doc__
        return call

    def _wrap_memcpy_async(self, qualname: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``acl.rt.memcpy_async`` with a fast path for a repeated copy.

        A call identical to one that passed every check before (plain ints, same current
        device), with no call since that could change the outcome (see _KEEPS_PLANS),
        skips the checks and does what the full path would: the fault check (when faults
        are configured), moving the bytes (corrupted under a ``corrupt`` fault), advancing
        the host clock, queueing the copy.
        """
        lock = self._lock

        def memcpy_async(*args: Any) -> Any:
            lock.acquire()  # acquire/release: cheaper than `with lock` per call
            try:
                counts = self.call_counts
                counts[qualname] = counts.get(qualname, 0) + 1
                try:
                    hit = self._async_plans.get(args)  # keyed by the argument tuple itself
                except TypeError:  # an unhashable argument: the full path's checks report it
                    hit = None
                if hit is None:
                    return fn(*args)
                dst, dest_max, src, count, kind, stream = args
                if not (type(dst) is int is type(dest_max) is type(src) is type(count)
                        is type(kind) is type(stream)):
                    return fn(*args)  # equal but not int (1.0, numpy ints): the checks decide
                (cur, s, plan, dreg, doff, sreg, soff, api_us, res, lat, memo_able,
                 staged) = hit
                if cur != getattr(self._tls, "device", None):
                    return fn(*args)
                faults = self.faults
                if faults:
                    code = self._fault("rt.memcpy_async", plan["devices"], plan.get("link"))
                    if code:
                        return code
                if faults and self._corrupt_faults and self._corrupts("rt.memcpy_async", plan):
                    self._copy_corrupted(dreg, doff, sreg, soff, count)
                elif memo_able:  # copy_bytes' own "same copy as last time, nothing changed" test
                    last = dreg.last_copy
                    if (last is None or last[1] != dreg.version
                            or last[0] != (sreg.base, soff, doff, count, sreg.version)):
                        copy_bytes(dreg, doff, sreg, soff, count)
                else:
                    copy_bytes(dreg, doff, sreg, soff, count)
                engine = self.engine
                if faults:
                    self._host(api_us)
                else:
                    engine.host_us += api_us  # what _host does without faults
                engine.append_copy(
                    s, int(count * self._staged_scale(plan)) if staged else count, res, lat)
                return 0
            finally:
                lock.release()

        return memcpy_async

    @property
    def _current(self) -> int | None:
        return getattr(self._tls, "device", None)

    @_current.setter
    def _current(self, dev: int | None) -> None:
        self._tls.device = dev

    def _fail(self, code: int, msg: str) -> int:
        self._errmsg[threading.get_ident()] = f"EE{code}: {msg}"
        return code

    def _host(self, us: float) -> None:
        if not self.faults:
            self.engine.host_us += us  # what advance_host(us * 1.0) does
            return
        factor = 1.0
        for f in self.faults:
            if f.kind == "slow_host":
                factor *= f.factor
        self.engine.advance_host(us * factor)

    def _fault(
        self, call: str, devices: tuple[int, ...] = (), link: tuple[int, int] | None = None
    ) -> int:
        """The error code an injected fault gives this call, or 0."""
        if not self.faults and not self.lost:
            return 0
        for dev in devices:
            if dev in self.lost and call not in _TEARDOWN:
                return self._fail(C.ACL_ERROR_RT_LOST_HEARTBEAT, f"device {dev} is lost")
        for f in self.faults:
            if f.kind not in ("error", "device_lost"):
                continue
            if f.kind == "device_lost":
                if f.device in devices and (f.call is None or f.call == call):
                    f.seen += 1
                    if f.seen >= (f.nth or 1) and call not in _TEARDOWN:
                        self.lost.add(int(f.device))  # type: ignore[arg-type]
                        return self._fail(f.code, f"device {f.device} is lost")
                continue
            if f.call not in (None, call) or not f.concerns(devices, link):
                continue
            f.seen += 1
            if f.nth is None or f.seen == f.nth:
                return self._fail(f.code, f.message or f"injected fault in {call}")
        return 0

    def _corrupts(self, call: str, plan: dict[str, Any]) -> bool:
        """Whether a ``corrupt`` fault corrupts this copy (counting it for their nth).

        Called only for a copy that is about to happen (after the error faults passed).
        """
        link = plan.get("link")
        if link is None:  # host copies and copies within one device
            return False
        hit = False
        for f in self._corrupt_faults:
            if f.call not in (None, call) or f.link != link:
                continue
            if f.device is not None and f.device not in plan["devices"]:
                continue
            f.seen += 1
            if f.nth is None or f.seen == f.nth:
                hit = True  # several faults on one copy still corrupt it once
        return hit

    def _copy_corrupted(
        self, dreg: Any, doff: int, sreg: Any, soff: int, count: int
    ) -> None:
        """A copy whose written bytes are corrupted (see :func:`.memory.flip_pages`).

        Repeating the corrupted copy that last wrote dst, neither side changed since, is a
        no-op (the bytes would be the same); a clean copy never takes it for one.
        """
        memo = None
        if isinstance(dreg, ChunkedRegion) and isinstance(sreg, ChunkedRegion) \
                and dreg is not sreg:
            memo = ("corrupt", sreg.base, soff, doff, count, sreg.version)
            last = dreg.last_copy
            if last is not None and last[1] == dreg.version and last[0] == memo:
                return
        copy_bytes(dreg, doff, sreg, soff, count)
        flip_pages(dreg, doff, count, self._flipped)
        if memo is not None:
            dreg.version += 1
            dreg.last_copy = (memo, dreg.version)

    def _check_init(self) -> int:
        if not self.initialized:
            return self._fail(C.ACL_ERROR_UNINITIALIZE, "aclInit has not been called")
        return 0

    def _check_dev(self, dev: int) -> int:
        if dev < 0 or dev >= C.RT_MAX_DEV_NUM:
            return self._fail(C.ACL_ERROR_RT_PARAM_INVALID, f"device id {dev} is out of range")
        if dev >= self.topology.device_count:
            return self._fail(
                C.ACL_ERROR_RT_INVALID_DEVICEID,
                f"device id {dev} is invalid; {self.topology.device_count} devices visible",
            )
        return 0

    def _init_and_current(self) -> tuple[int | None, int]:
        """The current device, after the init check: (device, 0) or (None, code)."""
        code = self._check_init()
        if code:
            return None, code
        return self._need_current()

    def _need_current(self) -> tuple[int | None, int]:
        dev = self._current
        if dev is None or self.device_refs.get(dev, 0) == 0:
            return None, self._fail(C.ACL_ERROR_RT_CONTEXT_NULL, "no current device or context")
        return dev, 0

    # ------------------------------------------------------------------ top level
    def init(self, config_path: str | None = None) -> int:
        """``acl.init()``: 100002 when already initialized (ignorable)."""
        with self._lock:
            if config_path is not None and not isinstance(config_path, str):
                raise TypeError("init(): argument 1 must be str")
            if self.initialized:
                return self._fail(C.ACL_ERROR_REPEAT_INITIALIZE, "aclInit was already called")
            code = self._fault("init")
            if code:
                return code
            self.initialized = True
            self._invalidate()
            self._host(1000.0)
            return 0

    def finalize(self) -> int:
        """``acl.finalize()``: releases everything the process still holds."""
        with self._lock:
            if not self.initialized:
                return self._fail(C.ACL_ERROR_REPEAT_FINALIZE, "aclFinalize without aclInit")
            code = self._fault("finalize")
            if code:  # as a failed aclFinalize: the session stays as it was
                return code
            for dev in sorted(d for d, r in self.device_refs.items() if r > 0):
                self.implicit_releases.append(f"device {dev} reset by aclFinalize")
                self._release_device(dev, why="aclFinalize")
            for base in list(self.host_allocs):
                self.implicit_releases.append(f"host buffer 0x{base:x} freed by aclFinalize")
                self.space.remove(base)
            self.host_allocs.clear()
            self.initialized = False
            self._current = None
            self._invalidate()
            return 0

    def get_soc_name(self) -> str | None:
        """``acl.get_soc_name()``: device 0's SoC name, None before init."""
        return self.topology.soc_name if self.initialized else None

    def get_version(self) -> tuple[int, int, int, int]:
        """``acl.get_version()``: (major, minor, patch, ret) of the simulated runtime."""
        return (9, 0, 0, 0)

    def get_recent_err_msg(self) -> str:
        """``acl.get_recent_err_msg()``: this thread's latest error text, then cleared."""
        return self._errmsg.pop(threading.get_ident(), "")

    # ------------------------------------------------------------------ devices
    def _set_device(self, dev: object) -> int:
        dev = _int("set_device", dev)
        code = self._check_init() or self._check_dev(dev) or self._fault("rt.set_device", (dev,))
        if code:
            return code
        if dev not in self.ever_set:
            self.ever_set.add(dev)
            self._host(FIRST_SET_DEVICE_US)
        if self.device_refs.get(dev, 0) == 0:
            self.default_streams[dev] = self.engine.new_stream(dev)
        self.device_refs[dev] = self.device_refs.get(dev, 0) + 1
        self._current = dev
        self._host(1.0)
        return 0

    def _reset_device(self, dev: object) -> int:
        dev = _int("reset_device", dev)
        code = self._check_init() or self._check_dev(dev) or self._fault("rt.reset_device", (dev,))
        if code:
            return code
        if self.device_refs.get(dev, 0) == 0:
            return self._fail(C.ACL_ERROR_RT_PARAM_INVALID, f"device {dev} was not set")
        self.device_refs[dev] -= 1
        if self.device_refs[dev] == 0:
            self._release_device(dev, why="aclrtResetDevice")
        return 0

    def _reset_device_force(self, dev: object) -> int:
        dev = _int("reset_device_force", dev)
        code = self._check_init() or self._check_dev(dev)
        if code:
            return code
        if self.device_refs.get(dev, 0) == 0:
            return self._fail(C.ACL_ERROR_RT_PARAM_INVALID, f"device {dev} was not set")
        self._release_device(dev, why="aclrtResetDeviceForce")
        return 0

    def _release_device(self, dev: int, why: str) -> None:
        """What the driver frees when a device's last reference goes."""
        self.engine.all_done_at(dev)
        for base in list(self.device_allocs):
            region = self.space.get(base)
            if region is not None and region.device == dev:
                self.implicit_releases.append(f"device buffer 0x{base:x} freed by {why}")
                self._drop_device_alloc(base)
        for sid, s in list(self.streams.items()):
            if s.device == dev:
                self.implicit_releases.append(f"stream {sid} destroyed by {why}")
                self.engine.drop_stream(s)
                del self.streams[sid]
        for eid, e in list(self.events.items()):
            if e.device == dev:
                self.implicit_releases.append(f"event {eid} destroyed by {why}")
                del self.events[eid]
        for (a, b), refs in list(self.peer_refs.items()):
            if a == dev and refs:
                self.implicit_releases.append(f"peer access {a}->{b} dropped by {why}")
                del self.peer_refs[(a, b)]
        if dev in self.default_streams:
            self.engine.drop_stream(self.default_streams.pop(dev))
        self.device_refs[dev] = 0

    def _get_device(self) -> tuple[int, int]:
        code = self._check_init()
        if code:
            return 0, code
        dev, code = self._need_current()
        return (dev if dev is not None else 0), code

    def _get_context(self) -> tuple[int, int]:
        code = self._check_init()
        if code:
            return 0, code
        dev, code = self._need_current()
        return (0, code) if code or dev is None else (_CONTEXT_BASE + dev, 0)

    def _set_context(self, ctx: object) -> int:
        ctx = _int("set_context", ctx)
        code = self._check_init()
        if code:
            return code
        dev = ctx - _CONTEXT_BASE
        if not 0 <= dev < self.topology.device_count or self.device_refs.get(dev, 0) == 0:
            return self._fail(C.ACL_ERROR_RT_PARAM_INVALID, f"context {ctx:#x} does not exist")
        self._current = dev
        self._host(0.5)
        return 0

    def _get_device_count(self) -> tuple[int, int]:
        code = self._check_init() or self._fault("rt.get_device_count")
        return (0, code) if code else (self.topology.device_count, 0)

    def _get_devices_topo(self, dev: object, other: object) -> tuple[int, int]:
        dev, other = _int("get_devices_topo", dev), _int("get_devices_topo", other)
        code = self._check_init() or self._check_dev(dev) or self._check_dev(other)
        if code:
            return 0, code
        if dev == other:
            return 0, self._fail(C.ACL_ERROR_INVALID_PARAM, "deviceId equals otherDeviceId")
        return C.TOPOLOGY_BITS.get(self.topology.link(dev, other), 0), 0

    def _get_device_info(self, dev: object, attr: object) -> tuple[int, int]:
        dev, attr = _int("get_device_info", dev), _int("get_device_info", attr)
        code = self._check_init() or self._check_dev(dev)
        if code:
            return 0, code
        values = {301: self.topology.memory_bytes, 402: dev, 601: self.topology.npu_arch}
        if attr not in values:
            return 0, self._fail(C.ACL_ERROR_FEATURE_UNSUPPORTED, f"attribute {attr} unsupported")
        # pyACL builds the reply with Py_BuildValue("ii", ...): an int64 value is cut to C int.
        return struct.unpack("i", struct.pack("I", values[attr] & 0xFFFFFFFF))[0], 0

    # ------------------------------------------------------------------ peer access
    def _pair_active(self, a: int, b: int) -> bool:
        ab = self.peer_refs.get((a, b), 0) > 0
        ba = self.peer_refs.get((b, a), 0) > 0
        return (ab and ba) if self.topology.peer_needs_both else (ab or ba)

    def _device_can_access_peer(self, dev: object, peer: object) -> tuple[int, int]:
        dev, peer = _int("device_can_access_peer", dev), _int("device_can_access_peer", peer)
        code = self._check_init() or self._check_dev(dev) or self._check_dev(peer)
        if code:
            return 0, code
        if dev == peer:
            return 0, self._fail(C.ACL_ERROR_INVALID_PARAM, "deviceId equals peerDeviceId")
        code = self._fault("rt.device_can_access_peer", (dev, peer), (dev, peer))
        if code:
            return 0, code
        self._host(2.0)
        return int(self.topology.can_access_peer(dev, peer)), 0

    def _peer_target(self, call: str, dev: int, peer: int) -> int:
        """Checks enable and disable share: a valid peer id other than the current device."""
        code = self._check_dev(peer)
        if code:
            return code
        if dev == peer:
            return self._fail(C.ACL_ERROR_INVALID_PARAM, "peerDeviceId equals the current device")
        return self._fault(call, (dev, peer), (dev, peer))

    def _device_enable_peer_access(self, peer: object, flags: object) -> int:
        peer, flags = _int("device_enable_peer_access", peer), _int("flags", flags)
        code = self._check_init()
        if code:
            return code
        if flags != 0:
            return self._fail(C.ACL_ERROR_FEATURE_UNSUPPORTED, "flags is reserved and must be 0")
        dev, code = self._need_current()
        if code or dev is None:
            return code
        code = self._peer_target("rt.device_enable_peer_access", dev, peer)
        if code:
            return code
        if not self.topology.can_access_peer(dev, peer):
            return self._fail(
                C.ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                f"device {dev} cannot access device {peer} "
                f"(link {self.topology.link(dev, peer)} does not support P2P)",
            )
        limit = self.topology.max_peers
        peers = {b for (a, b), r in self.peer_refs.items() if a == dev and r > 0}
        if limit is not None and peer not in peers and len(peers) >= limit:
            return self._fail(
                C.ACL_ERROR_RT_RESOURCE_ALLOC_FAIL,
                f"device {dev} has reached its P2P connection limit {limit}",
            )
        self.peer_refs[(dev, peer)] = self.peer_refs.get((dev, peer), 0) + 1
        self._host(50.0)
        return 0

    def _device_disable_peer_access(self, peer: object) -> int:
        peer = _int("device_disable_peer_access", peer)
        dev, code = self._init_and_current()
        if code or dev is None:
            return code
        code = self._peer_target("rt.device_disable_peer_access", dev, peer)
        if code:
            return code
        if self.peer_refs.get((dev, peer), 0) == 0:
            # The kernel answers -ESRCH; the ACL code for it is not documented (inferred).
            return self._fail(
                C.ACL_ERROR_RT_DRV_INTERNAL_ERROR,
                f"peer access {dev}->{peer} was not enabled by this process",
            )
        self.peer_refs[(dev, peer)] -= 1
        if self.peer_refs[(dev, peer)] == 0:
            del self.peer_refs[(dev, peer)]
        self._host(20.0)
        return 0

    def _device_peer_access_status(self, dev: object, peer: object) -> tuple[int, int]:
        dev, peer = _int("device_peer_access_status", dev), _int("device_peer_access_status", peer)
        code = self._check_init() or self._check_dev(dev) or self._check_dev(peer)
        if code:
            return 0, code
        if dev == peer:
            return 0, self._fail(C.ACL_ERROR_INVALID_PARAM, "deviceId equals peerDeviceId")
        # The driver reports the pair: enabled once both ends enabled (drvGetP2PStatus).
        both = self.peer_refs.get((dev, peer), 0) > 0 and self.peer_refs.get((peer, dev), 0) > 0
        return int(both), 0

    # ------------------------------------------------------------------ memory
    def _malloc(self, size: object, policy: object) -> tuple[int, int]:
        size, policy = _int("malloc", size), _int("malloc", policy)
        dev, code = self._init_and_current()
        if code or dev is None:
            return 0, code
        if size <= 0:
            return 0, self._fail(C.ACL_ERROR_INVALID_PARAM, f"size {size} must be positive")
        code = self._fault("rt.malloc", (dev,))
        if code:
            return 0, code
        accounted = self._accounted(size, policy)
        exhausted = any(f.kind == "memory_exhausted" and f.device == dev for f in self.faults)
        if exhausted or self.used.get(dev, 0) + accounted > self.topology.memory_bytes:
            free = self.topology.memory_bytes - self.used.get(dev, 0)
            return 0, self._fail(
                C.ACL_ERROR_RT_MEMORY_ALLOCATION,
                f"out of device memory on device {dev}: asked {size} bytes, {free} free",
            )
        region = ChunkedRegion(self.space.next_base("device", dev, size), size, "device", dev)
        self.space.add(region)
        self.device_allocs[region.base] = accounted
        self.used[dev] = self.used.get(dev, 0) + accounted
        self._host(5.0)
        return region.base, 0

    @staticmethod
    def _accounted(size: int, policy: int) -> int:
        """Device memory an allocation takes (pyacl-api.md section 2): huge pages come in
        2 MiB steps; HUGE_FIRST(_P2P) takes normal pages for 1 MiB or less; HUGE_ONLY(_P2P)
        always huge; NORMAL_ONLY(_P2P) never; an unknown policy is huge from 2 MiB up."""
        step = 2 << 20
        if policy in (1, 4, 6, 7):
            huge = True
        elif policy in (0, 3):
            huge = size > (1 << 20)
        elif policy in (2, 5):
            huge = False
        else:
            huge = size >= step
        return -(-size // step) * step if huge else size

    def _drop_device_alloc(self, base: int) -> None:
        region = self.space.remove(base)
        accounted = self.device_allocs.pop(base)
        if region is not None and region.device is not None:
            self.used[region.device] -= accounted

    def _free(self, ptr: object) -> int:
        ptr = _int("free", ptr)
        code = self._check_init()
        if code:
            return code
        if ptr not in self.device_allocs:
            return self._fail(C.ACL_ERROR_RT_PARAM_INVALID, f"0x{ptr:x} is not a device allocation")
        region = self.space.get(ptr)
        devices = (region.device,) if region and region.device is not None else ()
        code = self._fault("rt.free", devices)
        if code:
            return code
        self._drop_device_alloc(ptr)
        self._host(5.0)
        return 0

    def _malloc_host(self, size: object) -> tuple[int, int]:
        size = _int("malloc_host", size)
        code = self._check_init()
        if code:
            return 0, code
        if size <= 0:
            return 0, self._fail(C.ACL_ERROR_INVALID_PARAM, f"size {size} must be positive")
        code = self._fault("rt.malloc_host")
        if code:
            return 0, code
        region = ChunkedRegion(self.space.next_base("host", None, size), size, "host", None)
        self.space.add(region)
        self.host_allocs.add(region.base)
        self._host(10.0)
        return region.base, 0

    def _free_host(self, ptr: object) -> int:
        ptr = _int("free_host", ptr)
        code = self._check_init()
        if code:
            return code
        if ptr not in self.host_allocs:
            return self._fail(C.ACL_ERROR_RT_PARAM_INVALID, f"0x{ptr:x} is not a host allocation")
        code = self._fault("rt.free_host")
        if code:
            return code
        self.host_allocs.discard(ptr)
        self.space.remove(ptr)
        self._host(5.0)
        return 0

    def _memset(self, ptr: object, max_count: object, value: object, count: object) -> int:
        ptr, max_count = _int("memset", ptr), _int("memset", max_count)
        value, count = _int("memset", value), _int("memset", count)
        dev, code = self._init_and_current()
        if code or dev is None:
            return code
        if count > max_count:
            return self._fail(C.ACL_ERROR_RT_PARAM_INVALID, f"count {count} > maxCount {max_count}")
        found = self.space.find(ptr, count)
        if found is None:
            return self._fail(C.ACL_ERROR_RT_PARAM_INVALID, f"0x{ptr:x}+{count} is not allocated")
        region, off = found
        target = region.device if region.device is not None else dev
        code = self._fault("rt.memset", (target,))
        if code:
            return code
        region.fill(off, count, value)
        self._host(self.topology.host.api_us)
        resources = (("hbm", target),) if region.kind == "device" else (("h2h",),)
        self.engine.run_blocking_copy(target, count, resources, self.topology.local_latency_us)
        self._host(self.topology.host.sync_return_us)
        return 0

    # ------------------------------------------------------------------ copies
    def _route(
        self, dst: int, dest_max: int, src: int, count: int, kind: int, current: int
    ) -> tuple[Any, int]:
        """Check a copy and work out its resources; returns (plan, 0) or (None, code).

        A successful plan is memoized (read-only) until something it depends on changes.
        """
        key = (dst, dest_max, src, count, kind, current)
        plan = self._routes.get(key)
        if plan is not None:
            return plan, 0
        plan, code = self._route_uncached(dst, dest_max, src, count, kind, current)
        if not code:
            self._routes[key] = plan
        return plan, code

    def _route_uncached(
        self, dst: int, dest_max: int, src: int, count: int, kind: int, current: int
    ) -> tuple[Any, int]:
        if dst == 0 or src == 0:
            return None, self._fail(C.ACL_ERROR_INVALID_PARAM, "dst or src is NULL")
        if count > dest_max:
            return None, self._fail(
                C.ACL_ERROR_RT_PARAM_INVALID, f"count {count} is larger than destMax {dest_max}"
            )
        if kind not in (0, 1, 2, 3, 4):
            return None, self._fail(C.ACL_ERROR_RT_PARAM_INVALID, f"memcpy kind {kind} invalid")
        fs, fd = self.space.find(src, count), self.space.find(dst, dest_max)
        if fs is None or fd is None:
            which = "src" if fs is None else "dst"
            return None, self._fail(
                C.ACL_ERROR_RT_PARAM_INVALID, f"{which} range is not inside one allocation"
            )
        (sreg, soff), (dreg, doff) = fs, fd
        s_dev, d_dev = sreg.device, dreg.device
        actual = {(False, False): 0, (False, True): 1, (True, False): 2, (True, True): 3}[
            (s_dev is not None, d_dev is not None)
        ]
        if kind != 4 and kind != actual:
            return None, self._fail(
                C.ACL_ERROR_RT_PARAM_INVALID,
                f"memcpy kind {kind} does not match the addresses (they need kind {actual})",
            )
        topo, host = self.topology, self.topology.host
        touched = tuple(d for d in (s_dev, d_dev) if d is not None) or (current,)
        link = (s_dev, d_dev) if actual == 3 else None
        plan: dict[str, Any] = {"regions": (dreg, doff, sreg, soff), "devices": touched}
        if actual == 0:
            plan.update(res=(("h2h",),), lat=1.0, dev=current)
        elif actual == 1:
            plan.update(res=(("h2d", d_dev),), lat=host.latency_us, dev=d_dev)
        elif actual == 2:
            plan.update(res=(("d2h", s_dev),), lat=host.latency_us, dev=s_dev)
        elif s_dev == d_dev:
            plan.update(res=(("hbm", s_dev),), lat=topo.local_latency_us, dev=s_dev)
        else:
            assert s_dev is not None and d_dev is not None
            plan.update(dev=s_dev, link=link)
            lc = topo.link_class(s_dev, d_dev)
            direct = lc is not None and lc.p2p and self._pair_active(s_dev, d_dev)
            mode = topo.peer_off_copy
            if not direct and mode == "direct" and lc is not None and lc.p2p:
                direct = True
            if direct and lc is not None:
                res: tuple[Any, ...] = (("link", s_dev, d_dev),)
                if lc.switched and topo.port_GBps:
                    res += (("egress", s_dev), ("ingress", d_dev))
                plan.update(res=res, lat=lc.latency_us)
            elif mode == "error" or lc is None:
                reason = (
                    "peer access is not enabled in both directions"
                    if lc is not None and lc.p2p
                    else f"link {topo.link(s_dev, d_dev)} does not support P2P"
                )
                return None, self._fail(
                    topo.peer_off_error, f"device-to-device copy {s_dev}->{d_dev}: {reason}"
                )
            else:  # staged through host memory by the driver
                plan.update(res=(("d2h", s_dev), ("h2d", d_dev)), lat=2 * host.latency_us,
                            staged=True)
        return plan, 0

    def _staged_scale(self, plan: dict[str, Any]) -> float:
        """A driver-staged copy crosses PCIe twice, one leg after the other."""
        if not plan.get("staged"):
            return 1.0
        s_dev, d_dev = plan["link"]
        d2h, h2d = self.engine.rate(("d2h", s_dev)), self.engine.rate(("h2d", d_dev))
        return (1 / d2h + 1 / h2d) / (1 / min(d2h, h2d))

    def _memcpy(
        self, dst: object, dest_max: object, src: object, count: object, kind: object
    ) -> int:
        dst, dest_max, src = _int("memcpy", dst), _int("memcpy", dest_max), _int("memcpy", src)
        count, kind = _int("memcpy", count), _int("memcpy", kind)
        cur, code = self._init_and_current()
        if code or cur is None:
            return code
        if count == 0:
            return 0
        plan, code = self._route(dst, dest_max, src, count, kind, cur)
        if code:
            return code
        code = self._fault("rt.memcpy", plan["devices"], plan.get("link"))
        if code:
            return code
        dreg, doff, sreg, soff = plan["regions"]
        if self._corrupt_faults and self._corrupts("rt.memcpy", plan):
            self._copy_corrupted(dreg, doff, sreg, soff, count)
        else:
            copy_bytes(dreg, doff, sreg, soff, count)
        self._host(self.topology.host.api_us)
        nbytes = int(count * self._staged_scale(plan))
        self.engine.run_blocking_copy(plan["dev"], nbytes, plan["res"], plan["lat"])
        self._host(self.topology.host.sync_return_us)
        return 0

    def _stream_of(self, handle: int, current: int) -> tuple[Stream | None, int]:
        if handle == 0:
            return self.default_streams.get(current), 0
        s = self.streams.get(handle)
        if s is None:
            return None, self._fail(C.ACL_ERROR_RT_PARAM_INVALID, f"stream {handle} does not exist")
        if s.device != current:
            return None, self._fail(
                C.ACL_ERROR_RT_STREAM_CONTEXT,
                f"stream {handle} belongs to device {s.device}, current device is {current}",
            )
        return s, 0

    def _memcpy_async(
        self, dst: object, dest_max: object, src: object, count: object, kind: object,
        stream: object,
    ) -> int:
        dst, dest_max = _int("memcpy_async", dst), _int("memcpy_async", dest_max)
        src, count = _int("memcpy_async", src), _int("memcpy_async", count)
        kind, stream = _int("memcpy_async", kind), _int("memcpy_async", stream)
        if not self.initialized:
            return self._check_init()
        cur, code = self._need_current()
        if code or cur is None:
            return code
        s, code = self._stream_of(stream, cur)
        if code or s is None:
            return code
        if count == 0:
            return 0
        plan, code = self._route(dst, dest_max, src, count, kind, cur)
        if code:
            return code
        api_us = self.topology.host.api_us
        if type(dst) is int is type(dest_max) is type(src) is type(count) is type(kind) \
                is type(stream):  # bools are valid arguments but are not memoized
            dreg, doff, sreg, soff = plan["regions"]
            memo_able = (isinstance(dreg, ChunkedRegion) and isinstance(sreg, ChunkedRegion)
                         and dreg is not sreg)
            self._async_plans[(dst, dest_max, src, count, kind, stream)] = (
                cur, s, plan, dreg, doff, sreg, soff, api_us, plan["res"], plan["lat"],
                memo_able, "staged" in plan)
        if self.faults:
            code = self._fault("rt.memcpy_async", plan["devices"], plan.get("link"))
            if code:
                return code
        dreg, doff, sreg, soff = plan["regions"]
        if self._corrupt_faults and self._corrupts("rt.memcpy_async", plan):
            self._copy_corrupted(dreg, doff, sreg, soff, count)
        else:
            copy_bytes(dreg, doff, sreg, soff, count)
        self._host(api_us)
        nbytes = int(count * self._staged_scale(plan)) if "staged" in plan else count
        self.engine.append_copy(s, nbytes, plan["res"], plan["lat"])
        return 0

    def _get_mem_info(self, attr: object) -> tuple[int, int, int]:
        attr = _int("get_mem_info", attr)
        dev, code = self._init_and_current()
        if code or dev is None:
            return 0, 0, code
        code = self._fault("rt.get_mem_info", (dev,))
        if code:
            return 0, 0, code
        if attr not in C.HBM_ATTRS:
            return 0, 0, 0  # unsupported attribute: free = total = 0
        total = self.topology.memory_bytes
        return total - self.used.get(dev, 0), total, 0

    # ------------------------------------------------------------------ streams, events
    def _create_stream(self) -> tuple[int, int]:
        dev, code = self._init_and_current()
        if code or dev is None:
            return 0, code
        code = self._fault("rt.create_stream", (dev,))
        if code:
            return 0, code
        s = self.engine.new_stream(dev)
        self.streams[s.id] = s
        self._host(10.0)
        return s.id, 0

    def _destroy(self, what: str, table: dict[int, Any], handle: object) -> tuple[Any, int]:
        """Remove a stream or event handle (init check, existence, fault): (object, code)."""
        handle = _int(f"destroy_{what}", handle)
        code = self._check_init()
        if code:
            return None, code
        obj = table.get(handle)
        if obj is None:
            return None, self._fail(C.ACL_ERROR_RT_PARAM_INVALID,
                                    f"{what} {handle} does not exist")
        code = self._fault(f"rt.destroy_{what}", (obj.device,))
        if code:
            return None, code
        del table[handle]
        return obj, 0

    def _destroy_stream(self, handle: object) -> int:
        s, code = self._destroy("stream", self.streams, handle)
        if code:
            return code
        self.engine.drop_stream(s)
        self._host(10.0)
        return 0

    def _synchronize_stream(self, handle: object) -> int:
        handle = _int("synchronize_stream", handle)
        code = self._check_init()
        if code:
            return code
        s = self.streams.get(handle) if handle else self.default_streams.get(self._current or 0)
        if s is None:
            return self._fail(C.ACL_ERROR_RT_PARAM_INVALID, f"stream {handle} does not exist")
        code = self._fault("rt.synchronize_stream", (s.device,))
        if code:
            return code
        self._host(1.0)
        self.engine.wait_host_until(self.engine.stream_done_at(s))
        self._host(self.topology.host.sync_return_us)
        return 0

    def _synchronize_device(self) -> int:
        dev, code = self._init_and_current()
        if code or dev is None:
            return code
        code = self._fault("rt.synchronize_device", (dev,))
        if code:
            return code
        self.engine.wait_host_until(self.engine.all_done_at(dev))
        self._host(self.topology.host.sync_return_us)
        return 0

    def _new_event(self, flag: int, call: str) -> tuple[int, int]:
        dev, code = self._init_and_current()
        if code or dev is None:
            return 0, code
        code = self._fault(call, (dev,))
        if code:
            return 0, code
        e = self.engine.new_event(dev, flag)
        self.events[e.id] = e
        self._host(2.0)
        return e.id, 0

    def _create_event(self) -> tuple[int, int]:
        return self._new_event(0, "rt.create_event")

    def _create_event_with_flag(self, flag: object) -> tuple[int, int]:
        return self._new_event(_int("create_event_with_flag", flag), "rt.create_event_with_flag")

    def _create_event_ex_with_flag(self, flag: object) -> tuple[int, int]:
        return self._new_event(_int("create_event_ex_with_flag", flag),
                               "rt.create_event_ex_with_flag")

    def _destroy_event(self, handle: object) -> int:
        _, code = self._destroy("event", self.events, handle)
        if code:
            return code
        self._host(2.0)
        return 0

    def _event_and_stream(self, call: str, event: object, stream: object
                          ) -> tuple[SimEvent | None, Stream | None, int]:
        """An event and a stream of the current device, checked as both calls need them."""
        event, stream = _int(call, event), _int(call, stream)
        cur, code = self._init_and_current()
        if code or cur is None:
            return None, None, code
        e = self.events.get(event)
        if e is None:
            return None, None, self._fail(C.ACL_ERROR_RT_PARAM_INVALID,
                                          f"event {event} does not exist")
        s, code = self._stream_of(stream, cur)
        return e, s, code

    def _record_event(self, event: object, stream: object) -> int:
        e, s, code = self._event_and_stream("record_event", event, stream)
        if code or e is None or s is None:
            return code
        if e.device != s.device:
            return self._fail(
                C.ACL_ERROR_RT_STREAM_CONTEXT,
                f"event {e.id} belongs to device {e.device}, stream to device {s.device}",
            )
        if self.faults:
            code = self._fault("rt.record_event", (s.device,))
            if code:
                return code
        self._host(2.0)
        self.engine.enqueue_record(s, e)
        return 0

    def _stream_wait_event(self, stream: object, event: object) -> int:
        stream = _int("stream_wait_event", stream)
        e, s, code = self._event_and_stream("stream_wait_event", event, stream)
        if code or e is None or s is None:
            return code
        code = self._fault("rt.stream_wait_event", (s.device, e.device))
        if code:
            return code
        self._host(2.0)
        self.engine.enqueue_wait(s, e)
        if e.device != s.device:  # crossing devices goes through the runtime's notify
            self.engine.enqueue_copy(s, 0, (), self.topology.cross_device_wait_us)
        return 0

    def _synchronize_event(self, event: object) -> int:
        event = _int("synchronize_event", event)
        code = self._check_init()
        if code:
            return code
        e = self.events.get(event)
        if e is None:
            return self._fail(C.ACL_ERROR_RT_PARAM_INVALID, f"event {event} does not exist")
        code = self._fault("rt.synchronize_event", (e.device,))
        if code:
            return code
        self._host(1.0)
        if e.record_op is not None:
            self.engine.resolve()
            self.engine.wait_host_until(e.record_op.end or 0.0)
            self._host(self.topology.host.sync_return_us)
        return 0

    def _event_elapsed_time(self, start: object, end: object) -> tuple[float, int]:
        start, end = _int("event_elapsed_time", start), _int("event_elapsed_time", end)
        code = self._check_init()
        if code:
            return 0.0, code
        a, b = self.events.get(start), self.events.get(end)
        if a is None or b is None:
            return 0.0, self._fail(C.ACL_ERROR_RT_PARAM_INVALID, "event does not exist")
        if a.record_op is None or b.record_op is None:
            return 0.0, self._fail(
                C.ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "event was never recorded"
            )
        code = self._fault("rt.event_elapsed_time", (a.device, b.device))
        if code:
            return 0.0, code
        self.engine.resolve()
        if a.ts is None or b.ts is None:
            return 0.0, self._fail(C.ACL_ERROR_RT_EVENT_NOT_COMPLETE, "event not complete")
        self._host(1.0)
        return _f32((b.ts - a.ts) / 1000.0), 0

    def _event_get_timestamp(self, event: object) -> tuple[int, int]:
        event = _int("event_get_timestamp", event)
        code = self._check_init()
        if code:
            return 0, code
        e = self.events.get(event)
        if e is None or e.record_op is None:
            return 0, self._fail(C.ACL_ERROR_RT_PARAM_INVALID, "event does not exist or unrecorded")
        self.engine.resolve()
        return int((e.ts or 0.0) * 1000), 0

    # ------------------------------------------------------------------ util
    def _bytes_to_ptr(self, obj: object) -> int:
        """``acl.util.bytes_to_ptr``: a pointer into a bytes-like object (it must outlive it)."""
        try:
            nbytes = memoryview(obj).nbytes  # type: ignore[arg-type]
        except TypeError:
            raise TypeError("bytes_to_ptr(): a bytes-like object is required") from None
        with self._lock:
            region = ViewRegion(self.space.next_base("view", None, nbytes), obj)
            self.space.add(region)
            self.views[region.base] = region
            if len(self.views) > 256:  # forget the oldest: pointers are only valid briefly
                oldest = next(iter(self.views))
                self.space.remove(oldest)
                del self.views[oldest]
            self._invalidate()
            return region.base

    def _ptr_to_bytes(self, ptr: object, size: object) -> bytes:
        """``acl.util.ptr_to_bytes``: a copy of size bytes at ptr."""
        ptr, size = _int("ptr_to_bytes", ptr), _int("ptr_to_bytes", size)
        with self._lock:
            found = self.space.find(ptr, size)
            if found is None or found[0].kind == "device":
                raise ValueError(f"0x{ptr:x}+{size} is not readable host memory")
            region, off = found
            return region.read(off, size)

    # ------------------------------------------------------------------ introspection
    @property
    def host_time_us(self) -> float:
        """The simulated host clock (microseconds since the simulator started)."""
        return self.engine.host_us

    def ledger(self) -> dict[str, Any]:
        """What the process still holds, plus anything released implicitly (by reset/finalize)."""
        with self._lock:
            return {
                "initialized": self.initialized,
                "devices_set": {d: r for d, r in self.device_refs.items() if r},
                "device_buffers": len(self.device_allocs),
                "host_buffers": len(self.host_allocs),
                "streams": len(self.streams),
                "events": len(self.events),
                "peer_refs": {f"{a}->{b}": r for (a, b), r in self.peer_refs.items() if r},
                "implicit_releases": list(self.implicit_releases),
            }

    def ledger_is_empty(self) -> bool:
        """True when nothing is outstanding and nothing had to be released implicitly."""
        led = self.ledger()
        return not (
            led["initialized"] or led["devices_set"] or led["device_buffers"]
            or led["host_buffers"] or led["streams"] or led["events"] or led["peer_refs"]
            or led["implicit_releases"]
        )

    def resident_bytes(self) -> int:
        """Host RAM spent on simulated memory contents."""
        return sum(
            r.resident_bytes for r in self.space.regions() if isinstance(r, ChunkedRegion)
        )

    def __repr__(self) -> str:
        return (
            f"<simulated acl: {self.topology.name}, {self.topology.device_count} x "
            f"{self.topology.soc_name}, seed={self.seed}>"
        )


_RT_CALLS = (
    "set_device", "reset_device", "reset_device_force", "get_device", "get_device_count",
    "get_context", "set_context",
    "get_devices_topo", "get_device_info", "device_can_access_peer", "device_enable_peer_access",
    "device_disable_peer_access", "device_peer_access_status", "malloc", "free", "malloc_host",
    "free_host", "memset", "memcpy", "memcpy_async", "get_mem_info", "create_stream",
    "destroy_stream", "synchronize_stream", "synchronize_device", "create_event",
    "create_event_with_flag", "create_event_ex_with_flag", "destroy_event", "record_event",
    "stream_wait_event", "synchronize_event", "event_elapsed_time", "event_get_timestamp",
)
