"""The simulated CANN runtime: pyACL's API over a modelled Atlas server.

:class:`SimulatedACL` is a drop-in for ``import acl``: the same names under ``acl.rt``
and ``acl.util``, the same argument order, out-values first and ``ret`` last, the real
numeric error codes, and the semantics of pyacl-api.md section 5. It is a dispatcher
built from what the parts declare (:func:`.part.pyacl` on the method that serves each
call): each call checks its arguments against its format (:mod:`.formats`) once, takes
the simulator's lock, counts itself, and hands over to the part that owns its concern:

- :class:`~.devices.Devices`: init/finalize, devices, the current device;
- :class:`~.contexts.Contexts`: default and explicit contexts;
- :class:`~.peers.Peers`: peer access;
- :class:`~.allocations.Allocations`: device and host memory, memset (and async), ``acl.util``;
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
from .formats import Check, checker, int_arity
from .injector import FaultInjector
from .ipc import Ipc
from .part import Call, Shared, declared
from .peers import Peers
from .programs import Programs
from .routes import Router
from .streams import Streams

_GB = 1e3  # GB/s -> bytes per microsecond
_HOST_H2H_GBPS = 10.0

#: The parts that serve pyACL calls, by the simulator's attribute for each. Each call is
#: declared beside the method that serves it (:func:`.part.pyacl`: its format, lock,
#: whether it keeps the kept copies, its fast path): a new call is one decorated method.
PARTS: dict[str, type] = {
    "_devices": Devices,
    "_contexts": Contexts,
    "_peers": Peers,
    "_memory": Allocations,
    "_copies": Copies,
    "_streams": Streams,
    "_ipc": Ipc,
    "_dielinks": DieLinks,
    "_errors": ErrorLog,
    "_applog": AppLog,
}
#: Every simulated call by its name under ``acl`` (``"rt.memcpy_async"``).
CALLS: dict[str, Call] = declared(PARTS)
#: Every namespace of the simulated ``acl`` and its calls ("" is the top level).
NAMESPACES: dict[str, tuple[str, ...]] = {}
for _name in CALLS:
    _space, _, _call = _name.rpartition(".")
    NAMESPACES[_space] = (*NAMESPACES.get(_space, ()), _call)
#: The ``acl.rt`` functions only newer CANN releases have; ``api_level="old"`` hides them.
NEWER_CALLS = tuple(name.removeprefix("rt.") for name, call in CALLS.items() if call.newer)


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
        for space, calls in NAMESPACES.items():
            if space:
                setattr(self, space, self._namespace(space, calls))
            else:
                for name in calls:
                    setattr(self, name, self._bind(CALLS[name]))

    def _namespace(self, space: str, calls: tuple[str, ...]) -> Namespace:
        """``acl.<space>``: its bound calls (an old api_level hides the newer ones)."""
        hidden = NEWER_CALLS if self.api_level == "old" and space == "rt" else ()
        kind = type(
            space,
            (Namespace,),
            {"_path": f"acl.{space}", "_hidden": hidden, "_server": self.topology.name},
        )
        bound = {name: self._bind(CALLS[f"{space}.{name}"]) for name in calls}
        return kind(**{name: fn for name, fn in bound.items() if name not in hidden})

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
        known = ("init", "finalize", *(name for name in CALLS if name.startswith("rt.")))
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
        self._streams = streams = Streams(shared, devices)
        self._memory = memory = Allocations(shared, devices, streams)
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
    def _bind(self, call: Call) -> Callable[..., Any]:
        """``call`` as the acl module offers it: checked, locked, counted, dispatched, as
        its method declares (:class:`.part.Call`)."""
        handler = getattr(self, handler_name(call.name))
        check = checker(call)
        if not call.locked:
            fn = _unlocked(check, handler)
        elif call.fast:  # a repeat of a kept successful call skips the checks
            fast = getattr(getattr(self, call.part), call.fast)
            fn = fast(call.name, self._lock, self.call_counts, _unlocked(check, handler))
        else:
            fn = _locked(
                call.name,
                check,
                handler,
                self._lock,
                self.call_counts if call.name.startswith("rt.") else None,
                None if call.keeps_plans else self._copies.clear,
            )
        fn.__name__ = call.name.rsplit(".", 1)[-1]
        fn.__qualname__ = call.name
        fn.__doc__ = getattr(handler, "__doc__", None)
        return fn

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


for _declared in CALLS.values():
    setattr(SimulatedACL, handler_name(_declared.name), Handler(_declared.part, _declared.method))


# ---------------------------------------------------------------------- call wrappers
def _unlocked(check: Check, handler: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        check(args)
        return handler(*args)

    return call


def _locked(
    name: str,
    check: Check,
    handler: Callable[..., Any],
    lock: Any,
    counts: dict[str, int] | None,
    clear: Callable[[], None] | None,
) -> Callable[..., Any]:
    """A call under the lock: counted in ``counts`` (None: a top-level or ``acl.util``
    call, not counted), then ``clear`` (None: it keeps the plans)."""
    arity = int_arity(check)
    if counts is not None and clear is None and arity is not None:
        return _counted_ints(name, arity, check, handler, lock, counts)

    def call(*args: Any) -> Any:
        lock.acquire()  # acquire/release: cheaper than `with lock` per call
        try:
            if counts is not None:
                counts[name] = counts.get(name, 0) + 1
            check(args)
            return handler(*args)
        finally:
            if clear is not None:
                clear()
            lock.release()

    return call


def _counted_ints(
    name: str,
    arity: int,
    check: Check,
    handler: Callable[..., Any],
    lock: Any,
    counts: dict[str, int],
) -> Callable[..., Any]:
    """:func:`_locked` of a counted call that keeps the plans, whose arguments are all C
    integers: ``arity`` plain ints need no call of the check (anything else gets it: it
    raises, or passes a bool)."""

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
