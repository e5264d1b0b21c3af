"""The copy engine: buffers with a known pattern, and the short timing loops.

Every timed sample is the same few lines: record a start event on the initiating
device's stream, enqueue ``copies`` async copies (host time measured around the
enqueue), record an end event, read the elapsed device time. Nothing here knows about
test cases, DataFrames or widgets.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim") as rt, BufferPool(rt, max_size=1 << 20) as pool:
    ...     src, dst = pool.send(0), pool.recv(1)
    ...     with rt.peer_links([(0, 1), (1, 0)]):
    ...         timer = Timer(rt, rt.stream(1))  # the destination's stream: a read
    ...         t = timer.sample(dst, src, 1 << 20, copies=4)
    ...         timer.close()
    ...     round(t.elapsed_us / 4), pool.verify(dst, 0, 1 << 20)
    (49, True)
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..runtime import DeviceBuffer, Event, HostBuffer, Runtime, Stream
from ..runtime.resources import close_all

PATTERN_BYTES = 1 << 20
STAGE_CHUNK = 4 << 20  # the host-staged path moves a copy in pieces of this size
WINDOW = 4096
WINDOWS = 16
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
            for off, n in checked_ranges(size):
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
        for off, n in checked_ranges(size):
            got = self.rt.read(dst, n, offset=off, staging=self._check)
            pos = off % PATTERN_BYTES
            if got != block[pos:pos + n]:
                return False
        return True

    def close(self) -> None:
        """Free every buffer (also those of a failed run); a failed free is retried once,
        then the first error is raised (a buffer still not freed stays with the runtime,
        which frees it when it closes)."""
        bufs = [*self._send.values(), *self._recv.values(), self._staging, self._check,
                self._host_send, self._host_recv]
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
    step = size // (WINDOWS - 1)
    offsets = sorted({min((k * step) // WINDOW * WINDOW, size - WINDOW)
                      for k in range(WINDOWS)})
    return [(off, WINDOW) for off in offsets]


@dataclass(frozen=True)
class Timing:
    """One timed sample: device time of the window, and host time spent enqueueing."""

    copies: int
    elapsed_us: float
    host_enqueue_us: float


class Timer:
    """A stream of the initiating device with its start and end events."""

    def __init__(self, rt: Runtime, stream: Stream) -> None:
        """Takes ownership of stream: it is closed with the timer, or at once when making
        the events fails."""
        self.rt, self.stream = rt, stream
        assert stream.device is not None
        start = end = None
        try:
            start = rt.event(stream.device)
            end = rt.event(stream.device)
        except BaseException:
            close_all([start, stream])
            raise
        self.start: Event = start
        self.end: Event = end

    def sample(self, dst: DeviceBuffer | HostBuffer, src: DeviceBuffer | HostBuffer,
               size: int, copies: int) -> Timing:
        """Time ``copies`` back-to-back async copies of size bytes between two events."""
        self.start.record(self.stream)
        host_ns = self.rt.enqueue_copies(dst, src, size, self.stream, copies)
        self.end.record(self.stream)
        elapsed_ms = self.rt.elapsed_ms(self.start, self.end)
        return Timing(copies, elapsed_ms * 1000.0, host_ns / 1000.0)

    def close(self) -> None:
        close_all([self.start, self.end, self.stream])


def copies_for(per_copy_us: float, min_sample_us: float, max_copies: int) -> int:
    """Copies per sample so that one sample spans at least min_sample_us of device time."""
    if not per_copy_us > 0 or math.isinf(per_copy_us):
        return 1
    return max(1, min(max_copies, math.ceil(min_sample_us / per_copy_us)))


def sample_bidirectional(
    rt: Runtime, timers: tuple[Timer, Timer],
    copies: tuple[tuple[DeviceBuffer, DeviceBuffer], tuple[DeviceBuffer, DeviceBuffer]],
    size: int, n: int,
) -> tuple[Timing, Timing]:
    """Both directions at once, each timed on its own stream.

    Copies go out in interleaved rounds, and one untimed round before and after the
    timed window keeps the opposite direction busy over the whole measured window.
    """
    rounds = min(n, 4)
    per = math.ceil(n / rounds)
    (d0, s0), (d1, s1) = copies
    t0, t1 = timers
    host_ns = 0
    rt.enqueue_copies(d0, s0, size, t0.stream, per)
    rt.enqueue_copies(d1, s1, size, t1.stream, per)
    t0.start.record(t0.stream)
    t1.start.record(t1.stream)
    for _ in range(rounds):
        host_ns += rt.enqueue_copies(d0, s0, size, t0.stream, per)
        host_ns += rt.enqueue_copies(d1, s1, size, t1.stream, per)
    t0.end.record(t0.stream)
    t1.end.record(t1.stream)
    rt.enqueue_copies(d0, s0, size, t0.stream, per)
    rt.enqueue_copies(d1, s1, size, t1.stream, per)
    e0 = rt.elapsed_ms(t0.start, t0.end) * 1000.0
    e1 = rt.elapsed_ms(t1.start, t1.end) * 1000.0
    t0.stream.synchronize()
    t1.stream.synchronize()
    host_us = host_ns / 1000.0
    return Timing(rounds * per, e0, host_us), Timing(rounds * per, e1, host_us)


def sample_staged(rt: Runtime, streams: tuple[Stream, Stream], relay: Event,
                  dst: DeviceBuffer, host: HostBuffer, src: DeviceBuffer,
                  size: int, n: int, *, wait_on_device: bool = True) -> Timing:
    """Device -> pinned host -> device, n times, timed by the host clock.

    Each copy moves in chunks of at most STAGE_CHUNK bytes; a chunk's second leg waits on
    an event after its first leg, so the legs of consecutive chunks overlap, as a staged
    copy should. Host-timed, because the two legs run on two devices' streams. With
    ``wait_on_device=False`` (a pyACL without aclrtStreamWaitEvent) the host waits for
    each first leg instead, and the legs do not overlap.
    """
    chunk = min(size, STAGE_CHUNK)
    t0 = rt.host_time_ns()
    rt.enqueue_staged(dst, host, src, size, streams, relay, n, chunk=chunk,
                      wait_on_device=wait_on_device)
    streams[1].synchronize()
    elapsed = (rt.host_time_ns() - t0) / 1000.0
    return Timing(n, elapsed, elapsed)


def sample_blocking(rt: Runtime, dst: DeviceBuffer | HostBuffer,
                    src: DeviceBuffer | HostBuffer, size: int, n: int, on: int) -> Timing:
    """The seed's way: n synchronous aclrtMemcpy calls timed by the host clock."""
    t0 = rt.host_time_ns()
    for _ in range(n):
        rt.memcpy(dst, src, size, on=on)
    elapsed = (rt.host_time_ns() - t0) / 1000.0
    return Timing(n, elapsed, elapsed)


def sample_fanout(rt: Runtime, lead: Timer, timers: list[Timer],
                  plans: list[tuple[DeviceBuffer, DeviceBuffer]], size: int, n: int) -> Timing:
    """Several streams of one device copying at once; total window from the lead stream.

    Every stream waits for the lead's start event; the lead then waits for every
    stream's end event and records its own end (nvbandwidth's TOTAL_BW method).
    """
    lead.start.record(lead.stream)
    host_ns = 0
    for timer, (dst, src) in zip(timers, plans):
        rt.wait_event(timer.stream, lead.start)
        host_ns += rt.enqueue_copies(dst, src, size, timer.stream, n)
        timer.end.record(timer.stream)
    for timer in timers:
        rt.wait_event(lead.stream, timer.end)
    lead.end.record(lead.stream)
    elapsed_ms = rt.elapsed_ms(lead.start, lead.end)
    return Timing(n * len(timers), elapsed_ms * 1000.0, host_ns / 1000.0)
