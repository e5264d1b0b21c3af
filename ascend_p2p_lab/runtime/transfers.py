"""Memory, copies, streams and events: the part of :class:`~.runtime.Runtime` that moves data.

A mixin of the runtime (it uses ``use``, ``call``, ``_fn``, ``has`` and the clocks of the
class it is mixed into); each call makes its device current first.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim") as rt, rt.device_buffer(0, 4096) as buf:
    ...     rt.write(buf, b"abc"); rt.read(buf, 3)
    b'abc'
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat, starmap
from time import perf_counter_ns
from typing import Any

from ..codes import EventFlag, MallocPolicy, MemcpyKind
from .capabilities import FALLBACKS
from .errors import AclError, MissingCall
from .resources import DeviceBuffer, Event, HostBuffer, Resource, Stream


class Transfers:
    """Buffers, copies, streams and events (mixed into Runtime)."""

    acl: Any
    use: Any
    call: Any
    _fn: Any
    has: Any
    host_time_ns: Any
    current_device: Any
    _recent_error: Any
    _tls: Any
    _contexts: dict[int, int]
    fallbacks: dict[str, str]
    _sim: Any

    # ------------------------------------------------------------------ memory
    def device_buffer(
        self, dev: int, size: int, policy: int = MallocPolicy.HUGE_FIRST_P2P
    ) -> DeviceBuffer:
        """``aclrtMalloc`` on dev (default policy ACL_MEM_MALLOC_HUGE_FIRST_P2P)."""
        _check_size(size)
        self.use(dev)
        ptr = self.call("rt.malloc", size, int(policy))
        return DeviceBuffer(self, int(ptr), size, dev, int(policy))

    def host_buffer(self, size: int) -> HostBuffer:
        """Pinned host memory (``aclrtMallocHost``)."""
        _check_size(size)
        ptr = self.call("rt.malloc_host", size)
        return HostBuffer(self, int(ptr), size)

    def memset(self, buf: DeviceBuffer, value: int, count: int | None = None) -> None:
        n = buf.size if count is None else count
        assert buf.device is not None
        self.use(buf.device)
        self.call("rt.memset", buf.ptr, buf.size, value, n)

    @staticmethod
    def _kind(dst: Resource, src: Resource) -> int:
        d_dev, s_dev = isinstance(dst, DeviceBuffer), isinstance(src, DeviceBuffer)
        return _KINDS[(d_dev, s_dev)]

    def memcpy(
        self,
        dst: DeviceBuffer | HostBuffer,
        src: DeviceBuffer | HostBuffer,
        count: int,
        *,
        on: int | None = None,
        dst_offset: int = 0,
    ) -> None:
        """Blocking ``aclrtMemcpy`` of count bytes (kind from the buffers), issued from
        device ``on`` (default: the destination's device, as the official sample does),
        optionally at a byte offset into the destination."""
        if dst_offset < 0 or dst_offset + count > dst.size or count > src.size:
            raise ValueError(
                f"{count} bytes at offset {dst_offset} do not fit a {dst.size}-"
                f"byte destination from a {src.size}-byte source"
            )
        dev = on if on is not None else (dst.device if dst.device is not None else src.device)
        self.use(dev if dev is not None else 0)
        self.call(
            "rt.memcpy",
            dst.ptr + dst_offset,
            dst.size - dst_offset,
            src.ptr,
            count,
            self._kind(dst, src),
        )

    def memcpy_async(
        self,
        dst: DeviceBuffer | HostBuffer,
        src: DeviceBuffer | HostBuffer,
        count: int,
        stream: Stream,
        *,
        dst_offset: int = 0,
        src_offset: int = 0,
    ) -> None:
        """``aclrtMemcpyAsync`` of count bytes on a stream (the stream's device becomes
        current), optionally at byte offsets into the two buffers."""
        assert stream.device is not None
        if min(dst_offset, src_offset) < 0 or src_offset + count > src.size:
            raise ValueError(
                f"{count} bytes at offset {src_offset} exceed the {src.size}-byte source"
            )
        self.use(stream.device)
        self.call(
            "rt.memcpy_async",
            dst.ptr + dst_offset,
            dst.size - dst_offset,
            src.ptr + src_offset,
            count,
            self._kind(dst, src),
            stream.handle,
        )

    def enqueue_copies(
        self,
        dst: DeviceBuffer | HostBuffer,
        src: DeviceBuffer | HostBuffer,
        count: int,
        stream: Stream,
        copies: int,
    ) -> int:
        """Enqueue ``copies`` identical async copies; return the host time it took (ns).

        The pyACL call is bound once; per copy the loop does the call and a ret check
        (``filter`` over ``starmap``: the loop runs in C, and stops at the first non-zero
        ret, which is raised). On the simulator the repeats are queued at once
        (``acl.simulator.repeat_copy``: the same results, to the bit).
        """
        dev = stream.device
        assert dev is not None
        if getattr(self._tls, "current", None) != dev:  # use(), its first test inlined
            self.use(dev)
        try:  # _fn("rt.memcpy_async"), inlined
            memcpy_async = self.acl.rt.memcpy_async
        except AttributeError:
            raise MissingCall("acl.rt.memcpy_async") from None
        args = (
            dst.ptr,
            dst.size,
            src.ptr,
            count,
            _KINDS[(isinstance(dst, DeviceBuffer), isinstance(src, DeviceBuffer))],
            stream.handle,
        )
        sim = self._sim  # host_time_ns, inlined: the simulator's clock, or perf_counter_ns
        t0 = sim.host_time_ns if sim is not None else perf_counter_ns()
        batch = getattr(sim, "repeat_copy", None)
        ret = batch(memcpy_async, args, copies) if batch is not None else None
        if ret is None:  # real pyACL (or the simulator declined): call by call
            ret = next(filter(None, starmap(memcpy_async, repeat(args, copies))), 0)
        if ret:
            raise AclError("acl.rt.memcpy_async", args, ret, self._recent_error())
        return (sim.host_time_ns if sim is not None else perf_counter_ns()) - t0

    def enqueue_staged(
        self,
        dst: DeviceBuffer,
        host: HostBuffer,
        src: DeviceBuffer,
        count: int,
        streams: tuple[Stream, Stream],
        relay: Event,
        copies: int,
        *,
        chunk: int,
        wait_on_device: bool = True,
        synchronize: bool = False,
    ) -> None:
        """Enqueue ``copies`` host-staged copies of count bytes: per chunk of at most
        ``chunk`` bytes, device -> pinned host on the source's stream, then pinned host ->
        device on the destination's, after the relay event (``wait_on_device=False``:
        after the host synchronized the source's stream); ``synchronize``: then wait for
        the destination's stream (``Stream.synchronize``).

        The same pyACL calls, in the same order, as :meth:`memcpy_async`, ``relay.record``,
        :meth:`wait_event` (or ``Stream.synchronize``) and :meth:`memcpy_async` per chunk,
        device switches included (``aclrtSetCurrentContext``, as :meth:`use` makes them);
        each call is bound once and its ``ret`` checked. On the simulator a program
        followed by a synchronize may be computed as one operation
        (``acl.simulator.run_program``: the same results, to the bit).
        """
        s_src, s_dst = streams
        assert s_src.device is not None and s_dst.device is not None
        if count > min(src.size, host.size, dst.size) or chunk <= 0:
            raise ValueError(f"{count} bytes in chunks of {chunk} do not fit the buffers")
        fn = self._fn
        copy = fn("rt.memcpy_async")
        tail = (
            [(fn("rt.synchronize_stream"), "rt.synchronize_stream", (s_dst.handle,), None)]
            if synchronize
            else []
        )
        if wait_on_device:
            record, wait = fn("rt.record_event"), fn("rt.stream_wait_event")
            waits: tuple[Any, ...] = (record, wait)
        else:
            waits = (fn("rt.synchronize_stream"),)
        key = (copy, dst.ptr, dst.size, host.ptr, host.size, src.ptr, count, chunk)
        key += (s_src.handle, s_src.device, s_dst.handle, s_dst.device, relay.handle)
        key += (wait_on_device, *waits)
        kept = getattr(self, "_staged_kept", None)  # each sample repeats its point's program
        if kept is not None and kept[0] == key:
            return self._run_program(kept[1], copies, tail, kept[2])
        d2h, h2d = _KINDS[(False, True)], _KINDS[(True, False)]
        middle = (
            [
                (record, "rt.record_event", (relay.handle, s_src.handle), None),
                s_dst.device,
                (wait, "rt.stream_wait_event", (s_dst.handle, relay.handle), None),
            ]
            if wait_on_device
            else [(waits[0], "rt.synchronize_stream", (s_src.handle,), None), s_dst.device]
        )
        program: list[Any] = []  # a call (fn, name, args, None), or a device to switch to
        h_ptr, h_size, s_ptr, d_ptr, d_size = host.ptr, host.size, src.ptr, dst.ptr, dst.size
        down_on, up_on, s_dev = s_src.handle, s_dst.handle, s_src.device
        for off in range(0, count, chunk):
            m = min(chunk, count - off)
            down = (h_ptr + off, h_size - off, s_ptr + off, m, d2h, down_on)
            up = (d_ptr + off, d_size - off, h_ptr + off, m, h2d, up_on)
            program += [s_dev, (copy, "rt.memcpy_async", down, None), *middle]
            program.append((copy, "rt.memcpy_async", up, None))
        devices = sorted({s_src.device, s_dst.device})  # the program's switches
        self._staged_kept = (key, program, devices)
        self._run_program(program, copies, tail, devices)

    def _run_program(
        self, program: list[Any], copies: int, tail: list[Any], devices: Any = None
    ) -> None:
        """Run ``program`` ``copies`` times, then ``tail`` once: each call with its ``ret``
        checked; each device made current as :meth:`use` would (nothing when it is; its
        cached context, else ``use`` itself). The simulator may compute it as one
        operation (``acl.simulator.run_program``, when it has it; same results).
        ``devices``: the devices the program switches to, when the caller knows them."""
        switch = {}
        if devices is None:
            devices = {step for step in program if isinstance(step, int)}
        if devices:
            has_context = self.has("set_context")
            for dev in devices:
                ctx = self._contexts.get(dev)
                if ctx is None or not has_context:
                    return self._run_slowly(program, copies, tail)
                switch[dev] = (self._fn("rt.set_context"), "rt.set_context", (ctx,), dev)
        kept = getattr(self, "_program_kept", None)
        if kept is not None and kept[0] is program and kept[1] == switch:
            one = kept[2]  # the same list: the simulator keeps what it made of it
        else:
            one = [switch.get(step, step) if isinstance(step, int) else step for step in program]
            self._program_kept = (program, switch, one)
        tls = self._tls
        current = getattr(tls, "current", None)
        run = getattr(self._sim, "run_program", None)
        done = run(one, copies, tail, current) if run is not None else None
        if done is not None:  # computed at once: raise what the loop below would
            ret, step, tls.current = done
            if ret:
                raise AclError(f"acl.{step[1]}", step[2], ret, self._recent_error())
            return None
        for fn, name, args, dev in one * copies + tail:
            if dev is not None:
                if dev == current:
                    continue
                current = dev
            ret = fn(*args)
            if ret:
                raise AclError(f"acl.{name}", args, ret, self._recent_error())
            if dev is not None:
                tls.current = dev

    def _run_slowly(self, program: list[Any], copies: int, tail: list[Any]) -> None:
        """:meth:`_run_program` where a device has no cached context: ``use`` each time."""
        for step in [*(program * copies), *tail]:
            if isinstance(step, int):
                self.use(step)
                continue
            fn, name, args, _ = step
            ret = fn(*args)
            if ret:
                raise AclError(f"acl.{name}", args, ret, self._recent_error())

    def write(self, buf: DeviceBuffer | HostBuffer, data: bytes, offset: int = 0) -> None:
        """Copy host bytes into a buffer (host-to-device for a device buffer)."""
        if offset < 0 or offset + len(data) > buf.size:
            raise ValueError(f"{len(data)} bytes at offset {offset} do not fit in {buf.size}")
        ptr = self.acl.util.bytes_to_ptr(data)
        kind = _KINDS[(isinstance(buf, DeviceBuffer), False)]
        if buf.device is not None:
            self.use(buf.device)
        elif self.current_device() is None:
            self.use(0)
        self.call("rt.memcpy", buf.ptr + offset, buf.size - offset, ptr, len(data), kind)

    def read(
        self,
        buf: DeviceBuffer | HostBuffer,
        count: int | None = None,
        offset: int = 0,
        staging: HostBuffer | None = None,
    ) -> bytes:
        """Bytes of a buffer; a device buffer is copied to pinned host memory first."""
        n = buf.size - offset if count is None else count
        if offset < 0 or offset + n > buf.size:
            raise ValueError(f"{n} bytes at offset {offset} are outside a {buf.size}-byte buffer")
        if isinstance(buf, HostBuffer):
            return self.acl.util.ptr_to_bytes(buf.ptr + offset, n)
        assert buf.device is not None
        self.use(buf.device)
        if staging is not None and staging.size >= n:
            host = staging
            self.call("rt.memcpy", host.ptr, host.size, buf.ptr + offset, n, _KINDS[(False, True)])
            return self.acl.util.ptr_to_bytes(host.ptr, n)
        with self.host_buffer(n) as host:
            self.call("rt.memcpy", host.ptr, host.size, buf.ptr + offset, n, _KINDS[(False, True)])
            return self.acl.util.ptr_to_bytes(host.ptr, n)

    def read_ranges(
        self, buf: DeviceBuffer | HostBuffer, ranges: Sequence[tuple[int, int]], staging: HostBuffer
    ) -> bytes:
        """The bytes of several ``(offset, count)`` ranges of a buffer, joined: a device
        buffer's copied into ``staging`` one after another (an ``aclrtMemcpy`` each) and
        read back once; a host buffer's read in place."""
        size = buf.size
        if any(off < 0 or n < 0 or off + n > size for off, n in ranges):
            raise ValueError(f"a range of {list(ranges)} is outside a {size}-byte buffer")
        if isinstance(buf, HostBuffer):
            return b"".join(self.acl.util.ptr_to_bytes(buf.ptr + off, n) for off, n in ranges)
        total = sum(n for _, n in ranges)
        if total > staging.size:
            raise ValueError(f"{total} bytes do not fit a {staging.size}-byte staging buffer")
        assert buf.device is not None
        self.use(buf.device)
        memcpy, at, d2h = self._fn("rt.memcpy"), 0, _KINDS[(False, True)]  # bound once
        to, room, base = staging.ptr, staging.size, buf.ptr
        for off, n in ranges:
            args = (to + at, room - at, base + off, n, d2h)
            out = memcpy(*args)
            if out:
                self._outcome("rt.memcpy", args, out)
            at += n
        return self.acl.util.ptr_to_bytes(staging.ptr, total)

    # ------------------------------------------------------------------ streams, events
    def stream(self, dev: int) -> Stream:
        """A new stream on dev."""
        self.use(dev)
        return Stream(self, int(self.call("rt.create_stream")), dev)

    def event(self, dev: int, flags: int = EventFlag.TIME_LINE) -> Event:
        """A timing event on dev (``aclrtCreateEventWithFlag``, ACL_EVENT_TIME_LINE)."""
        self.use(dev)
        if flags and self.has("create_event_with_flag"):
            handle = self.call("rt.create_event_with_flag", int(flags))
        else:
            if flags:  # the call asked for is missing: say so where the run is recorded
                self.fell_back("acl.rt.create_event_with_flag")
            handle = self.call("rt.create_event")
        return Event(self, int(handle), dev)

    def fell_back(self, call: str) -> None:
        """Record that the runtime did without ``call`` (:data:`.capabilities.FALLBACKS`).

        Example:
            >>> from ascend_p2p_lab.runtime import open_runtime
            >>> with open_runtime("sim") as rt:
            ...     rt.fell_back("acl.rt.create_event_with_flag")
            ...     list(rt.fallbacks)
            ['acl.rt.create_event_with_flag']
        """
        self.fallbacks[call] = FALLBACKS[call]

    def wait_event(self, stream: Stream, event: Event) -> None:
        """Make stream wait for event (``aclrtStreamWaitEvent``)."""
        assert stream.device is not None
        self.use(stream.device)
        self.call("rt.stream_wait_event", stream.handle, event.handle)

    def elapsed_ms(self, start: Event, end: Event) -> float:
        """Device time between two recorded events, in milliseconds."""
        end.synchronize()
        return float(self.call("rt.event_elapsed_time", start.handle, end.handle))

    def synchronize_device(self, dev: int) -> None:
        self.use(dev)
        self.call("rt.synchronize_device")

    def device_error(self, dev: int) -> AclError | None:
        """Whether dev still takes work: the error ``aclrtSynchronizeDevice`` on it gives,
        or None (also None where this pyACL lacks the call: no evidence either way)."""
        if not self.has("synchronize_device"):
            return None
        try:
            self.synchronize_device(dev)
        except AclError as exc:
            return exc
        return None


#: (destination on a device, source on a device) -> aclrtMemcpyKind, as a plain int: the
#: simulator's fast path memoizes calls whose arguments are exactly int.
_KINDS: dict[tuple[bool, bool], int] = {
    (False, False): int(MemcpyKind.HOST_TO_HOST),
    (True, False): int(MemcpyKind.HOST_TO_DEVICE),
    (False, True): int(MemcpyKind.DEVICE_TO_HOST),
    (True, True): int(MemcpyKind.DEVICE_TO_DEVICE),
}


def _check_size(size: object) -> None:
    """A buffer size is a positive int; checked before any call (pyACL would wrap it)."""
    if isinstance(size, bool) or not isinstance(size, int):
        raise TypeError(f"a buffer size must be an int, got {type(size).__name__}")
    if size <= 0:
        raise ValueError(f"a buffer size must be positive, got {size}")
