"""Allocations: device and pinned-host buffers, memset, memory info, user pointers.

:class:`Allocations` keeps the books on top of :mod:`.memory`'s address space: which
bases are device allocations and how many bytes each takes from its device (huge pages
come in 2 MiB steps, see :meth:`Allocations.accounted`), which are host allocations, and
the pointers ``acl.util.bytes_to_ptr`` handed out over the caller's own objects.

Example:
    >>> from ascend_p2p_lab.sim import simulated_acl
    >>> acl = simulated_acl("atlas800t-a2")
    >>> acl.init(), acl.rt.set_device(0)
    (0, 0)
    >>> ptr, ret = acl.rt.malloc(4096, 0)
    >>> free, total, ret = acl.rt.get_mem_info(1)
    >>> total - free  # a small HUGE_FIRST allocation takes normal pages: 4 KiB
    4096
    >>> acl.rt.free(ptr), acl.rt.reset_device(0), acl.finalize()
    (0, 0, 0)
"""

from __future__ import annotations

from .. import codes as C
from .devices import Devices
from .memory import AddressSpace, ChunkedRegion, ViewRegion
from .part import Part, Shared, pyacl
from .streams import Streams

SMALL_PAGE, HUGE_PAGE = 4096, 2 << 20
#: Pointers from bytes_to_ptr kept at most (the oldest is forgotten first).
MAX_VIEWS = 256


class Allocations(Part):
    """The address space's books, and the memory calls."""

    def __init__(self, shared: Shared, devices: Devices, streams: Streams) -> None:
        super().__init__(shared)
        self.devices, self.streams = devices, streams
        self.space = AddressSpace()
        self.device_allocs: dict[int, int] = {}  # base -> accounted bytes
        self.host_allocs: set[int] = set()
        self.used: dict[int, int] = {}
        self.views: dict[int, ViewRegion] = {}
        self.pages: dict[int, int] = {}  # base -> page size of the allocation
        self.dvpp: set[int] = set()  # bases from acl.media.dvpp_malloc (the DVPP pool)
        #: called as hook(base, region, why) when a device allocation goes (free or reset)
        self.drop_hooks: list = []

    # ------------------------------------------------------------------ device memory
    @pyacl("rt.malloc", "ki")
    def malloc(self, size: int, policy: int) -> tuple[int, int]:
        dev, code = self.devices.init_and_current()
        if code or dev is None:
            return 0, code
        if size <= 0:
            return 0, self.fail(C.ACL_ERROR_INVALID_PARAM, f"size {size} must be positive")
        code = self.injector.fault("rt.malloc", (dev,))
        if code:
            return 0, code
        accounted = self.accounted(size, policy)
        capacity = self.topology.memory_bytes
        if self.injector.memory_exhausted(dev) or self.used.get(dev, 0) + accounted > capacity:
            free = capacity - self.used.get(dev, 0)
            return 0, self.fail(
                C.ACL_ERROR_RT_MEMORY_ALLOCATION,
                f"out of device memory on device {dev}: asked {size} bytes, {free} free",
            )
        region = ChunkedRegion(self.space.next_base("device", dev, size), size, "device", dev)
        self.space.add(region)
        self.device_allocs[region.base] = accounted
        self.pages[region.base] = HUGE_PAGE if self.huge(size, policy) else SMALL_PAGE
        self.used[dev] = self.used.get(dev, 0) + accounted
        self.injector.host(5.0)
        return region.base, 0

    @staticmethod
    def huge(size: int, policy: int) -> bool:
        """Whether an allocation takes huge pages (pyacl-api.md section 2): HUGE_FIRST(_P2P)
        takes normal pages for 1 MiB or less; HUGE_ONLY(_P2P) always huge; NORMAL_ONLY(_P2P)
        never; an unknown policy is huge from 2 MiB up."""
        if policy in (1, 4, 6, 7):
            return True
        if policy in (0, 3):
            return size > (1 << 20)
        if policy in (2, 5):
            return False
        return size >= HUGE_PAGE

    @classmethod
    def accounted(cls, size: int, policy: int) -> int:
        """Device memory an allocation takes: huge pages come in 2 MiB steps."""
        step = HUGE_PAGE
        return -(-size // step) * step if cls.huge(size, policy) else size

    def page_size(self, base: int) -> int:
        """The page size of the device allocation at base (4 KiB, or 2 MiB when huge)."""
        return self.pages.get(base, SMALL_PAGE)

    @pyacl("media.dvpp_malloc", "k")  # media_common.cpp: WrapAclDvppMalloc "k" -> "ki"
    def dvpp_malloc(self, size: int) -> tuple[int, int]:
        """``acl.media.dvpp_malloc(size)``: device memory of the current device from its
        DVPP pool (what media processing reads and writes; copies treat it as any device
        memory). Counted in the device's memory like a normal-page allocation [I]."""
        ptr, code = self.malloc(size, 2)
        if not code:
            self.dvpp.add(ptr)
        return ptr, code

    @pyacl("media.dvpp_free", "k")  # WrapAclDvppFree "k" -> "i"
    def dvpp_free(self, ptr: int) -> int:
        """``acl.media.dvpp_free(ptr)``: frees DVPP memory; any other pointer -> 107000 [I]."""
        code = self.devices.check_init()
        if code:
            return code
        if ptr not in self.dvpp:
            return self.fail(
                C.ACL_ERROR_RT_PARAM_INVALID,
                f"0x{ptr:x} is not DVPP memory (acl.media.dvpp_malloc)",
            )
        return self.free(ptr)

    def _drop_device_alloc(self, base: int, why: str = "aclrtFree") -> None:
        self.dvpp.discard(base)
        region = self.space.remove(base)
        accounted = self.device_allocs.pop(base)
        self.pages.pop(base, None)
        if region is not None and region.device is not None:
            self.used[region.device] -= accounted
        for hook in self.drop_hooks:
            hook(base, region, why)

    @pyacl("rt.free", "k")
    def free(self, ptr: int) -> int:
        code = self.devices.check_init()
        if code:
            return code
        if ptr not in self.device_allocs:
            return self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"0x{ptr:x} is not a device allocation")
        region = self.space.get(ptr)
        devices = (region.device,) if region and region.device is not None else ()
        code = self.injector.fault("rt.free", devices)
        if code:
            return code
        self._drop_device_alloc(ptr)
        self.injector.host(5.0)
        return 0

    def release_device(self, dev: int, why: str) -> None:
        """Free dev's buffers (its last reference went)."""
        for base in list(self.device_allocs):
            region = self.space.get(base)
            if region is not None and region.device == dev:
                self.released.append(f"device buffer 0x{base:x} freed by {why}")
                self._drop_device_alloc(base, why)

    @pyacl("rt.get_mem_info", "i", keeps_plans=True)
    def get_mem_info(self, attr: int) -> tuple[int, int, int]:
        dev, code = self.devices.init_and_current()
        if code or dev is None:
            return 0, 0, code
        code = self.injector.fault("rt.get_mem_info", (dev,))
        if code:
            return 0, 0, code
        if attr not in C.HBM_ATTRS:
            return 0, 0, 0  # unsupported attribute: free = total = 0
        total = self.topology.memory_bytes
        return total - self.used.get(dev, 0), total, 0

    # ------------------------------------------------------------------ host memory
    @pyacl("rt.malloc_host", "k")
    def malloc_host(self, size: int) -> tuple[int, int]:
        code = self.devices.check_init()
        if code:
            return 0, code
        if size <= 0:
            return 0, self.fail(C.ACL_ERROR_INVALID_PARAM, f"size {size} must be positive")
        code = self.injector.fault("rt.malloc_host")
        if code:
            return 0, code
        region = ChunkedRegion(self.space.next_base("host", None, size), size, "host", None)
        self.space.add(region)
        self.host_allocs.add(region.base)
        self.injector.host(10.0)
        return region.base, 0

    @pyacl("rt.free_host", "k")
    def free_host(self, ptr: int) -> int:
        code = self.devices.check_init()
        if code:
            return code
        if ptr not in self.host_allocs:
            return self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"0x{ptr:x} is not a host allocation")
        code = self.injector.fault("rt.free_host")
        if code:
            return code
        self.host_allocs.discard(ptr)
        self.space.remove(ptr)
        self.injector.host(5.0)
        return 0

    def release_host_buffers(self, why: str) -> None:
        """Free every host buffer (aclFinalize)."""
        for base in list(self.host_allocs):
            self.released.append(f"host buffer 0x{base:x} freed by {why}")
            self.space.remove(base)
        self.host_allocs.clear()

    # ------------------------------------------------------------------ memset
    @pyacl("rt.memset", "kkik", keeps_plans=True)
    def memset(self, ptr: int, max_count: int, value: int, count: int) -> int:
        return self._memset("rt.memset", ptr, max_count, value, count, None)

    @pyacl("rt.memset_async", "kkikk")  # WrapAclRtMemsetAsync
    def memset_async(self, ptr: int, max_count: int, value: int, count: int, stream: int) -> int:
        """``acl.rt.memset_async``: what ``memset`` checks, on a stream of the current
        context; the bytes are set when the call is made, the device time queued on the
        stream (as ``memcpy_async`` moves its bytes). The order of the checks is the
        runtime's: count 0 -> 0 before anything, a null pointer -> 100000, count above
        maxCount -> 107000 (``MemsetAsync``: api_error.cc)."""
        return self._memset("rt.memset_async", ptr, max_count, value, count, stream)

    def _memset(
        self, call: str, ptr: int, max_count: int, value: int, count: int, stream: int | None
    ) -> int:
        """memset (``stream`` None: the host waits) or memset_async (queued on ``stream``)."""
        if count == 0:  # aclrtMemsetImpl: before any other check (memory.cpp)
            return 0
        dev, code = self.devices.init_and_current()
        if code or dev is None:
            return code
        if ptr == 0:
            return self.fail(C.ACL_ERROR_INVALID_PARAM, "devPtr is a null pointer")
        if count > max_count:
            return self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"count {count} > maxCount {max_count}")
        s = None
        if stream is not None:
            s, code = self.streams.stream_of(stream, dev)
            if code or s is None:
                return code
        found = self.space.find(ptr, count)
        if found is None:
            return self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"0x{ptr:x}+{count} is not allocated")
        region, off = found
        target = region.device if region.device is not None else dev
        code = self.injector.fault(call, (target,))
        if code:
            return code
        region.fill(off, count, value)
        host, latency = self.topology.host, self.topology.local_latency_us
        self.injector.host(host.api_us)
        resources = (("hbm", target),) if region.kind == "device" else (("h2h",),)
        if s is not None:
            self.engine.append_copy(s, count, resources, latency)
            return 0
        self.engine.run_blocking_copy(target, count, resources, latency)
        self.injector.host(host.sync_return_us)
        return 0

    @pyacl("util.bytes_to_ptr", "y*")
    @pyacl("util.numpy_to_ptr", "y*", labels={"": "bytes_to_ptr"})
    def bytes_to_ptr(self, obj: object) -> int:
        """``acl.util.bytes_to_ptr``: a pointer into a bytes-like object (it must outlive it)."""
        nbytes = memoryview(obj).nbytes  # type: ignore[arg-type]
        region = ViewRegion(self.space.next_base("view", None, nbytes), obj)
        self.space.add(region)
        self.views[region.base] = region
        if len(self.views) > MAX_VIEWS:  # forget the oldest: pointers are only valid briefly
            oldest = next(iter(self.views))
            self.space.remove(oldest)
            del self.views[oldest]
        return region.base

    @pyacl("util.ptr_to_bytes", "kk", keeps_plans=True)
    def ptr_to_bytes(self, ptr: int, size: int) -> bytes:
        """``acl.util.ptr_to_bytes``: a copy of size bytes at ptr."""
        found = self.space.find(ptr, size)
        if found is None or found[0].kind == "device":
            raise ValueError(f"0x{ptr:x}+{size} is not readable host memory")
        region, off = found
        return region.read(off, size)

    def resident_bytes(self) -> int:
        """Host RAM spent on simulated memory contents."""
        return sum(r.resident_bytes for r in self.space.regions() if isinstance(r, ChunkedRegion))
