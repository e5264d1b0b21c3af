"""The buffers of a sweep: per-device send buffers holding a seeded byte block, receive
buffers cleared before each point and checked after it, and pinned host memory.

Nothing here times anything (:mod:`.execute` does) or knows about tests or DataFrames.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim") as rt, BufferPool(rt, max_size=1 << 20) as pool:
    ...     src, dst = pool.send(0), pool.recv(1)
    ...     with rt.peer_links([(0, 1), (1, 0)]):
    ...         rt.memcpy(dst, src, 1 << 20, on=1)
    ...     pool.verify(dst, 0, 1 << 20), pool.verify(dst, 2, 1 << 20)
    (True, False)
"""

from __future__ import annotations

import functools

import numpy as np

from ..runtime import DeviceBuffer, HostBuffer, Runtime
from ..runtime.resources import close_all

PATTERN_BYTES = 1 << 20
CHECK_WINDOW = 4096  # what a verification reads of a large copy: windows of this size
CHECK_WINDOWS = 16
#: The pattern id of pinned host memory that a host-to-device copy sends (devices are 0..).
HOST = -1


@functools.lru_cache(maxsize=64)
def pattern_block(device: int) -> bytes:
    """The 1 MiB seeded random block a device's send buffer repeats (``HOST``: the
    pinned host buffer's)."""
    return np.random.default_rng(0xA5CE + device).bytes(PATTERN_BYTES)


class BufferPool:
    """Per-device send and receive buffers of ``max_size`` bytes, made on first use.

    Send buffers hold the device's pattern block repeated; receive buffers are cleared
    before each point and checked after it.
    """

    def __init__(self, rt: Runtime, max_size: int) -> None:
        self.rt, self.max_size = rt, max_size
        self._send: dict[int, DeviceBuffer] = {}
        self._recv: dict[tuple[int, int], DeviceBuffer] = {}
        self._staging: HostBuffer | None = None
        self._check: HostBuffer | None = None
        self._host_send: HostBuffer | None = None
        self._host_recv: HostBuffer | None = None

    def send(self, dev: int) -> DeviceBuffer:
        """Device dev's send buffer, filled with its pattern. A fill that fails frees the
        buffer and raises: a half-written buffer is never kept for later points."""
        if dev not in self._send:
            buf = self.rt.device_buffer(dev, self.max_size)
            try:
                self._fill(buf, dev)
            except BaseException:
                close_all([buf])  # a failed free stays with the runtime, which frees it
                raise
            self._send[dev] = buf
        return self._send[dev]

    def recv(self, dev: int, slot: int = 0) -> DeviceBuffer:
        """Receive buffer number ``slot`` of dev (several when many devices write to one)."""
        if (dev, slot) not in self._recv:
            self._recv[(dev, slot)] = self.rt.device_buffer(dev, self.max_size)
        return self._recv[(dev, slot)]

    def staging(self) -> HostBuffer:
        """Pinned host memory for the host-staged path."""
        if self._staging is None:
            self._staging = self.rt.host_buffer(self.max_size)
        return self._staging

    def host_send(self) -> HostBuffer:
        """Pinned host memory holding the ``HOST`` pattern: what host-to-device copies send.
        A fill that fails frees the buffer and raises, as :meth:`send` does."""
        if self._host_send is None:
            buf = self.rt.host_buffer(self.max_size)
            try:
                self._fill(buf, HOST)
            except BaseException:
                close_all([buf])
                raise
            self._host_send = buf
        return self._host_send

    def host_recv(self) -> HostBuffer:
        """Pinned host memory that device-to-host copies write into."""
        if self._host_recv is None:
            self._host_recv = self.rt.host_buffer(self.max_size)
        return self._host_recv

    def _fill(self, buf: DeviceBuffer | HostBuffer, dev: int) -> None:
        block = pattern_block(dev)
        first = min(len(block), buf.size)
        self.rt.write(buf, block[:first])
        done = first
        while done < buf.size:  # double the filled prefix with device-local copies
            n = min(done, buf.size - done)
            self.rt.memcpy(buf, buf, n, dst_offset=done)
            done += n

    def clear(self, buf: DeviceBuffer | HostBuffer, size: int) -> None:
        """Zero the first size bytes of a receive buffer (of host memory: the ranges
        :meth:`verify` reads, which is all a check sees)."""
        if isinstance(buf, HostBuffer):
            for off, n in _checked(size):
                self.rt.write(buf, bytes(n), offset=off)
        else:
            self.rt.memset(buf, 0, size)

    def verify(self, dst: DeviceBuffer | HostBuffer, src_device: int, size: int) -> bool:
        """Whether dst's first size bytes hold src_device's pattern (``HOST``: the host
        buffer's): whole for sizes up to 1 MiB, else the head, the tail and 14 windows
        spread between (4 KiB each)."""
        block = pattern_block(src_device)
        if self._check is None:
            self._check = self.rt.host_buffer(PATTERN_BYTES)
        ranges = _checked(size)
        got, at = memoryview(self.rt.read_ranges(dst, ranges, self._check)), 0
        for off, n in ranges:  # each range against the block where it falls, uncopied
            if not block.startswith(got[at : at + n], off % PATTERN_BYTES):
                return False
            at += n
        return True

    def close(self) -> None:
        """Free every buffer (also those of a failed run); a failed free is retried once,
        then the first error is raised (a buffer still not freed stays with the runtime,
        which frees it when it closes)."""
        bufs = [
            *self._send.values(),
            *self._recv.values(),
            self._staging,
            self._check,
            self._host_send,
            self._host_recv,
        ]
        self._send.clear()
        self._recv.clear()
        self._staging = self._check = self._host_send = self._host_recv = None
        close_all(bufs)

    def __enter__(self) -> BufferPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def checked_ranges(size: int) -> list[tuple[int, int]]:
    """(offset, length) of what a verification of size bytes reads: everything up to
    1 MiB, else the head, the tail and 14 windows of 4 KiB spread between.

    Example:
        >>> checked_ranges(100)
        [(0, 100)]
        >>> len(checked_ranges(64 << 20)), checked_ranges(64 << 20)[-1]
        (16, (67104768, 4096))
    """
    if size <= PATTERN_BYTES:
        return [(0, size)]
    step = size // (CHECK_WINDOWS - 1)
    offsets = sorted(
        {
            min((k * step) // CHECK_WINDOW * CHECK_WINDOW, size - CHECK_WINDOW)
            for k in range(CHECK_WINDOWS)
        }
    )
    return [(off, CHECK_WINDOW) for off in offsets]


@functools.lru_cache(maxsize=256)
def _checked(size: int) -> tuple[tuple[int, int], ...]:
    """:func:`checked_ranges`, kept per size (each point of a size reads the same)."""
    return tuple(checked_ranges(size))
