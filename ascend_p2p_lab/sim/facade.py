"""The simulated CANN runtime: pyACL's API over a modelled Atlas server.

:class:`SimulatedACL` is a drop-in for ``import acl``: the same names under ``acl.rt``
and ``acl.util``, the same argument order, out-values first and ``ret`` last, the real
numeric error codes, and the semantics of pyacl-api.md section 5. It is a dispatcher:
each call checks its arguments against its declared format (:mod:`.formats`) once, takes
the simulator's lock, counts itself, and hands over to the part that owns its concern:

- :class:`~.devices.Devices`: init/finalize, devices, the current device;
- :class:`~.contexts.Contexts`: default and explicit contexts;
- :class:`~.peers.Peers`: peer access;
- :class:`~.allocations.Allocations`: device and host memory, memset, ``acl.util``;
- :class:`~.copies.Copies` with :class:`~.routes.Router`: memcpy and memcpy_async;
- :class:`~.streams.Streams`: streams and events;
- :class:`~.ipc.Ipc`: IPC memory shared with other processes (over :mod:`.ipcstate`);
- :class:`~.applog.AppLog`: ``acl.app_log``, to CANN's host log folder;
- :class:`~.injector.FaultInjector`: what the configured faults decide.

Behind them: a :class:`~ascend_p2p_lab.topology.Topology` (which links exist and how fast
they are), an :class:`~.engine.Engine` (virtual time) and an
:class:`~.memory.AddressSpace` (bytes that really move). What tools outside pyACL's API
may ask (the virtual clock, the ledger, call counts) is ``acl.simulator``
(:class:`~.extras.Simulator`). A pyACL name the simulator does not implement raises
:class:`NotSimulated` (an ``AttributeError``, so ``hasattr`` feature checks still work),
in one line naming the call; docs/reference/simulator-calls.md lists what it implements.

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

import threading
from collections.abc import Callable, Iterable, Mapping
from types import SimpleNamespace
from typing import Any, NoReturn

from ..topology.model import Topology
from .allocations import Allocations
from .applog import AppLog
from .contexts import Contexts
from .copies import Copies
from .devices import Devices
from .dielinks import DieLinks, lane_capacity
from .engine import Engine
from .errors import ErrorLog
from .extras import Simulator
from .faults import Fault
from .formats import NAMESPACES, NEWER_CALLS, RT_CALLS, TOP_CALLS, Check, checker, int_arity
from .injector import FaultInjector
from .ipc import Ipc
from .part import Shared
from .peers import Peers
from .programs import Programs
from .routes import Router
from .streams import Streams

_GB = 1e3  # GB/s -> bytes per microsecond
_HOST_H2H_GBPS = 10.0

#: Which part serves each call: call -> (the simulator's attribute for the part, method).
DISPATCH: dict[str, tuple[str, str]] = {
    "init": ("_devices", "init"),
    "finalize": ("_devices", "finalize"),
    "get_soc_name": ("_devices", "get_soc_name"),
    "get_version": ("_devices", "get_version"),
    "get_recent_err_msg": ("_errors", "recent"),
    "app_log": ("_applog", "app_log"),
    **{
        f"rt.{name}": ("_devices", name)
        for name in (
            "set_device",
            "reset_device",
            "reset_device_force",
            "get_device",
            "get_device_count",
            "get_run_mode",
            "get_devices_topo",
            "get_device_info",
        )
    },
    **{
        f"rt.{name}": ("_contexts", name)
        for name in ("create_context", "destroy_context", "get_context", "set_context")
    },
    **{
        f"rt.{name}": ("_peers", name)
        for name in (
            "device_can_access_peer",
            "device_enable_peer_access",
            "device_disable_peer_access",
            "device_peer_access_status",
        )
    },
    **{
        f"rt.{name}": ("_memory", name)
        for name in ("malloc", "free", "malloc_host", "free_host", "memset", "get_mem_info")
    },
    "rt.memcpy": ("_copies", "memcpy"),
    "rt.memset_async": ("_copies", "memset_async"),
    "rt.memcpy_async": ("_copies", "memcpy_async"),
    **{
        f"rt.{name}": ("_streams", name)
        for name in (
            "create_stream",
            "destroy_stream",
            "synchronize_stream",
            "synchronize_device",
            "create_event",
            "create_event_with_flag",
            "create_event_ex_with_flag",
            "destroy_event",
            "record_event",
            "stream_wait_event",
            "synchronize_event",
            "event_elapsed_time",
            "event_get_timestamp",
        )
    },
    **{
        f"rt.{name}": ("_ipc", name)
        for name in (
            "ipc_mem_get_export_key",
            "ipc_mem_set_import_pid",
            "ipc_mem_import_by_key",
            "ipc_mem_close",
            "device_get_bare_tgid",
        )
    },
    **{
        f"rt.{name}": ("_dielinks", name)
        for name in (
            "reserve_mem_address",
            "release_mem_address",
            "unmap_mem",
            "mem_map_selected_link",
        )
    },
    "util.bytes_to_ptr": ("_memory", "bytes_to_ptr"),
    "util.numpy_to_ptr": ("_memory", "bytes_to_ptr"),
    "util.ptr_to_bytes": ("_memory", "ptr_to_bytes"),
    "media.dvpp_malloc": ("_memory", "dvpp_malloc"),
    "media.dvpp_free": ("_memory", "dvpp_free"),
}
#: Calls whose repeats of a successful call skip the checks (each kept by its part,
#: keyed by the argument tuple, and dropped by every call not in :data:`KEEPS_PLANS`).
FAST_CALLS = frozenset({"rt.memcpy_async", "rt.record_event", "rt.stream_wait_event"})
#: Calls that run without the lock and are not counted (they read, and change nothing).
UNLOCKED = frozenset({"get_soc_name", "get_version", "get_recent_err_msg", "app_log"})
#: Calls that cannot change what a copy resolves to (its regions, its stream, whether the
#: device is set, peer access). Every other call drops the cached routes and kept copies.
KEEPS_PLANS = frozenset(
    {
        "rt.memcpy",
        "rt.memcpy_async",
        "rt.memset",
        "rt.set_context",
        "rt.get_device",
        "rt.get_context",
        "rt.get_run_mode",
        "rt.get_device_count",
        "rt.get_devices_topo",
        "rt.get_device_info",
        "rt.device_can_access_peer",
        "rt.device_peer_access_status",
        "rt.get_mem_info",
        "rt.synchronize_stream",
        "rt.synchronize_device",
        "rt.create_event",
        "rt.create_event_with_flag",
        "rt.create_event_ex_with_flag",
        "rt.destroy_event",
        "rt.record_event",
        "rt.stream_wait_event",
        "rt.synchronize_event",
        "rt.event_elapsed_time",
        "rt.event_get_timestamp",
        "util.ptr_to_bytes",
    }
)


class Handler:
    """A class attribute naming the part method that serves one call
    (``SimulatedACL._set_device`` is ``Devices.set_device`` of each simulator).

    A simulator binds its calls to ``getattr(self, "_<name>")`` when it is made, so a
    test may replace one on the class (``monkeypatch.setattr(SimulatedACL,
    "_device_can_access_peer", ...)``) and call the original as ``original(sim, *args)``.
    """

    def __init__(self, part: str, method: str) -> None:
        self.part, self.method = part, method

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return getattr(getattr(obj, self.part), self.method)

    def __call__(self, sim: Any, *args: Any) -> Any:
        return getattr(getattr(sim, self.part), self.method)(*args)


def handler_name(call: str) -> str:
    """The class attribute of a call's handler: ``"rt.set_device"`` -> ``"_set_device"``."""
    return "_" + call.rsplit(".", 1)[-1]


def engine_for(topology: Topology, *, jitter: float, seed: int) -> Engine:
    """An engine with the capacity of every resource a copy may cross on topology."""
    cap: dict[Any, float] = {}
    n = topology.device_count
    for i in range(n):
        cap[("hbm", i)] = topology.local_copy_GBps * _GB
        cap[("h2d", i)] = topology.host.h2d_GBps * _GB
        cap[("d2h", i)] = topology.host.d2h_GBps * _GB
        if topology.port_GBps:
            cap[("egress", i)] = topology.port_GBps * _GB
            cap[("ingress", i)] = topology.port_GBps * _GB
        for j in range(n):
            lc = topology.link_class(i, j)
            if lc is not None:
                cap[("link", i, j)] = lc.bandwidth_GBps * _GB
                # what a write (push) or a read (pull) reaches of the link, on its own
                cap[("push", i, j)] = lc.bandwidth_GBps * lc.push_efficiency * _GB
                cap[("pull", i, j)] = lc.bandwidth_GBps * lc.pull_efficiency * _GB
    for k, limit in enumerate(topology.shared):  # see routes.shared_resources
        for g in range(len(limit.groups)):
            for kind, budget in (
                ("out", limit.egress_GBps),
                ("in", limit.ingress_GBps),
                ("both", limit.both_GBps),
            ):
                if budget is not None:
                    cap[("shared", k, kind, g)] = budget * _GB
    cap[("h2h",)] = _HOST_H2H_GBPS * _GB
    cap.update(lane_capacity(topology))  # the A3's twin-die HCCS lanes
    return Engine(cap, jitter=jitter, seed=seed)


class SimulatedACL:
    """A module-like simulated pyACL (``acl``); see the module docstring.

    Args:
        topology: the server to model.
        seed: seed of the jitter; the same seed gives the same numbers.
        faults: faults to inject (see :mod:`.faults`).
        api_level: ``"new"`` (all calls) or ``"old"`` (hides :data:`.formats.NEWER_CALLS`).
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
        self.topology, self.seed, self.api_level = topology, seed, api_level
        self.__name__ = "acl"
        self.__simulated__ = True
        self._build_parts(faults, jitter if jitter is not None else topology.jitter)
        self._lock = threading.RLock()
        #: calls made per pyACL name (also ``simulator.call_counts``, read-only)
        self.call_counts: dict[str, int] = {}
        self.simulator = Simulator(
            topology=topology,
            seed=seed,
            engine=self._engine,
            lock=self._lock,
            counts=self.call_counts,
            released=self.implicit_releases,
            devices=self._devices,
            memory=self._memory,
            streams=self._streams,
            peers=self._peers,
            ipc=self._ipc,
            dielinks=self._dielinks,
            applog=self._applog,
            programs=Programs(self),
        )
        for name in TOP_CALLS:
            setattr(self, name, self._bind(name))
        for space, calls in NAMESPACES.items():
            if space:
                setattr(self, space, self._namespace(space, calls))

    def _namespace(self, space: str, calls: tuple[str, ...]) -> Namespace:
        """``acl.<space>``: its bound calls (an old api_level hides the newer ones)."""
        hidden = NEWER_CALLS if self.api_level == "old" and space == "rt" else ()
        kind = type(
            space,
            (Namespace,),
            {"_path": f"acl.{space}", "_hidden": hidden, "_server": self.topology.name},
        )
        return kind(**{name: self._bind(f"{space}.{name}") for name in calls if name not in hidden})

    def __getattr__(self, name: str) -> NoReturn:
        """A top-level pyACL name (or submodule, ``acl.mdl``) the simulator lacks."""
        if name.startswith("_"):
            raise AttributeError(name)
        raise NotSimulated(f"acl.{name}", self.topology.name)

    def _build_parts(
        self, faults: Iterable[Fault | Mapping[str, object]] | None, jitter: float
    ) -> None:
        """Make the parts and wire them together."""
        topo = self.topology
        self._errors = errors = ErrorLog()
        self._engine = engine = engine_for(topo, jitter=jitter, seed=self.seed)
        known = ("init", "finalize", *(f"rt.{name}" for name in RT_CALLS))
        self._injector = injector = FaultInjector(faults, engine, errors, known)
        injector.degrade()
        #: what reset/finalize released that the process had not (also in the ledger)
        self.implicit_releases: list[str] = []
        released = self.implicit_releases
        shared = Shared(topo, engine, injector, errors, released)
        self._devices = devices = Devices(shared)
        self._contexts = contexts = Contexts(shared, devices)
        self._applog = AppLog()
        self._peers = peers = Peers(shared, devices)
        self._memory = memory = Allocations(shared, devices)
        self._streams = streams = Streams(shared, devices)
        self._router = router = Router(shared, memory.space, peers)
        self._copies = Copies(shared, devices, streams, router)
        self._ipc = ipc = Ipc(shared, devices, memory, peers)
        self._dielinks = dielinks = DieLinks(shared, devices, memory)
        contexts.teardown_hooks.append(streams.release_context)
        contexts.on_switch.append(self._copies.clear)
        # what a device's last reset frees, in the driver's order
        devices.release_hooks += [
            memory.release_device,
            streams.release_device,
            peers.release_device,
        ]
        devices.finalize_hooks += [
            memory.release_host_buffers,
            ipc.release_all,
            dielinks.release_all,
        ]

    # ------------------------------------------------------------------ dispatch
    def _bind(self, call: str) -> Callable[..., Any]:
        """``call`` as the acl module offers it: checked, locked, counted, dispatched."""
        handler = getattr(self, handler_name(call))
        check = checker(call)
        if call in UNLOCKED:
            fn = _unlocked(check, handler)
        elif call in FAST_CALLS:

            def checked(*args: Any) -> Any:
                check(args)
                return handler(*args)

            fn = self._fast(call, checked)
        elif call.startswith("rt."):
            fn = _counted(
                call,
                check,
                handler,
                self._lock,
                self.call_counts,
                None if call in KEEPS_PLANS else self._copies.clear,
            )
        else:
            fn = _locked(
                check, handler, self._lock, None if call in KEEPS_PLANS else self._copies.clear
            )
        fn.__name__ = call.rsplit(".", 1)[-1]
        fn.__qualname__ = call
        fn.__doc__ = getattr(handler, "__doc__", None)
        return fn

    def _fast(self, call: str, checked: Callable[..., Any]) -> Callable[..., Any]:
        """The bound call of one of :data:`FAST_CALLS`: a repeat of a kept successful call
        skips the checks; anything else goes to ``checked``."""
        lock, counts = self._lock, self.call_counts
        if call == "rt.memcpy_async":
            return self._copies.fast_memcpy_async(lock, counts, checked)
        return self._streams.fast_event_call(call, lock, counts, checked)

    def __repr__(self) -> str:
        return (
            f"<simulated acl: {self.topology.name}, {self.topology.device_count} x "
            f"{self.topology.soc_name}, seed={self.seed}>"
        )


class NotSimulated(AttributeError):
    """A pyACL name the simulated ``acl`` does not implement (one line names it).

    Example:
        >>> from ascend_p2p_lab.sim import simulated_acl
        >>> try:
        ...     simulated_acl("atlas800t-a2").rt.create_channel()
        ... except NotSimulated as err:
        ...     print(str(err).split(";")[0])
        acl.rt.create_channel is not implemented by the ascend_p2p_lab simulator (atlas800t-a2)
    """

    def __init__(self, call: str, server: str, why: str = "") -> None:
        self.call = call
        why = why or (
            "is not implemented by the ascend_p2p_lab simulator "
            f"({server}); docs/reference/simulator-calls.md lists the calls it "
            "implements"
        )
        super().__init__(f"{call} {why}")


class Namespace(SimpleNamespace):
    """A simulated ``acl`` submodule (``acl.rt``, ``acl.util``, ``acl.media``): its calls
    as attributes; any other public name raises :class:`NotSimulated`."""

    _path = "acl"
    _hidden: tuple[str, ...] = ()
    _server = ""

    def __getattr__(self, name: str) -> NoReturn:
        if name.startswith("__"):
            raise AttributeError(name)
        why = (
            "is not in this simulated pyACL: api_level='old' models a CANN release without it"
            if name in self._hidden
            else ""
        )
        raise NotSimulated(f"{self._path}.{name}", self._server, why)


for _call, (_part, _method) in DISPATCH.items():
    setattr(SimulatedACL, handler_name(_call), Handler(_part, _method))


# ---------------------------------------------------------------------- call wrappers
def _unlocked(check: Check, handler: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        check(args)
        return handler(*args)

    return call


def _counted(
    name: str,
    check: Check,
    handler: Callable[..., Any],
    lock: Any,
    counts: dict[str, int],
    clear: Callable[[], None] | None,
) -> Callable[..., Any]:
    """An ``acl.rt`` call: under the lock, counted; ``clear`` after it (None: keeps plans)."""
    if clear is None:
        arity = int_arity(check)
        if arity is not None:
            return _counted_ints(name, arity, check, handler, lock, counts)

        def call(*args: Any) -> Any:
            lock.acquire()  # acquire/release: cheaper than `with lock` per call
            try:
                counts[name] = counts.get(name, 0) + 1
                check(args)
                return handler(*args)
            finally:
                lock.release()

        return call

    def call_and_clear(*args: Any) -> Any:
        lock.acquire()
        try:
            counts[name] = counts.get(name, 0) + 1
            check(args)
            return handler(*args)
        finally:
            clear()
            lock.release()

    return call_and_clear


def _counted_ints(
    name: str,
    arity: int,
    check: Check,
    handler: Callable[..., Any],
    lock: Any,
    counts: dict[str, int],
) -> Callable[..., Any]:
    """:func:`_counted` of a call whose arguments are all C integers: ``arity`` plain ints
    need no call of the check (anything else gets it: it raises, or passes a bool)."""

    def call(*args: Any) -> Any:
        lock.acquire()
        try:
            try:
                counts[name] += 1
            except KeyError:  # the first call
                counts[name] = 1
            if len(args) != arity:
                check(args)  # raises the arity error
            for value in args:
                if type(value) is not int:
                    check(args)
                    break
            return handler(*args)
        finally:
            lock.release()

    return call


def _locked(
    check: Check, handler: Callable[..., Any], lock: Any, clear: Callable[[], None] | None
) -> Callable[..., Any]:
    """A top-level or ``acl.util`` call: under the lock, not counted."""

    def call(*args: Any) -> Any:
        with lock:
            try:
                check(args)
                return handler(*args)
            finally:
                if clear is not None:
                    clear()

    return call
