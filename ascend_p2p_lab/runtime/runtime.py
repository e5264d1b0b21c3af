"""The runtime layer: the only code that calls pyACL and knows its conventions.

A :class:`Runtime` wraps any module with pyACL's interface (CANN's ``acl`` or the
simulator). It turns every non-zero ``ret`` into :class:`AclError`, tracks which
devices it set, which peer links it enabled and which resources it allocated, and
releases all of them when it closes, also on an exception or KeyboardInterrupt.

Example:
    >>> with open_runtime("sim", preset="atlas800t-a2") as rt:
    ...     rt.backend, rt.device_count, rt.can_access_peer(0, 1), rt.link_class(0, 1)
    ('sim', 8, True, 'HCCS')
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from .. import codes as C
from ..codes import MemAttr
from .backend import BackendInfo, is_simulated, load_acl
from .capabilities import calls_of
from .errors import AclError, MissingCall
from .ipc import IpcCalls
from .linksource import LinkSource, find_link_source
from .resources import PeerLinks, Resource, close_all
from .transfers import Transfers


class Runtime(Transfers, IpcCalls):
    """An initialized ACL session over one pyACL-like module. Use :func:`open_runtime`."""

    def __init__(self, acl: Any, info: BackendInfo, topology: Any = None) -> None:
        self.acl = acl
        self.info = info
        self.simulated = is_simulated(acl)
        # the simulator's documented extras (virtual clock, ledger): acl.simulator
        sim = getattr(acl, "simulator", None) if self.simulated else None
        self._sim = sim
        self.topology = topology if topology is not None else getattr(sim, "topology", None)
        self._tls = threading.local()
        self._lock = threading.RLock()
        self._resources: dict[int, Resource] = {}
        self._set_counts: dict[int, int] = {}
        self._contexts: dict[int, int] = {}
        self._peer_refs: dict[tuple[int, int], int] = {}
        self._link_source: LinkSource | None = None
        #: every fallback this runtime took: missing call -> what it did instead
        #: (:data:`.capabilities.FALLBACKS`; a sweep puts them in run.json)
        self.fallbacks: dict[str, str] = {}
        self._owns_init = False
        self.closed = True
        self._device_count: int | None = None

    # ------------------------------------------------------------------ basics
    @property
    def backend(self) -> str:
        """``"sim"`` or ``"acl"``."""
        return self.info.backend

    @property
    def seed(self) -> int | None:
        """The simulated server's jitter seed (None on hardware)."""
        return getattr(self._sim, "seed", None)

    @property
    def preset(self) -> str | None:
        """The simulated server's preset (None on hardware)."""
        return self.info.preset

    @property
    def forkable(self) -> bool:
        """Whether a forked process may measure on a copy of this runtime and get the
        numbers this process would: the simulator, with no faults injected (a fault's
        state, say its n-th call, would be counted per process). Never on hardware."""
        return self._sim is not None and not self._sim.faults

    def simulated_server(self) -> tuple[Any, list[Any]]:
        """What another process's simulator runs to be this one (``sweep --processes``'
        workers): the server, its ``[[fault]]`` tables included, and the faults given
        beside it, fresh (each process counts its own nth); ``(None, [])`` on hardware."""
        if self._sim is None:
            return None, []
        beside = self._sim.faults[len(getattr(self.topology, "faults", ())) :]
        return self.topology, [dataclasses.replace(f, seen=0) for f in beside]

    def has(self, name: str) -> bool:
        """Whether the installed pyACL has ``acl.rt.<name>`` (feature detection)."""
        return hasattr(self.acl.rt, name)

    def missing(self, needs: Iterable[str | tuple[str, ...]]) -> list[str]:
        """The ``acl.rt`` calls of ``needs`` this pyACL lacks; a tuple is a set of
        alternatives, any one of which will do (reported as the first).

        Example: ``rt.missing(["stream_wait_event", ("create_event_with_flag",
        "create_event")])``.
        """
        out = []
        for need in needs:
            options = (need,) if isinstance(need, str) else need
            if not any(self.has(name) for name in options):
                out.append(f"acl.rt.{options[0]}")
        return out

    def lacks(self, capabilities: Iterable[str]) -> list[str]:
        """The pyACL calls missing for the capabilities (see :mod:`.capabilities`), as
        ``acl.rt.<name>``; empty when the installed pyACL has them all.

        Example: ``rt.lacks(["event_timing", "stream_wait"])``.
        """
        return self.missing(calls_of(capabilities))

    def _fn(self, name: str) -> Any:
        """The pyACL function ``acl.<name>``; :class:`MissingCall` if this pyACL lacks it."""
        group, _, call = name.partition(".")  # "rt.memcpy", "util.ptr_to_bytes", "init"
        try:
            fn = getattr(self.acl, group)
            return getattr(fn, call) if call else fn
        except AttributeError:
            raise MissingCall(f"acl.{name}") from None

    def call(self, name: str, *args: Any) -> Any:
        """Call ``acl.<name>(*args)``; raise AclError on a non-zero ret (MissingCall if the
        installed pyACL lacks it); return the out-values.

        Example: ``count = rt.call("rt.get_device_count")``.
        """
        group, _, call = name.partition(".")  # _fn, inlined: every checked call is here
        try:
            fn = getattr(self.acl, group)
            if call:
                fn = getattr(fn, call)
        except AttributeError:
            raise MissingCall(f"acl.{name}") from None
        out = fn(*args)
        if isinstance(out, tuple):
            if len(out) == 2:  # (value, ret): the common case
                if out[1]:
                    raise AclError(f"acl.{name}", args, out[1], self._recent_error())
                return out[0]
        elif not out:  # a ret of 0 alone
            return None
        return self._outcome(name, args, out)

    def _call_ret(self, name: str, *args: Any) -> None:
        """``call("rt.<name>", *args)`` of a call whose reply is a ret alone (a record, a
        synchronize): the same checks, without call()'s parsing of the name.

        Example: ``rt._call_ret("synchronize_stream", handle)``.
        """
        try:
            fn = getattr(self.acl.rt, name)
        except AttributeError:
            raise MissingCall(f"acl.rt.{name}") from None
        out = fn(*args)
        if out:  # a ret (or out-values): what call() makes of it
            self._outcome(f"rt.{name}", args, out)

    def _outcome(self, name: str, args: tuple, out: Any) -> Any:
        """What :meth:`call` makes of what ``acl.<name>(*args)`` returned."""
        if isinstance(out, tuple):
            *values, ret = out
        else:
            values, ret = [], out
        if ret:
            raise AclError(f"acl.{name}", args, ret, self._recent_error())
        if not values:
            return None
        return values[0] if len(values) == 1 else tuple(values)

    def _recent_error(self) -> str:
        try:
            msg = self.acl.get_recent_err_msg()
        except Exception:  # an old pyACL without it
            return ""
        return msg or ""

    # ------------------------------------------------------------------ lifetime
    def open(self) -> Runtime:
        """``aclInit`` (a repeated init, 100002, is not an error)."""
        ret = self.acl.init()
        if ret not in (C.ACL_SUCCESS, C.ACL_ERROR_REPEAT_INITIALIZE):
            raise AclError("acl.init", (), ret, self._recent_error())
        self._owns_init = ret == 0
        self.closed = False
        return self

    def close(self) -> None:
        """Free every open resource, disable the peer links this runtime enabled, reset the
        devices it set and finalize the runtime it initialized. Raises the first error after
        trying everything; a failed release, disable, reset or finalize is retried once while the
        others proceed, and a KeyboardInterrupt does not stop the teardown (it is raised at
        the end)."""
        if self.closed:
            return
        errors: list[BaseException] = []

        def attempt(fn: Any, *args: Any, tries: int = 1) -> bool:
            """Call fn up to tries times; keep the last error only if every try failed."""
            failure: BaseException | None = None
            for _ in range(tries):
                try:
                    fn(*args)
                except BaseException as exc:  # keep releasing; raised at the end
                    failure = exc
                    if isinstance(exc, KeyboardInterrupt):
                        break
                else:
                    return True
            assert failure is not None
            errors.append(failure)
            return False

        attempt(close_all, reversed(list(self._resources.values())))
        for (src, dst), refs in list(self._peer_refs.items()):
            for _ in range(refs):
                if not attempt(self.disable_peer, src, dst, tries=2):
                    break  # the device reset below drops it
        for dev, count in list(self._set_counts.items()):
            for _ in range(count):
                if not attempt(self.call, "rt.reset_device", dev, tries=2):
                    break  # aclFinalize below resets what is left
        self._set_counts.clear()
        self._contexts.clear()
        self._tls = threading.local()
        if self._owns_init:
            attempt(self.call, "finalize", tries=2)
        with self._lock:  # what failed to release went with the device reset or finalize
            for res in self._resources.values():
                res.closed = True
            self._resources.clear()
            self._peer_refs.clear()
        self.closed = True
        if errors:
            interrupt = next((e for e in errors if isinstance(e, KeyboardInterrupt)), None)
            raise interrupt or errors[0]

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        try:
            self.close()
        except Exception:
            if exc_type is None:
                raise  # otherwise keep the original exception

    def _track(self, res: Resource) -> None:
        with self._lock:
            self._resources[id(res)] = res

    def _untrack(self, res: Resource) -> None:
        with self._lock:
            self._resources.pop(id(res), None)

    def open_resources(self) -> list[Resource]:
        """Resources made by this runtime and not yet released."""
        return list(self._resources.values())

    # ------------------------------------------------------------------ devices
    @property
    def device_count(self) -> int:
        if self._device_count is None:
            self._device_count = int(self.call("rt.get_device_count"))
        return self._device_count

    def check_device(self, dev: int, what: str = "device") -> int:
        """Validate a device id before any call; a clear ValueError otherwise."""
        if isinstance(dev, bool) or not isinstance(dev, int):
            raise TypeError(f"{what} id must be an int, got {type(dev).__name__}")
        if not 0 <= dev < self.device_count:
            raise ValueError(f"{what} id {dev} is out of range: 0..{self.device_count - 1}")
        return dev

    @property
    def soc_name(self) -> str | None:
        get = getattr(self.acl, "get_soc_name", None)  # feature-detected
        return get() if get is not None else None

    def versions(self) -> dict[str, Any]:
        """Runtime version figures the installed pyACL offers."""
        out: dict[str, Any] = {"simulated": self.simulated}
        if hasattr(self.acl, "get_version"):
            major, minor, patch, ret = self.acl.get_version()
            if ret == 0:
                out["acl_version"] = f"{major}.{minor}.{patch}"
        return out

    def current_device(self) -> int | None:
        """This thread's current device, as this runtime set it."""
        return getattr(self._tls, "current", None)

    def use(self, dev: int) -> None:
        """Make dev this thread's current device.

        The first time, ``aclrtSetDevice`` (reference-counted; undone on close); after
        that, ``aclrtSetCurrentContext`` with the device's default context, which does not
        add references. Without context calls, ``aclrtSetDevice`` each time.
        """
        if getattr(self._tls, "current", None) == dev:
            return
        ctx = self._contexts.get(dev)
        if ctx is not None:  # call("rt.set_context", ctx), inlined: a sweep switches often
            try:
                set_context = self.acl.rt.set_context
            except AttributeError:
                raise MissingCall("acl.rt.set_context") from None
            out = set_context(ctx)
            if out:  # a ret (or out-values): what call() makes of it
                self._outcome("rt.set_context", (ctx,), out)
        else:
            self.call("rt.set_device", dev)
            with self._lock:
                self._set_counts[dev] = self._set_counts.get(dev, 0) + 1
            if self.has("get_context") and self.has("set_context"):
                self._contexts[dev] = int(self.call("rt.get_context"))
        self._tls.current = dev

    def try_use(self, dev: int) -> bool:
        """Like :meth:`use`, but a failure (say, a lost device) is not raised: teardown
        goes on, since freeing needs no working device."""
        try:
            self.use(dev)
        except AclError:
            return False
        return True

    @contextmanager
    def on(self, dev: int) -> Iterator[None]:
        """Run a block with dev current, then switch back."""
        before = self.current_device()
        self.use(dev)
        try:
            yield
        finally:
            if before is not None:
                self.use(before)

    def mem_info(self, dev: int) -> tuple[int, int]:
        """(free, total) bytes of HBM on dev."""
        self.use(dev)
        free, total = self.call("rt.get_mem_info", int(MemAttr.HBM_MEM))
        return int(free), int(total)

    # ------------------------------------------------------------------ peer access
    def can_access_peer(self, src: int, dst: int) -> bool:
        """``aclrtDeviceCanAccessPeer``; False for src == dst (ACL would say 100000)."""
        if src == dst:
            return False
        return bool(self.call("rt.device_can_access_peer", src, dst))

    def link_class(self, src: int, dst: int) -> str:
        """Link class in npu-smi words, from :meth:`link_source`: the topology the runtime
        was given (the simulator's, or ``--topology``), else ``aclrtGetDevicesTopo`` where
        pyACL has it, else ``npu-smi info -t topo`` on PATH, else 'NA' (nobody said)."""
        if src == dst:
            return "X"
        if self.topology is not None:
            return self.topology.link(src, dst)
        if self.has("get_devices_topo"):
            return C.topology_from_bits(int(self.call("rt.get_devices_topo", src, dst)))
        return self.link_source().link(src, dst) or "NA"

    def link_source(self) -> LinkSource:
        """Where this runtime's link classes come from (found once; see
        :mod:`.linksource`). Its ``describe()`` is run.json's ``link_classes_from``."""
        if self._link_source is None:
            self._link_source = find_link_source(self)
        return self._link_source

    def enable_peer(self, src: int, dst: int) -> None:
        """Enable peer access src -> dst (``aclrtDeviceEnablePeerAccess(dst, 0)`` on src)."""
        self.use(src)
        self.call("rt.device_enable_peer_access", dst, 0)
        with self._lock:
            self._peer_refs[(src, dst)] = self._peer_refs.get((src, dst), 0) + 1

    def disable_peer(self, src: int, dst: int) -> None:
        """Disable one enable of src -> dst that this runtime made."""
        if self._peer_refs.get((src, dst), 0) == 0:
            raise ValueError(f"peer access {src}->{dst} was not enabled by this runtime")
        self.use(src)
        self.call("rt.device_disable_peer_access", dst)
        with self._lock:
            self._peer_refs[(src, dst)] -= 1
            if self._peer_refs[(src, dst)] == 0:
                del self._peer_refs[(src, dst)]

    def peer_enabled(self, src: int, dst: int) -> bool:
        """Whether this runtime holds an enable of src -> dst."""
        return self._peer_refs.get((src, dst), 0) > 0

    def peer_refs(self) -> dict[tuple[int, int], int]:
        """Enables held by this runtime, per direction (the driver counts references)."""
        return dict(self._peer_refs)

    def peer_status(self, src: int, dst: int) -> int | None:
        """``aclrtDevicePeerAccessStatus`` where pyACL has it (None otherwise). The driver
        may report the pair rather than one direction."""
        if src == dst or not self.has("device_peer_access_status"):
            return None
        return int(self.call("rt.device_peer_access_status", src, dst))

    def peer_links(self, pairs: Iterable[tuple[int, int]]) -> PeerLinks:
        """Enable a set of directed pairs; the returned object disables exactly those."""
        return PeerLinks(self, list(pairs))

    # ------------------------------------------------------------------ clocks, ledger
    def host_time_ns(self) -> int:
        """Host clock: the simulator's virtual clock, or ``time.perf_counter_ns`` on hardware."""
        if self._sim is not None:
            return self._sim.host_time_ns
        return time.perf_counter_ns()

    def begin_point(self, key: str) -> None:
        """Say that a measurement point starts, with a key that names it stably (its
        block and size). On the simulator the jitter draws restart from (seed, key) and
        the clock's origin moves to now (``acl.simulator.begin_point``), so a point
        measures the same whatever ran before it: a resumed sweep equals an
        uninterrupted one, and blocks run in another process give the rows they give
        here. A no-op on real pyACL.

        Example: ``rt.begin_point("pair/uni/on/p2p/0-1/4096")``.
        """
        if self._sim is not None:
            self._sim.begin_point(key)

    def copy_limit(self, event: Any) -> tuple[Any, ...] | None:
        """What bound the last copy before ``event`` on its stream, by the simulator's
        own accounting: ``("link", src, dst)`` or ``("budget", name)``; None on hardware
        (a measured run names its bottleneck from the prediction, marked predicted).
        Example: ``rt.copy_limit(done)`` -> ``("budget", "card[0,1]:both")``."""
        sim = self._sim
        if sim is None or not hasattr(sim, "copy_limit"):
            return None
        return sim.copy_limit(event.handle)

    def ledger(self) -> dict[str, Any] | None:
        """The simulator's ledger of outstanding resources (None on hardware)."""
        return self._sim.ledger() if self._sim is not None else None

    def describe(self) -> dict[str, Any]:
        """Run metadata about the backend and devices."""
        topo = self.topology
        return {
            "backend": self.backend,
            "preset": self.preset,
            "seed": self.info.seed,
            "soc_name": self.soc_name,
            "device_count": self.device_count,
            "topology": getattr(topo, "name", None),
            "link_classes_from": self.link_source().describe(),
            **self.versions(),
        }

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        where = f"preset={self.preset!r}" if self.simulated else "real pyACL"
        return f"<Runtime backend={self.backend!r} {where} {state}>"


def open_runtime(
    backend: str | None = None,
    preset: str | None = None,
    *,
    seed: int | None = None,
    faults: Iterable[Mapping[str, object] | Any] | None = None,
    topology: Any = None,
    api_level: str = "new",
    announce: bool = True,
) -> Runtime:
    """Open an ACL session on ``"auto"``, ``"acl"`` or ``"sim"`` (see :mod:`.backend`).

    ``topology`` (a Topology, e.g. parsed from npu-smi text) is what the simulator runs
    on the sim backend, and what link classes are read from on hardware. ``announce``
    False keeps a fallback's notice in ``rt.info.notice`` instead of printing it.
    """
    acl, info = load_acl(
        backend,
        preset,
        seed=seed,
        faults=faults,
        api_level=api_level,
        topology=topology if backend != "acl" else None,
        announce=announce,
    )
    rt = Runtime(acl, info, topology if info.backend == "acl" else None)
    return rt.open()
