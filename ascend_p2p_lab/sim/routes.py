"""Copy routing: what a copy resolves to, as one typed :class:`Route`, cached.

:meth:`Router.resolve` checks a copy (NULL pointers, ``count > destMax``, the kind
against the addresses, ranges inside one allocation, whether two devices may copy
directly) and works out what it crosses: the regions and offsets it reads and writes,
the devices it concerns, the resources it occupies on the engine (a directed link, the
device ports of a switched link, PCIe in one direction, a device's HBM), its latency, and
the bytes the engine moves. A sweep repeats one copy thousands of times, so a successful
route is cached per (dst, destMax, src, count, kind, current device) until something it
depends on changes: the simulator clears the cache after every call that may change
memory, streams, devices or peer access, and :meth:`Router.clear` then drops every route
between two devices or through IPC memory (peer access decides those) and the others only
when an allocation came or went since they were cached. ``aclrtMemcpy``,
``aclrtMemcpyAsync`` and the repeated-``aclrtMemcpyAsync`` fast path all use these same
Route objects.

Example:
    >>> from ascend_p2p_lab.sim import simulated_acl
    >>> acl = simulated_acl("atlas800t-a2")
    >>> acl.init(), acl.rt.set_device(0)
    (0, 0)
    >>> (a, _), (b, _) = acl.rt.malloc(4096, 0), acl.rt.malloc(4096, 0)
    >>> router = acl._router
    >>> route, code = router.resolve(b, 4096, a, 4096, 3, 0)
    >>> route.resources, route.devices, route.link, route.staged
    ((('hbm', 0),), (0, 0), None, False)
    >>> router.resolve(b, 4096, a, 4096, 3, 0)[0] is route  # cached
    True
    >>> acl.rt.free(a), acl.rt.free(b), acl.rt.reset_device(0), acl.finalize()
    (0, 0, 0, 0)
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import codes as C
from ..vocab import DIE_HCCS
from .dielinks import unwrap
from .engine import Resource
from .memory import AddressSpace, Region
from .part import Part, Shared
from .peers import Peers

if TYPE_CHECKING:
    from ..topology import Topology

#: A copy's actual direction, from (source is device memory, destination is device memory).
_KIND_OF = {(False, False): 0, (False, True): 1, (True, False): 2, (True, True): 3}

RouteKey = tuple[int, int, int, int, int, int]


@dataclass(frozen=True)
class Route:
    """What one checked copy resolves to (read-only; shared while cached).

    (No ``slots``: on CPython 3.11 reading an attribute from the instance dict is faster
    than from a slot, and the fast path reads eight of these per copy.)
    """

    #: the region written and the offset of dst in it
    dst_region: Region
    dst_offset: int
    #: the region read and the offset of src in it
    src_region: Region
    src_offset: int
    #: bytes copied
    count: int
    #: the devices the copy concerns (what faults match on): its buffers' devices, or the
    #: current device for a host-to-host copy
    devices: tuple[int, ...]
    #: the directed device link (src device, dst device) of a device-to-device copy, else None
    link: tuple[int, int] | None
    #: the device a blocking copy runs on
    device: int
    #: the engine resources the copy occupies, and its fixed latency
    resources: tuple[Resource, ...]
    latency_us: float
    #: staged through host memory by the driver (peer access off, ``peer_off_copy="staged"``)
    staged: bool
    #: bytes the engine moves: count, or for a staged copy count scaled by its two PCIe legs
    nbytes: int
    #: both regions are memoizable and distinct: copy_bytes' "same copy as last time" memo
    #: applies
    memo_able: bool
    #: the kind given did not match the addresses and was ignored (``aclrtMemcpy`` only)
    inferred: bool = False


def shared_resources(
    topo: Topology, link_class: str, s_dev: int, d_dev: int
) -> tuple[Resource, ...]:
    """The shared budgets (``topo.shared``) a copy over link_class from s_dev to d_dev
    crosses: the egress of the source's group, the ingress of the destination's, and
    the both-directions budget of each (once when they are one group).

    Example:
        >>> from ascend_p2p_lab.topology import load_preset
        >>> shared_resources(load_preset("atlas800t-a3"), "HCCS_SW", 0, 2)
        (('shared', 0, 'out', 0), ('shared', 0, 'in', 1), ('shared', 0, 'both', 0), \
('shared', 0, 'both', 1))
    """
    res: list[Resource] = []
    for k, limit in enumerate(topo.shared):
        if link_class not in limit.classes:
            continue
        gs, gd = limit.group_of(s_dev), limit.group_of(d_dev)
        if gs is not None and limit.egress_GBps is not None:
            res.append(("shared", k, "out", gs))
        if gd is not None and limit.ingress_GBps is not None:
            res.append(("shared", k, "in", gd))
        if limit.both_GBps is not None:
            res.extend(("shared", k, "both", g) for g in dict.fromkeys((gs, gd)) if g is not None)
    return tuple(res)


class Router(Part):
    """Resolves copies to :class:`Route` objects and caches the successful ones."""

    def __init__(self, shared: Shared, space: AddressSpace, peers: Peers) -> None:
        super().__init__(shared)
        self.space, self.peers = space, peers
        self._errors = shared.errors
        #: successful routes by (dst, destMax, src, count, kind, current device): those
        #: peer access cannot change (host, device-local), kept while no allocation comes
        #: or goes, and the others (between two devices, through IPC memory)
        self.cache: dict[RouteKey, Route] = {}
        self.linked: dict[RouteKey, Route] = {}
        self._changes = space.changes

    def clear(self) -> None:
        """After a call that may change routes: drop the routes between two devices or
        through IPC memory, and all when an allocation came or went since."""
        self.linked.clear()
        if self.space.changes != self._changes:
            self._changes = self.space.changes
            self.cache.clear()

    def resolve(
        self,
        dst: int,
        dest_max: int,
        src: int,
        count: int,
        kind: int,
        current: int,
        *,
        infer: bool = False,
    ) -> tuple[Route | None, int]:
        """Check a copy and route it: (route, 0) or (None, code). Cached when it succeeds.
        ``infer``: the direction comes from the addresses whatever (valid) kind was given,
        as ``aclrtMemcpy`` does (RT-DOC 11-03: its kind is reserved)."""
        key: tuple = (dst, dest_max, src, count, kind, current)
        route = self.cache.get(key) or self.linked.get(key)
        if route is None and infer:
            route = self.cache.get((*key, True)) or self.linked.get((*key, True))
        if route is not None:
            return route, 0
        route, code = self._resolve(dst, dest_max, src, count, kind, current, infer)
        if route is not None:
            linked = route.link is not None or _ipc(route.src_region, route.dst_region)
            (self.linked if linked else self.cache)[(*key, True) if route.inferred else key] = route
        return route, code

    def resolve_quietly(
        self, dst: int, dest_max: int, src: int, count: int, kind: int, current: int
    ) -> Route | None:
        """:meth:`resolve` (cached when it succeeds) for a caller that only asks whether
        the copy routes: None when it does not, and then no error text is left behind (the
        thread's latest error stays what it was; the call itself reports it)."""
        latest = self._errors._latest
        tid = threading.get_ident()
        before = latest.get(tid)
        route, _ = self.resolve(dst, dest_max, src, count, kind, current)
        if route is None:
            if before is None:
                latest.pop(tid, None)
            else:
                latest[tid] = before
        return route

    def _resolve(
        self,
        dst: int,
        dest_max: int,
        src: int,
        count: int,
        kind: int,
        current: int,
        infer: bool = False,
    ) -> tuple[Route | None, int]:
        if dst == 0 or src == 0:
            return None, self.fail(C.ACL_ERROR_INVALID_PARAM, "dst or src is NULL")
        if count > dest_max:
            return None, self.fail(
                C.ACL_ERROR_RT_PARAM_INVALID, f"count {count} is larger than destMax {dest_max}"
            )
        if kind not in (0, 1, 2, 3, 4):
            return None, self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"memcpy kind {kind} invalid")
        fs, fd = self.space.find(src, count), self.space.find(dst, dest_max)
        if fs is None or fd is None:
            which = "src" if fs is None else "dst"
            return None, self.fail(
                C.ACL_ERROR_RT_PARAM_INVALID, f"{which} range is not inside one allocation"
            )
        (sreg, soff, s_lane), (dreg, doff, d_lane) = unwrap(*fs), unwrap(*fd)
        s_dev, d_dev = sreg.device, dreg.device
        actual = _KIND_OF[(s_dev is not None, d_dev is not None)]
        ipc = _ipc(sreg, dreg)
        inferred = kind != 4 and kind != actual
        if inferred and not (infer and not ipc):
            return None, self.fail(
                C.ACL_ERROR_RT_PARAM_INVALID,
                f"memcpy kind {kind} does not match the addresses (they need kind {actual})",
            )
        if ipc:
            code = _ipc_rules(self, sreg, dreg, kind, actual)
            if code:
                return None, code
        host = self.topology.host
        staged = False
        link = (s_dev, d_dev) if actual == 3 else None
        if actual == 0:
            res, lat, dev = (("h2h",),), 1.0, current
        elif actual == 1:
            res, lat, dev = (("h2d", d_dev),), host.latency_us, d_dev
        elif actual == 2:
            res, lat, dev = (("d2h", s_dev),), host.latency_us, s_dev
        elif s_dev == d_dev:
            res, lat, dev = (("hbm", s_dev),), self.topology.local_latency_us, s_dev
            link = None
        else:
            assert s_dev is not None and d_dev is not None
            peer = ipc and (getattr(sreg, "peer", False) or getattr(dreg, "peer", False))
            lane = s_lane or d_lane
            found, code = self._device_path(s_dev, d_dev, current, peer=peer, shared=ipc)
            if found is not None and lane == DIE_HCCS and self.topology.twin_dies(s_dev, d_dev):
                found = _hccs_lane(self.topology, s_dev, d_dev, found)
            if found is None:
                return None, code
            (res, lat, staged), dev = found, s_dev
        assert dev is not None
        scale = self._staged_scale(link) if staged else 1.0
        return Route(
            dst_region=dreg,
            dst_offset=doff,
            src_region=sreg,
            src_offset=soff,
            count=count,
            devices=tuple(d for d in (s_dev, d_dev) if d is not None) or (current,),
            link=link,
            device=dev,
            resources=res,
            latency_us=lat,
            staged=staged,
            nbytes=int(count * scale),
            memo_able=dreg.memoizable and sreg.memoizable and dreg is not sreg,
            inferred=inferred,
        ), 0

    def _device_path(
        self,
        s_dev: int,
        d_dev: int,
        current: int,
        *,
        peer: bool = False,
        shared: bool = False,
    ) -> tuple[tuple[tuple[Resource, ...], float, bool] | None, int]:
        """How a copy between two devices goes: ((resources, latency, staged), 0) or
        (None, code) when the preset makes it fail. A direct copy issued by the
        destination (the current device: a read) also crosses the link's ``pull``
        resource, any other (a write) its ``push`` resource, where the link class has an
        efficiency below 1 for it (see ``engine_for``)."""
        topo = self.topology
        lc = topo.link_class(s_dev, d_dev)
        direct = (
            lc is not None and lc.p2p and (peer or self.peers.pair_active(s_dev, d_dev, shared))
        )
        mode = topo.peer_off_copy
        if not direct and mode == "direct" and lc is not None and lc.p2p:
            direct = True
        if direct and lc is not None:
            res: tuple[Resource, ...] = (("link", s_dev, d_dev),)
            if lc.switched and topo.port_GBps:
                res += (("egress", s_dev), ("ingress", d_dev))
            res += shared_resources(topo, lc.name, s_dev, d_dev)
            pull = current == d_dev
            if (lc.pull_efficiency if pull else lc.push_efficiency) < 1.0:
                res += (("pull" if pull else "push", s_dev, d_dev),)
            return (res, lc.latency_us, False), 0
        if mode == "error" or lc is None:
            reason = (
                "peer access is not enabled in both directions"
                if lc is not None and lc.p2p
                else f"link {topo.link(s_dev, d_dev)} does not support P2P"
            )
            return None, self.fail(
                topo.peer_off_error, f"device-to-device copy {s_dev}->{d_dev}: {reason}"
            )
        # staged through host memory by the driver
        return ((("d2h", s_dev), ("h2d", d_dev)), 2 * topo.host.latency_us, True), 0

    def _staged_scale(self, link: tuple[int, int] | None) -> float:
        """A driver-staged copy crosses PCIe twice, one leg after the other."""
        assert link is not None
        s_dev, d_dev = link
        d2h, h2d = self.engine.rate(("d2h", s_dev)), self.engine.rate(("h2d", d_dev))
        return (1 / d2h + 1 / h2d) / (1 / min(d2h, h2d))


def _ipc(sreg: Region, dreg: Region) -> bool:
    """Either region is memory imported through IPC."""
    return getattr(sreg, "imported", False) or getattr(dreg, "imported", False)


def _hccs_lane(
    topo: Topology, s_dev: int, d_dev: int, found: tuple[tuple[Resource, ...], float, bool]
) -> tuple[tuple[Resource, ...], float, bool]:
    """A direct copy between twin dies through an HCCS mapping (sim.dielinks) crosses the
    HCCS lane instead of SIO; a staged copy stays staged."""
    if found[2] or topo.die_hccs is None:
        return found
    return (("lane", s_dev, d_dev),), topo.die_hccs.latency_us, False


def _ipc_rules(part: Part, sreg: Region, dreg: Region, kind: int, actual: int) -> int:
    """The guide's rules for a copy through a pointer imported from another device
    (sim/ipc.py): no direction inference, no host copies (0, or the code)."""
    if not (getattr(sreg, "cross_device", False) or getattr(dreg, "cross_device", False)):
        return 0
    if kind == 4:
        return part.fail(
            C.ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            "a copy through an imported pointer cannot infer its direction",
        )
    if actual in (1, 2):
        return part.fail(
            C.ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            "no host-to-device or device-to-host copy through an imported pointer",
        )
    return 0
