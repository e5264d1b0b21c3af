"""IPC memory: a device buffer exported to other processes, and one imported from another.

The part of :class:`~.runtime.Runtime` that names the IPC calls (a mixin, like
:mod:`.transfers`). What it makes are resources the runtime tracks and releases in the
guide's order: an :class:`~.resources.ImportedBuffer` (closed by its importer) and an
:class:`~.resources.IpcExport` (closed by its exporter, after its importers, and before
the buffer it exports is freed: it is made after the buffer, and the runtime releases in
reverse order). Older CANN releases lack the calls: ask ``rt.lacks(["ipc_memory"])``
first, or get :class:`~.errors.MissingCall`.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim") as rt, rt.device_buffer(0, 1 << 20) as buf:
    ...     exp = rt.export_buffer(buf, whitelist=False)
    ...     len(exp.key) > 0, rt.bare_pid() > 0
    ...     exp.close()
    (True, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..codes import IPC_KEY_LEN, IpcExportFlag, IpcImportFlag
from .resources import DeviceBuffer, ImportedBuffer, IpcExport


class IpcCalls:
    """Export, whitelist, import, close (mixed into Runtime)."""

    use: Any
    call: Any

    def bare_pid(self) -> int:
        """This process's id as the driver knows it (``aclrtDeviceGetBareTgid``): what an
        exporter puts on its whitelist."""
        return int(self.call("rt.device_get_bare_tgid"))

    def export_buffer(
        self, buf: DeviceBuffer, *, whitelist: bool = True, size: int | None = None
    ) -> IpcExport:
        """Export buf (``aclrtIpcMemGetExportKey``); with ``whitelist`` only the pids given
        to :meth:`IpcExport.allow` may import it, else anyone (flag 0x1)."""
        assert buf.device is not None
        self.use(buf.device)
        flags = IpcExportFlag.DEFAULT if whitelist else IpcExportFlag.DISABLE_PID_VALIDATION
        n = buf.size if size is None else size
        key = self.call("rt.ipc_mem_get_export_key", buf.ptr, n, IPC_KEY_LEN, int(flags))
        return IpcExport(self, str(key), buf)  # type: ignore[arg-type]

    def allow(self, export: IpcExport, pids: Iterable[int]) -> None:
        """Put pids on export's whitelist (``aclrtIpcMemSetImportPid``)."""
        self.call("rt.ipc_mem_set_import_pid", export.key, [int(p) for p in pids])

    def import_key(
        self, key: str, *, on: int, device: int, size: int, peer: bool = True
    ) -> ImportedBuffer:
        """Import another process's buffer of ``device`` (``aclrtIpcMemImportByKey``) with
        device ``on`` current; ``peer`` asks the import to enable peer access (flag 0x1),
        else the caller must have enabled it."""
        self.use(on)
        flags = IpcImportFlag.ENABLE_PEER_ACCESS if peer else IpcImportFlag.DEFAULT
        ptr = self.call("rt.ipc_mem_import_by_key", key, int(flags))
        return ImportedBuffer(self, int(ptr), size, device, key, on)  # type: ignore[arg-type]
