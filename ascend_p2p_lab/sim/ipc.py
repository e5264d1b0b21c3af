"""IPC memory across processes: export a device buffer, whitelist importers, import, close.

pyACL's calls (``rt_memory.cpp``; see docs/reference/pyacl-api.md, section IPC):

- ``key, ret = acl.rt.ipc_mem_get_export_key(dev_ptr, size, key_len, flags)``;
- ``ret = acl.rt.ipc_mem_set_import_pid(key, [pid, ...])``;
- ``dev_ptr, ret = acl.rt.ipc_mem_import_by_key(key, flags)``;
- ``ret = acl.rt.ipc_mem_close(key)``;
- ``pid, ret = acl.rt.device_get_bare_tgid()``.

The processes share :mod:`.ipcstate`'s registry and buffer files. Exporting turns the
exporter's allocation into a :class:`SharedRegion` over a memory-mapped file (at the same
address); importing maps the same file into the importer's address space as a region of
the exporter's device, so a copy through the imported pointer reads and writes the
exporter's bytes, and is routed and timed by the importer's engine exactly as an
in-process copy between the two devices. Each process keeps its own virtual clock: copies
issued by different processes do not contend for a link (not modelled).

Rules and codes ([I] = inferred, see the reference notes):

- export: the address must start a page of its allocation (4 KiB pages, 2 MiB for huge
  pages) -> else 107008 ACL_ERROR_RT_ADDR_UNALIGNED [I code]; not a device allocation of
  this process, or a range past its end -> 107000; ``key_len`` below the key -> 107000 [I];
  ``key_len >= 1024`` -> ValueError (pyACL's own check);
- set_import_pid: only by the exporter, on an open key -> else 107000 [I];
- import: unknown or closed key -> 107000 [I]; a whitelisted key (export flags 0) and a pid
  not on the list -> 507899 ACL_ERROR_RT_DRV_INTERNAL_ERROR [I]; a process in a container
  without ``--pid=host`` (``ASCEND_P2P_LAB_SIM_PID_HOST=0``) -> 507899 (FlagPerf's
  observation); the exporter importing its own key -> 107000 [I];
- close: an importer closes its import; the exporter may close only once every importer
  has -> else 507022 ACL_ERROR_RT_IPC_ERROR [I code: the guide says "may cause an
  exception"]; a key this process neither exported nor imported -> 107000 [I];
- copies through an imported pointer of another device: kind ACL_MEMCPY_DEFAULT (no
  direction inference), host-to-device or device-to-host, or a synchronous copy within one
  device -> 207000 ACL_ERROR_RT_FEATURE_NOT_SUPPORT [I code; the rules are the guide's].

Example:
    >>> from ascend_p2p_lab.sim import simulated_acl
    >>> acl = simulated_acl("atlas800t-a2")
    >>> acl.init(), acl.rt.set_device(0)
    (0, 0)
    >>> ptr, _ = acl.rt.malloc(4 << 20, 3)
    >>> key, ret = acl.rt.ipc_mem_get_export_key(ptr + 4096, 4096, 65, 0)
    >>> ret
    107008
    >>> key, ret = acl.rt.ipc_mem_get_export_key(ptr, 4 << 20, 65, 1)
    >>> ret, len(key)
    (0, 40)
    >>> acl.rt.ipc_mem_close(key), acl.rt.free(ptr), acl.rt.reset_device(0), acl.finalize()
    (0, 0, 0, 0)
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from .. import codes as C
from .allocations import Allocations
from .devices import Devices
from .ipcstate import Registry, SharedBuffer, ensure_env
from .memory import ChunkedRegion
from .part import Part, Shared, pyacl
from .peers import Peers

#: Characters of a simulated key (the guide fixes the key buffer at 65).
KEY_CHARS = 40
#: Export flag: no whitelist needed. Import flag: peer access enabled by the import.
EXPORT_DISABLE_PID_VALIDATION = 0x1
IMPORT_ENABLE_PEER_ACCESS = 0x1
#: pyACL refuses key buffers of this length or more (ValueError, before the runtime).
MAX_KEY_LEN = 1024
#: "0" says the process runs in a container without --pid=host (the import then fails).
ENV_PID_HOST = "ASCEND_P2P_LAB_SIM_PID_HOST"
_CALL_US = 20.0  # host time of one IPC call (a driver round trip): a guess, not timed


class SharedRegion:
    """Device memory backed by a shared buffer file (an exported or an imported region)."""

    __slots__ = (
        "base",
        "buffer",
        "device",
        "imported",
        "importer_device",
        "kind",
        "last_copy",
        "offset",
        "peer",
        "size",
    )
    #: its version lives in the shared file: a write by any process changes it
    memoizable = True

    def __init__(
        self,
        base: int,
        size: int,
        device: int,
        buffer: SharedBuffer,
        offset: int,
        *,
        imported: bool = False,
        importer_device: int | None = None,
        peer: bool = False,
    ) -> None:
        self.base, self.size, self.device, self.kind = base, size, device, "device"
        self.buffer, self.offset = buffer, offset
        self.imported, self.importer_device, self.peer = imported, importer_device, peer
        self.last_copy: tuple | None = None

    @property
    def version(self) -> int:
        """The shared buffer's version (any process's write changes it)."""
        return self.buffer.version

    @version.setter
    def version(self, _value: int) -> None:  # "+= 1" of copy_bytes: a new unique version
        self.buffer.bump()

    def read(self, off: int, n: int) -> bytes:
        start = self.offset + off
        return bytes(self.buffer.view[start : start + n])

    def write(self, off: int, data: bytes | bytearray | memoryview) -> None:
        start = self.offset + off
        self.buffer.view[start : start + len(data)] = memoryview(data).cast("B")
        self.buffer.bump()

    def fill(self, off: int, n: int, value: int) -> None:
        start = self.offset + off
        self.buffer.view[start : start + n] = bytes((value & 0xFF,)) * n
        self.buffer.bump()

    @property
    def cross_device(self) -> bool:
        """Imported from another device: the guide's copy restrictions apply."""
        return self.imported and self.importer_device != self.device


class Ipc(Part):
    """The IPC calls of one simulated process over the shared registry."""

    def __init__(
        self, shared: Shared, devices: Devices, memory: Allocations, peers: Peers | None = None
    ) -> None:
        super().__init__(shared)
        self.devices, self.memory, self.peers = devices, memory, peers
        self.owner = f"{os.getpid()}:{secrets.token_hex(4)}"  # this simulated process
        self.folder = Path(ensure_env())
        self._registry: Registry | None = None
        self.exported: dict[str, int] = {}  # key -> base of the exporter's allocation
        self.imported: dict[str, int] = {}  # key -> base of the imported region
        self.buffers: dict[int, SharedBuffer] = {}  # allocation base -> its shared file
        memory.drop_hooks.append(self._dropped)

    def _join(self) -> None:
        """Share this process's peer access with the driver's server-wide view (from its
        first export or import on; see :mod:`.peers`)."""
        peers = self.peers
        if peers is None or peers.publish is not None:
            return
        reg, pid, owner = self.registry, os.getpid(), self.owner
        peers.publish = lambda refs: reg.set_peer_refs(pid, owner, refs)
        peers.others = lambda: reg.peer_directions(owner)
        peers.publish(dict(peers.refs))

    @property
    def registry(self) -> Registry:
        if self._registry is None:
            self._registry = Registry(str(self.folder))
        return self._registry

    # ------------------------------------------------------------------ export
    # rt_memory.cpp: WrapAclRtIpcMemGetExportKey ... (pyACL has them from CANN 8.3.RC1.alpha002)
    @pyacl("rt.ipc_mem_get_export_key", "kkkK", newer=True)
    def ipc_mem_get_export_key(
        self, ptr: int, size: int, key_len: int, flags: int
    ) -> tuple[str, int]:
        if key_len >= MAX_KEY_LEN:
            raise ValueError("key len should be less than 1024")
        dev, code = self.devices.init_and_current()
        if code or dev is None:
            return "", code
        found = self.memory.space.find(ptr, size)
        if (
            found is None
            or found[0].base not in self.memory.device_allocs
            or getattr(found[0], "imported", False)
        ):
            return "", self.fail(
                C.ACL_ERROR_RT_PARAM_INVALID,
                f"0x{ptr:x}+{size} is not a device allocation of this process",
            )
        region, off = found
        page = self.memory.page_size(region.base)
        if size <= 0 or off % page:
            return "", self.fail(
                C.ACL_ERROR_RT_ADDR_UNALIGNED, f"0x{ptr:x} is not aligned to its {page}-byte pages"
            )
        if key_len < KEY_CHARS + 1:
            return "", self.fail(
                C.ACL_ERROR_RT_PARAM_INVALID, f"key len {key_len} < {KEY_CHARS + 1}"
            )
        code = self.injector.fault("rt.ipc_mem_get_export_key", (region.device,))
        if code:
            return "", code
        shared = self._share(region)
        key = "ascsim" + secrets.token_hex((KEY_CHARS - 6) // 2)
        self.registry.add_export(
            key,
            pid=os.getpid(),
            device=shared.device,
            size=size,
            path=shared.buffer.name,
            offset=off,
            flags=flags,
        )
        self.exported[key] = shared.base
        self._join()
        self.injector.host(_CALL_US)
        return key, 0

    def _share(self, region: object) -> SharedRegion:
        """The allocation as a SharedRegion (its bytes moved into a shared file once)."""
        if isinstance(region, SharedRegion):
            return region
        assert isinstance(region, ChunkedRegion) and region.device is not None
        buf = SharedBuffer(
            self.folder,
            f"buf_{os.getpid()}_{region.base:x}_{secrets.token_hex(3)}",
            region.size,
            create=True,
        )
        pos = 0
        while pos < region.size:  # untouched zero chunks stay holes in the file
            n = min(1 << 20, region.size - pos)
            entry = region.chunks.get(pos >> 20, 0)
            if entry != 0:
                buf.view[pos : pos + n] = region.read(pos, n)
            pos += n
        shared = SharedRegion(region.base, region.size, region.device, buf, 0)
        self.memory.space.remove(region.base)
        self.memory.space.add(shared)
        self.buffers[region.base] = buf
        return shared

    @pyacl("rt.ipc_mem_set_import_pid", "sO", newer=True)
    def ipc_mem_set_import_pid(self, key: str, pids: object) -> int:
        if not isinstance(pids, list):
            raise ValueError("argument 2 only support the format of list")
        if not all(isinstance(p, int) for p in pids):
            raise ValueError("get values from PyList failed")
        code = self.devices.check_init()
        if code:
            return code
        row = self.registry.export_row(key)
        if key not in self.exported or row is None or row["closed"]:
            return self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"key {key!r} is not exported here")
        self.registry.add_whitelist(key, [int(p) for p in pids])
        self.injector.host(_CALL_US)
        return 0

    # ------------------------------------------------------------------ import
    @pyacl("rt.ipc_mem_import_by_key", "sK", newer=True)
    def ipc_mem_import_by_key(self, key: str, flags: int) -> tuple[int, int]:
        cur, code = self.devices.init_and_current()
        if code or cur is None:
            return 0, code
        if flags > IMPORT_ENABLE_PEER_ACCESS:  # ApiErrorDecorator::IpcOpenMemory
            return 0, self.fail(
                C.ACL_ERROR_RT_PARAM_INVALID, f"import flags {flags} out of range [0, 1]"
            )
        reg = self.registry
        reg.prune()
        row = reg.export_row(key)
        if row is None or row["closed"] or key in self.exported:
            return 0, self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"no open export {key!r}")
        if os.environ.get(ENV_PID_HOST) == "0":
            return 0, self.fail(
                C.ACL_ERROR_RT_DRV_INTERNAL_ERROR,
                "the driver cannot see this process (a container without --pid=host)",
            )
        checked = not row["flags"] & EXPORT_DISABLE_PID_VALIDATION
        if checked and os.getpid() not in reg.whitelist(key):
            return 0, self.fail(
                C.ACL_ERROR_RT_DRV_INTERNAL_ERROR,
                f"pid {os.getpid()} is not on the whitelist of {key!r}",
            )
        code = self.injector.fault("rt.ipc_mem_import_by_key", (row["device"], cur))
        if code:
            return 0, code
        buf = SharedBuffer(self.folder, row["path"], row["offset"] + row["size"], create=False)
        base = self.memory.space.next_base("device", row["device"], row["size"])
        region = SharedRegion(
            base,
            row["size"],
            row["device"],
            buf,
            row["offset"],
            imported=True,
            importer_device=cur,
            peer=bool(flags & IMPORT_ENABLE_PEER_ACCESS),
        )
        self.memory.space.add(region)
        reg.add_import(key, os.getpid())
        self.imported[key] = base
        self._join()
        self.injector.host(_CALL_US)
        return base, 0

    # ------------------------------------------------------------------ close
    @pyacl("rt.ipc_mem_close", "s", newer=True)
    def ipc_mem_close(self, key: str) -> int:
        code = self.devices.check_init()
        if code:
            return code
        reg = self.registry
        if key in self.imported:
            self._close_import(key)
            self.injector.host(_CALL_US)
            return 0
        if key not in self.exported:
            return self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"key {key!r} is not open here")
        reg.prune()
        still = reg.importers(key)
        if still:
            return self.fail(
                C.ACL_ERROR_RT_IPC_ERROR,
                f"key {key!r} is still imported by pid {sorted(set(still))}; importers close first",
            )
        reg.close_export(key)
        del self.exported[key]
        self.injector.host(_CALL_US)
        return 0

    def _close_import(self, key: str) -> None:
        region = self.memory.space.remove(self.imported.pop(key))
        if isinstance(region, SharedRegion):
            region.buffer.close()
        self.registry.drop_import(key, os.getpid())

    @pyacl("rt.device_get_bare_tgid", "", newer=True)  # rt_device.cpp
    def device_get_bare_tgid(self) -> tuple[int, int]:
        code = self.devices.check_init()
        if code:
            return 0, code
        return os.getpid(), 0

    # ------------------------------------------------------------------ teardown
    def _dropped(self, base: int, region: object, why: str) -> None:
        """An allocation was freed (aclrtFree, or a device reset): its exports go."""
        buf = self.buffers.pop(base, None)
        if buf is None:
            return
        for key in [k for k, b in self.exported.items() if b == base]:
            del self.exported[key]
            self.released.append(f"ipc export {key} closed by {why}")
        buf.close()
        self.registry.delete_buffer(buf.name)

    def release_all(self, why: str) -> None:
        """aclFinalize: imports still open are closed (exports go with their buffers)."""
        for key in list(self.imported):
            self.released.append(f"ipc import {key} closed by {why}")
            self._close_import(key)
