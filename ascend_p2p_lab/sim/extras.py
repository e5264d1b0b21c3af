"""``acl.simulator``: what the simulator offers beyond pyACL's API, in one small interface.

A simulated ``acl`` is driven through pyACL's calls only, exactly like hardware. Tools
that know they run on the simulator (the runtime layer, the test suite, the dashboard)
need a few things more, and reach them here rather than through private attributes:

======================  =================================================================
``topology``            the :class:`~ascend_p2p_lab.topology.Topology` being simulated
``seed``                the jitter seed (the same seed gives the same numbers)
``host_time_us``        the virtual host clock, microseconds since the simulator started
``host_time_ns``        the same clock in whole nanoseconds (what the runtime's host
                        timing reads)
``ledger()``            what the process still holds, plus what reset/finalize released
                        implicitly (a new dict per call)
``ledger_is_empty()``   nothing outstanding and nothing released implicitly
``faults``              the faults being injected (empty: none)
``call_counts``         calls made per pyACL name (``"rt.memcpy_async"``), a read-only
                        live view
``reseed_jitter(key)``  restart the jitter draws from (seed, key)
``begin_point(key)``    reseed the jitter and, with every stream idle, restart the clock's
                        origin: a point's numbers then do not depend on what ran before
                        it, nor on the process it runs in (the runtime's ``begin_point``)
``run_program(...)``    a per-copy program of calls (a staged copy's legs and waits),
                        repeated, as one operation where its order allows
                        (:mod:`.programs`; what ``Runtime._run_program`` uses)
``repeat_copy(...)``    one async copy repeated, the repeats queued at once
                        (what ``Runtime.enqueue_copies`` uses)
``implicit_releases``   what ``aclrtResetDevice``/``aclFinalize`` freed that the process
                        had not released itself, oldest first (a copy)
``copy_limit(event)``   what bound the last copy recorded before the event on its stream:
                        ``("link", src, dst)`` or ``("budget", name)`` (a port, a
                        ``[[shared]]`` group's budget, a device's HBM, PCIe), from the
                        engine's own accounting of what was saturated; None if no copy
======================  =================================================================

Example:
    >>> from ascend_p2p_lab.sim import simulated_acl
    >>> acl = simulated_acl("atlas800t-a2", seed=3)
    >>> sim = acl.simulator
    >>> sim.topology.name, sim.seed, sim.host_time_us
    ('atlas800t-a2', 3, 0.0)
    >>> acl.init(), acl.rt.set_device(0), sim.host_time_us
    (0, 0, 201001.0)
    >>> dict(sim.call_counts), sim.ledger()["devices_set"], sim.ledger_is_empty()
    ({'rt.set_device': 1}, {0: 1}, False)
    >>> acl.rt.reset_device(0), acl.finalize(), sim.implicit_releases, sim.ledger_is_empty()
    (0, 0, [], True)
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..topology.model import Topology
from .engine import NS_PER_US

if TYPE_CHECKING:  # the parts, for annotations only
    from .allocations import Allocations
    from .devices import Devices
    from .engine import Engine
    from .peers import Peers
    from .streams import Streams


class Simulator:
    """The simulator's extra abilities (see the module docstring); ``acl.simulator``."""

    __slots__ = (
        "_applog",
        "_counts",
        "_devices",
        "_dielinks",
        "_engine",
        "_ipc",
        "_lock",
        "_memory",
        "_peers",
        "_programs",
        "_released",
        "_seed",
        "_streams",
        "_topology",
    )

    def __init__(
        self,
        *,
        topology: Topology,
        seed: int,
        engine: Engine,
        lock: threading.RLock,
        counts: dict[str, int],
        released: list[str],
        devices: Devices,
        memory: Allocations,
        streams: Streams,
        peers: Peers,
        ipc: Any = None,
        applog: Any = None,
        programs: Any = None,
        dielinks: Any = None,
    ) -> None:
        self._ipc, self._applog, self._programs = ipc, applog, programs
        self._dielinks = dielinks
        self._topology, self._seed, self._counts = topology, seed, MappingProxyType(counts)
        self._engine, self._lock, self._released = engine, lock, released
        self._devices, self._memory, self._streams, self._peers = devices, memory, streams, peers

    @property
    def topology(self) -> Topology:
        """The server being simulated."""
        return self._topology

    @property
    def seed(self) -> int:
        """The jitter seed (the same seed gives the same numbers)."""
        return self._seed

    @property
    def app_log_path(self) -> Any:
        """The file ``acl.app_log`` writes to (a ``Path``), None before its first line."""
        return self._applog.path if self._applog is not None else None

    @property
    def call_counts(self) -> MappingProxyType[str, int]:
        """Calls made per pyACL name, e.g. ``"rt.memcpy_async"`` (a read-only, live view)."""
        return self._counts

    @property
    def host_time_us(self) -> float:
        """The simulated host clock (microseconds since the simulator started)."""
        engine = self._engine
        return engine.epoch_ns / NS_PER_US + engine.host_us

    @property
    def host_time_ns(self) -> int:
        """The simulated host clock in whole nanoseconds since the simulator started."""
        engine = self._engine
        return engine.epoch_ns + int(engine.host_us * NS_PER_US)

    @property
    def faults(self) -> tuple[Any, ...]:
        """The faults being injected (:class:`~.faults.Fault` records; empty: none)."""
        return tuple(self._devices.injector.faults)

    @property
    def implicit_releases(self) -> list[str]:
        """What reset/finalize released that the process had not, oldest first (a copy)."""
        return list(self._released)

    def reseed_jitter(self, key: str) -> None:
        """Restart the jitter draws from a stable hash of (seed, key).

        Example: ``acl.simulator.reseed_jitter("pair/uni/on/p2p/0-1/4096")``; the copies
        after it get the same time factors whichever copies came before.
        """
        with self._lock:
            self._engine.reseed(str(key))

    def begin_point(self, key: str) -> bool:
        """A measurement point starts: :meth:`reseed_jitter`, then the clock's origin
        moves to now if every stream is idle (``Engine.rebase``; whether it did). The
        point's numbers then depend on the point alone: the same after a resume, in
        another order, or in another process.

        Example: ``acl.simulator.begin_point("pair/uni/on/p2p/0-1/4096")`` -> True.
        """
        with self._lock:
            self._engine.reseed(str(key))
            rebased = self._engine.rebase(self._streams.events.values())
            self._devices.injector.begin_point(str(key))
            return rebased

    def copy_limit(self, event: int) -> tuple[Any, ...] | None:
        """What bound the last copy its stream ran before ``event`` was recorded: the
        resource whose capacity held the copy for most of its bytes (a saturated link or
        budget), ``("link", src, dst)`` or ``("budget", name)`` with the names of
        :func:`~ascend_p2p_lab.collectives.rates.topology_budgets`; None when no copy
        ran before it, or the event is unknown or not yet recorded.

        Example: ``acl.simulator.copy_limit(done_event)`` -> ``("budget", "card[0,1]:both")``.
        """
        with self._lock:
            found = self._streams.events.get(event)
            if found is None:
                return None
            self._engine.resolve()
            return None if found.limit is None else limit_name(self._topology, found.limit)

    def run_program(
        self, steps: Sequence[Any], copies: int, tail: Sequence[Any], current: Any
    ) -> tuple[int, Any, Any] | None:
        """A per-copy program of calls repeated ``copies`` times, then ``tail``, computed
        as one operation when its order allows (:mod:`.programs`): the same results as
        the calls one by one, to the bit; None when it does not (nothing was done)."""
        if self._programs is None:
            return None
        return self._programs.run(steps, copies, tail, current)

    def repeat_copy(self, fn: Any, args: tuple, copies: int) -> int | None:
        """``acl.rt.memcpy_async(*args)`` ``copies`` times, the repeats of a kept copy
        appended to its stream's run at once (:mod:`.programs`; same results, to the bit):
        the first non-zero ret, else 0; None when ``fn`` is not this simulator's."""
        if self._programs is None:
            return None
        return self._programs.repeat_copy(fn, args, copies)

    def ledger(self) -> dict[str, Any]:
        """What the process still holds, plus anything released implicitly (by reset/finalize)."""
        with self._lock:
            return {
                "initialized": self._devices.initialized,
                "devices_set": {d: r for d, r in self._devices.refs.items() if r},
                "device_buffers": len(self._memory.device_allocs),
                "host_buffers": len(self._memory.host_allocs),
                "contexts": len(self._devices.explicit),
                "streams": len(self._streams.streams),
                "events": len(self._streams.events),
                "peer_refs": {f"{a}->{b}": r for (a, b), r in self._peers.refs.items() if r},
                "ipc_exports": sorted(self._ipc.exported) if self._ipc else [],
                "ipc_imports": sorted(self._ipc.imported) if self._ipc else [],
                "reserved_ranges": len(self._dielinks.reserved) if self._dielinks else 0,
                "implicit_releases": list(self._released),
            }

    def ledger_is_empty(self) -> bool:
        """True when nothing is outstanding and nothing had to be released implicitly."""
        led = self.ledger()
        return not (
            led["initialized"]
            or led["devices_set"]
            or led["contexts"]
            or led["device_buffers"]
            or led["host_buffers"]
            or led["streams"]
            or led["events"]
            or led["peer_refs"]
            or led["ipc_exports"]
            or led["ipc_imports"]
            or led["reserved_ranges"]
            or led["implicit_releases"]
        )

    def shared_ledger(self) -> dict[str, int]:
        """What live processes hold in the IPC state this process shares (exports not yet
        freed, imports not yet closed), after dropping what dead processes held."""
        with self._lock:
            return self._ipc.registry.live() if self._ipc else {"exports": 0, "imports": 0}

    def __repr__(self) -> str:
        return f"<simulator of {self.topology.name}, seed={self.seed}>"


#: the engine's directions of a shared budget as the collectives' budget names say them
_WAYS = {"out": "egress", "in": "ingress"}


def limit_name(topo: Topology, resource: Any) -> tuple[Any, ...]:
    """An engine resource as :meth:`Simulator.copy_limit` names it.

    Example:
        >>> from ascend_p2p_lab.topology import load_preset
        >>> a3 = load_preset("atlas800t-a3")
        >>> limit_name(a3, ("push", 2, 5)), limit_name(a3, ("shared", 0, "both", 1))
        (('link', 2, 5), ('budget', 'card[2,3]:both'))
    """
    kind = resource[0]
    if kind in ("link", "push", "pull"):
        return ("link", resource[1], resource[2])
    if kind in ("egress", "ingress"):
        return ("budget", f"port[{resource[1]}]:{kind}")
    if kind == "shared":
        _, k, way, g = resource
        limit = topo.shared[k]
        group = f"{limit.name}[{','.join(map(str, limit.groups[g]))}]"
        return ("budget", f"{group}:{_WAYS.get(way, way)}")
    return ("budget", f"{kind}[{','.join(map(str, resource[1:]))}]")
