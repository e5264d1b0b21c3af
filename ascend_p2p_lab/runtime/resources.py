"""Owned device resources: buffers, streams, events, peer links. Each is a context manager.

They are made by a :class:`~ascend_p2p_lab.runtime.Runtime` (``rt.device_buffer(...)``,
``rt.stream(...)``, ...), which also frees whatever is still open when it closes.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim") as rt, rt.device_buffer(0, 4096) as buf:
    ...     buf.device, buf.size
    (0, 4096)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .runtime import Runtime


def close_all(resources: Iterable[Any]) -> None:
    """Close every resource (anything with ``close()``; None is skipped), also when some
    fail or a KeyboardInterrupt arrives.

    Failures are retried once (a release that failed leaves its resource open); then the
    KeyboardInterrupt, if there was one, or else the first error that remains is raised.
    """
    pending = [r for r in resources if r is not None]
    interrupt: BaseException | None = None
    error: BaseException | None = None
    for attempt in range(2):
        failed: list[Any] = []
        for res in pending:
            try:
                res.close()
            except KeyboardInterrupt as exc:
                interrupt = interrupt or exc
                failed.append(res)
            except Exception as exc:
                if attempt == 1:
                    error = error or exc
                failed.append(res)
        pending = failed
        if not pending:
            break
    if interrupt is not None:
        raise interrupt
    if error is not None:
        raise error


class Resource:
    """Something a runtime must release: closed once, by its owner or by the runtime."""

    kind = "resource"
    #: the pyACL call that releases it (on its device, if it has one)
    release_call = ""

    def __init__(self, rt: Runtime, handle: int, device: int | None) -> None:
        self.rt, self.handle, self.device = rt, handle, device
        self.closed = False
        rt._track(self)

    def _release(self) -> None:
        if self.device is not None:
            self.rt.try_use(self.device)
        self.rt.call(self.release_call, self.handle)

    def close(self) -> None:
        """Release now (idempotent). A release that fails (or is interrupted) leaves the
        resource open and tracked, so that a retry, or the runtime's close, frees it."""
        if self.closed:
            return
        self._release()
        self.closed = True
        self.rt._untrack(self)

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<{type(self).__name__} {self.handle:#x} device={self.device} {state}>"


class DeviceBuffer(Resource):
    """Device memory from ``aclrtMalloc``; ``ptr`` is the device address."""

    kind = "device buffer"
    release_call = "rt.free"

    def __init__(self, rt: Runtime, ptr: int, size: int, device: int, policy: int) -> None:
        self.size, self.policy = size, policy
        self.exports: list[IpcExport] = []  # keys other processes may import it by
        super().__init__(rt, ptr, device)

    @property
    def ptr(self) -> int:
        return self.handle

    def _release(self) -> None:
        for export in self.exports:  # the exporter closes its keys before it frees
            export.close()
        super()._release()


class IpcExport(Resource):
    """A device buffer exported to other processes (``aclrtIpcMemGetExportKey``); closing
    it is the exporter's ``aclrtIpcMemClose``, which must come after every importer's
    close and before the buffer is freed."""

    kind = "ipc export"

    def __init__(self, rt: Runtime, key: str, buf: DeviceBuffer) -> None:
        self.key, self.buffer = key, buf
        super().__init__(rt, buf.ptr, buf.device)
        buf.exports.append(self)

    def allow(self, pids: list[int]) -> None:
        """Whitelist pids (``aclrtIpcMemSetImportPid``)."""
        self.rt.allow(self, pids)  # type: ignore[attr-defined]

    def _release(self) -> None:
        self.rt.call("rt.ipc_mem_close", self.key)


class ImportedBuffer(DeviceBuffer):
    """Another process's device buffer, imported (``aclrtIpcMemImportByKey``): copy to and
    from it like a device buffer of ``device`` (the exporter's), from device ``on``;
    closing it is the importer's ``aclrtIpcMemClose`` (never ``aclrtFree``)."""

    kind = "imported buffer"

    def __init__(self, rt: Runtime, ptr: int, size: int, device: int, key: str, on: int) -> None:
        self.key, self.on = key, on
        super().__init__(rt, ptr, size, device, -1)

    def _release(self) -> None:
        self.rt.try_use(self.on)
        self.rt.call("rt.ipc_mem_close", self.key)


class HostBuffer(Resource):
    """Pinned host memory from ``aclrtMallocHost``."""

    kind = "host buffer"
    release_call = "rt.free_host"

    def __init__(self, rt: Runtime, ptr: int, size: int) -> None:
        self.size = size
        super().__init__(rt, ptr, None)

    @property
    def ptr(self) -> int:
        return self.handle


class Stream(Resource):
    """A stream of one device; copies enqueued on it run in order."""

    kind = "stream"
    release_call = "rt.destroy_stream"

    def synchronize(self) -> None:
        """Block until everything enqueued so far has finished."""
        self.rt._call_ret("synchronize_stream", self.handle)


class Event(Resource):
    """An event of one device; record it on a stream of that device to take a timestamp."""

    kind = "event"
    release_call = "rt.destroy_event"

    def record(self, stream: Stream) -> None:
        rt, dev = self.rt, stream.device
        assert dev is not None
        if getattr(rt._tls, "current", None) != dev:  # use(), its first test inlined
            rt.use(dev)
        rt._call_ret("record_event", self.handle, stream.handle)

    def synchronize(self) -> None:
        self.rt._call_ret("synchronize_event", self.handle)


class PeerLinks(Resource):
    """Peer access enabled on a set of directed pairs; closing disables exactly those."""

    kind = "peer links"

    def __init__(self, rt: Runtime, pairs: list[tuple[int, int]]) -> None:
        self.pairs: list[tuple[int, int]] = []
        super().__init__(rt, id(self), None)
        try:
            for src, dst in pairs:
                rt.enable_peer(src, dst)
                self.pairs.append((src, dst))
        except BaseException:
            self.close()
            raise

    def _release(self) -> None:
        first: BaseException | None = None
        failed: list[tuple[int, int]] = []
        for src, dst in reversed(self.pairs):
            try:
                self.rt.disable_peer(src, dst)
            except BaseException as exc:  # keep disabling the others (also on Ctrl-C)
                failed.insert(0, (src, dst))
                if first is None or (
                    isinstance(exc, KeyboardInterrupt) and not isinstance(first, KeyboardInterrupt)
                ):
                    first = exc
        self.pairs = failed  # what a retry still has to disable
        if first is not None:
            raise first

    def __repr__(self) -> str:
        pairs = ", ".join(f"{a}->{b}" for a, b in self.pairs)
        return f"<PeerLinks [{pairs}] {'closed' if self.closed else 'open'}>"
