"""The A3's two links between the dies of a card, as CANN's runtime offers the choice.

On an Atlas A3 the two dies of a 910C card talk over SIO, and since CANN 9.1 (HDK 26.0)
also over an HCCS lane: ``aclrtMemMapSelectedLink(virPtrDst, size, virPtrSrc, linkIdx)``
maps a virtual range reserved by ``aclrtReserveMemAddress`` to the memory ``virPtrSrc``
names, through the link ``linkIdx`` (``ACL_RT_MEM_LINK_IDX_0``: SIO, the default path of
every other address; ``ACL_RT_MEM_LINK_IDX_1``: HCCS). Copies through the new address
between the twin dies cross the chosen link; ``aclrtUnmapMem`` and
``aclrtReleaseMemAddress`` undo the mapping and the reservation (hicann/shmem
``examples/hccs_sio_link``, ``setup_hccs_mapping`` / ``teardown_hccs_mapping``).

pyACL wraps ``aclrtReserveMemAddress`` (``"kkkK"`` -> ``(va, ret)``),
``aclrtReleaseMemAddress`` and ``aclrtUnmapMem`` (``"k"`` -> ``ret``), but not
``aclrtMemMapSelectedLink``: the simulator offers ``acl.rt.mem_map_selected_link`` with
the C call's arguments in its order (``ret`` only), marked as the simulator's own in
docs/die-links.md, so the runtime layer can ask for it by name and real pyACL lacks it.

Refusals (the C API documents no code for them; [I], docs/die-links.md): a server
without the choice (``topology.die_hccs`` None: A2 and every non-A3 preset) or a mapping
whose memory is not on the twin die of the current device returns
``ACL_ERROR_RT_FEATURE_NOT_SUPPORT`` (207000, what HCCL's source treats as "the driver
does not support the link attribute"); a bad argument (a link index other than 0 or 1,
an address not reserved, a range not inside one device allocation) returns
``ACL_ERROR_INVALID_PARAM`` (100000).

Example:
    >>> from ascend_p2p_lab.sim import simulated_acl
    >>> acl = simulated_acl("atlas800t-a3")
    >>> acl.init(), acl.rt.set_device(1), acl.rt.set_device(0)
    (0, 0, 0)
    >>> far, _ = acl.rt.malloc(1 << 20, 0)  # on die 0, current
    >>> _ = acl.rt.set_device(1)
    >>> va, ret = acl.rt.reserve_mem_address(1 << 20, 0, 0, 0)
    >>> acl.rt.mem_map_selected_link(va, 1 << 20, far, 1)  # die 1 reaches die 0 over HCCS
    0
    >>> acl.rt.mem_map_selected_link(va, 1 << 20, far, 2)  # no such link
    100000
    >>> acl.rt.unmap_mem(va), acl.rt.release_mem_address(va), acl.rt.free(far)
    (0, 0, 0)
    >>> [acl.rt.reset_device(d) for d in (1, 1, 0)], acl.finalize()
    ([0, 0, 0], 0)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import codes as C
from ..topology.model import DIE_LINKS
from .part import Part, Shared, pyacl

if TYPE_CHECKING:
    from ..topology import Topology
    from .allocations import Allocations
    from .devices import Devices

#: ``aclrtMemMapSelectedLink``'s linkIdx -> the die link (ACL_RT_MEM_LINK_IDX_0 / _1)
LINK_IDX = dict(enumerate(DIE_LINKS))
#: GB/s -> bytes per microsecond (the engine's unit)
_GB = 1e3


class LinkedRegion:
    """A reserved virtual range mapped to part of a device allocation through one die link.

    Reads and writes go to the allocation's bytes; the router copies through the
    allocation itself and takes only the link from here (:func:`unwrap`).
    """

    __slots__ = (
        "base",
        "device",
        "die_link",
        "kind",
        "last_copy",
        "mapper",
        "offset",
        "size",
        "target",
    )
    #: a copy through it is never a repeat of the last copy into the allocation
    memoizable = False
    imported = cross_device = False

    def __init__(
        self, base: int, size: int, target: Any, offset: int, die_link: str, mapper: int
    ) -> None:
        self.base, self.size, self.kind, self.device = base, size, "device", target.device
        self.target, self.offset, self.die_link, self.mapper = target, offset, die_link, mapper
        self.last_copy: tuple | None = None

    @property
    def version(self) -> int:
        """The allocation's version (a write through either address changes it)."""
        return self.target.version

    @version.setter
    def version(self, value: int) -> None:
        self.target.version = value

    def read(self, off: int, n: int) -> bytes:
        return self.target.read(self.offset + off, n)

    def write(self, off: int, data: bytes | bytearray | memoryview) -> None:
        self.target.write(self.offset + off, data)

    def fill(self, off: int, n: int, value: int) -> None:
        self.target.fill(self.offset + off, n, value)


def unwrap(region: Any, off: int) -> tuple[Any, int, str | None]:
    """(allocation, offset in it, die link) of a copy's region: a :class:`LinkedRegion`
    gives its allocation and link, any other region itself and None."""
    if region.__class__ is LinkedRegion:
        return region.target, region.offset + off, region.die_link
    return region, off, None


def lane_capacity(topology: Topology) -> dict[Any, float]:
    """The engine capacity of every twin-die HCCS lane, ``("lane", src, dst)``."""
    lane = topology.die_hccs
    if lane is None:
        return {}
    n = topology.device_count
    return {
        ("lane", i, j): lane.bandwidth_GBps * _GB
        for i in range(n)
        for j in range(n)
        if topology.twin_dies(i, j)
    }


class DieLinks(Part):
    """The virtual-address calls of one simulated process and the die-link mappings."""

    def __init__(self, shared: Shared, devices: Devices, memory: Allocations) -> None:
        super().__init__(shared)
        self.devices, self.memory, self.space = devices, memory, memory.space
        self.reserved: dict[int, int] = {}  # reserved base -> size
        self.mapped: dict[int, LinkedRegion] = {}  # reserved base -> its mapping
        memory.drop_hooks.append(self._dropped)

    @pyacl("rt.reserve_mem_address", "kkkK", newer=True)  # rt_memory.cpp: "kkkK" -> "ki"
    def reserve_mem_address(
        self, size: int, alignment: int, expect_ptr: int, flags: int
    ) -> tuple[int, int]:
        """``aclrtReserveMemAddress``: a virtual range of size bytes, mapped to nothing."""
        _, code = self.devices.init_and_current()
        if code:
            return 0, code
        if size <= 0 or alignment < 0 or flags not in (0, 1):
            return 0, self.fail(
                C.ACL_ERROR_INVALID_PARAM,
                f"aclrtReserveMemAddress: size {size} must be positive, flags 0 or 1",
            )
        base = self.space.next_base("reserved", None, size)
        self.reserved[base] = size
        self.injector.host(5.0)
        return base, 0

    # no pyACL wrapper: the simulator's own, aclrtMemMapSelectedLink's (void*, size_t,
    # void*, uint32_t); CANN 9.1, A3
    @pyacl("rt.mem_map_selected_link", "kkkI", newer=True)
    def mem_map_selected_link(self, va_dst: int, size: int, va_src: int, link_idx: int) -> int:
        """``aclrtMemMapSelectedLink``: va_dst (reserved) names va_src's memory, reached from
        the current device through die link link_idx (0: SIO, 1: HCCS)."""
        dev, code = self.devices.init_and_current()
        if code or dev is None:
            return code
        found = self.space.find(va_src, size)
        why = (
            f"link index {link_idx} is not ACL_RT_MEM_LINK_IDX_0 or _1"
            if link_idx not in LINK_IDX
            else "virPtrDst is not a reserved, unmapped address"
            if va_dst not in self.reserved or va_dst in self.mapped
            else f"size {size} is not in (0, the reserved {self.reserved[va_dst]}]"
            if not 0 < size <= self.reserved[va_dst]
            else "virPtrSrc's range is not inside one device allocation"
            if found is None or found[0].kind != "device" or found[0].__class__ is LinkedRegion
            else ""
        )
        if why:
            return self.fail(C.ACL_ERROR_INVALID_PARAM, f"aclrtMemMapSelectedLink: {why}")
        assert found is not None
        target, offset = found
        refused = self._refusal(dev, target.device)
        if refused:
            return self.fail(
                C.ACL_ERROR_RT_FEATURE_NOT_SUPPORT, f"aclrtMemMapSelectedLink: {refused}"
            )
        region = LinkedRegion(va_dst, size, target, offset, LINK_IDX[link_idx], dev)
        self.space.add(region)
        self.mapped[va_dst] = region
        self.injector.host(5.0)
        return 0

    def _refusal(self, dev: int, owner: int) -> str:
        """Why the server or the pair has no choice of die link ("" when it has)."""
        topo = self.topology
        if topo.die_hccs is None:
            return f"server {topo.name} has no second link between the dies of a card (A3 only)"
        if not topo.twin_dies(dev, owner):
            return f"devices {dev} and {owner} are not the two dies of one card"
        return ""

    @pyacl("rt.unmap_mem", "k", newer=True)  # WrapAclRtUnmapMem "k" -> "i"
    def unmap_mem(self, va: int) -> int:
        """``aclrtUnmapMem``: undo a mapping; the range stays reserved."""
        code = self.devices.check_init()
        if code:
            return code
        region = self.mapped.pop(va, None)
        if region is None:
            return self.fail(C.ACL_ERROR_INVALID_PARAM, f"aclrtUnmapMem: {va:#x} is not mapped")
        self.space.remove(va)
        return 0

    @pyacl("rt.release_mem_address", "k", newer=True)  # WrapAclRtReleaseMemAddress "k" -> "i"
    def release_mem_address(self, va: int) -> int:
        """``aclrtReleaseMemAddress``: give back a reserved range (unmapped first)."""
        code = self.devices.check_init()
        if code:
            return code
        if va in self.mapped:
            return self.fail(
                C.ACL_ERROR_RT_PARAM_INVALID, f"aclrtReleaseMemAddress: {va:#x} is still mapped"
            )
        if self.reserved.pop(va, None) is None:
            return self.fail(
                C.ACL_ERROR_INVALID_PARAM, f"aclrtReleaseMemAddress: {va:#x} is not reserved"
            )
        return 0

    def release_all(self, why: str) -> None:
        """aclFinalize: the ranges still reserved (and their mappings) go, implicitly."""
        for va in list(self.mapped):
            self.space.remove(va)
        self.mapped.clear()
        for va in sorted(self.reserved):
            self.released.append(f"reserved range {va:#x} ({why})")
        self.reserved.clear()

    def _dropped(self, base: int, region: Any, why: str) -> None:
        """An allocation was freed: mappings onto it go with it (their ranges stay
        reserved, and to be released), as the driver tears down a mapping whose memory
        is gone."""
        for va, linked in list(self.mapped.items()):
            if linked.target is region:
                del self.mapped[va]
                self.space.remove(va)
