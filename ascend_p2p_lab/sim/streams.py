"""Streams and events: the handles, their checks, and the calls that wait on device work.

A stream belongs to the device that was current when it was made; handle 0 is the
current device's default stream (owned by :class:`~.devices.Devices`). Events record a
device timestamp when their record op runs on the :class:`~.engine.Engine`; elapsed
times come back rounded to a C float, as pyACL's ``Py_BuildValue("fi", ...)`` does.

Example:
    >>> from ascend_p2p_lab.sim import simulated_acl
    >>> acl = simulated_acl("atlas800t-a2")
    >>> acl.init(), acl.rt.set_device(0)
    (0, 0)
    >>> (stream, _), (e, _) = acl.rt.create_stream(), acl.rt.create_event()
    >>> acl.rt.record_event(e, 0)  # the default stream
    0
    >>> acl.rt.record_event(e, stream), acl.rt.synchronize_stream(stream)
    (0, 0)
    >>> acl.rt.event_elapsed_time(e, e)
    (0.0, 0)
    >>> acl.rt.destroy_event(e), acl.rt.destroy_stream(stream), acl.rt.reset_device(0)
    (0, 0, 0)
    >>> acl.finalize()
    0
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from .. import codes as C
from .devices import Devices
from .engine import NS_PER_US, SimEvent, Stream
from .part import Part, Shared, pyacl

#: a C float: pyACL's ``Py_BuildValue("f", ...)`` rounds elapsed times to one
_F32 = struct.Struct("f")


class Streams(Part):
    """Stream and event handles, and the stream and event calls."""

    def __init__(self, shared: Shared, devices: Devices) -> None:
        super().__init__(shared)
        self.devices = devices
        self.streams: dict[int, Stream] = {}
        #: stream handle -> the handle of the context it was made in
        self.owner: dict[int, int] = {}
        self.events: dict[int, SimEvent] = {}
        #: successful record_event / stream_wait_event calls by their argument tuple
        #: (plain ints only): the event and stream they named (:meth:`fast_event_call`); dropped
        #: with the kept copies (``Copies.clear``)
        self.kept_records: dict[tuple[int, int], tuple[SimEvent, Stream]] = {}
        self.kept_waits: dict[tuple[int, int], tuple[SimEvent, Stream]] = {}

    def stream_of(self, handle: int, current: int) -> tuple[Stream | None, int]:
        """The stream a handle names for the current device (0: its default stream)."""
        if handle == 0:
            return self.devices.default_stream(current), 0
        s = self.streams.get(handle)
        if s is None:
            return None, self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"stream {handle} does not exist")
        if s.device != current:
            return None, self.fail(
                C.ACL_ERROR_RT_STREAM_CONTEXT,
                f"stream {handle} belongs to device {s.device}, current device is {current}",
            )
        ctx = self.devices.context_handle(current)
        if self.owner.get(handle, ctx) != ctx:
            return None, self.fail(
                C.ACL_ERROR_RT_STREAM_CONTEXT,
                f"stream {handle} belongs to context {self.owner[handle]:#x}, "
                f"the current context is {ctx:#x}",
            )
        return s, 0

    def release_context(self, ctx: int, why: str) -> None:
        """Destroy the streams made in an explicit context that goes."""
        for sid in [sid for sid, owner in self.owner.items() if owner == ctx]:
            self.released.append(f"stream {sid} destroyed by {why}")
            self.engine.drop_stream(self.streams.pop(sid))
            del self.owner[sid]

    def release_device(self, dev: int, why: str) -> None:
        """Destroy dev's streams, then its events (its last reference went)."""
        for sid, s in list(self.streams.items()):
            if s.device == dev:
                self.released.append(f"stream {sid} destroyed by {why}")
                self.engine.drop_stream(s)
                del self.streams[sid]
                self.owner.pop(sid, None)
        for eid, e in list(self.events.items()):
            if e.device == dev:
                self.released.append(f"event {eid} destroyed by {why}")
                del self.events[eid]

    def _destroy(self, what: str, table: dict[int, Any], handle: int) -> tuple[Any, int]:
        """Remove a stream or event handle (init check, existence, fault): (object, code)."""
        code = self.devices.check_init()
        if code:
            return None, code
        obj = table.get(handle)
        if obj is None:
            return None, self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"{what} {handle} does not exist")
        code = self.injector.fault(f"rt.destroy_{what}", (obj.device,))
        if code:
            return None, code
        del table[handle]
        return obj, 0

    # ------------------------------------------------------------------ streams
    @pyacl("rt.create_stream", "")
    def create_stream(self) -> tuple[int, int]:
        dev, code = self.devices.init_and_current()
        if code or dev is None:
            return 0, code
        code = self.injector.fault("rt.create_stream", (dev,))
        if code:
            return 0, code
        s = self.engine.new_stream(dev)
        self.streams[s.id] = s
        self.owner[s.id] = self.devices.context_handle(dev)
        self.injector.host(10.0)
        return s.id, 0

    @pyacl("rt.destroy_stream", "k")
    def destroy_stream(self, handle: int) -> int:
        s, code = self._destroy("stream", self.streams, handle)
        if code:
            return code
        self.owner.pop(handle, None)
        self.engine.drop_stream(s)
        self.injector.host(10.0)
        return 0

    @pyacl("rt.synchronize_stream", "k", keeps_plans=True)
    def synchronize_stream(self, handle: int) -> int:
        devices, injector, engine = self.devices, self.injector, self.engine
        if not devices.initialized:
            return devices.check_init()
        s = self.streams.get(handle) if handle else devices.default_stream(devices.tls.device or 0)
        if s is None:
            return self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"stream {handle} does not exist")
        if injector.faults or injector.lost:  # fault() and host(), called only when they act
            code = injector.fault("rt.synchronize_stream", (s.device,))
            if code:
                return code
            injector.host(1.0)
            engine.wait_host_until(engine.stream_done_at(s))
            injector.host(self.topology.host.sync_return_us)
            return 0
        engine.host_us += 1.0
        done = engine.stream_done_at(s)
        if done > engine.host_us:  # wait_host_until
            engine.host_us = done
        engine.host_us += self.topology.host.sync_return_us
        return 0

    @pyacl("rt.synchronize_device", "", keeps_plans=True)
    def synchronize_device(self) -> int:
        dev, code = self.devices.init_and_current()
        if code or dev is None:
            return code
        code = self.injector.fault("rt.synchronize_device", (dev,))
        if code:
            return code
        self.engine.wait_host_until(self.engine.all_done_at(dev))
        self.injector.host(self.topology.host.sync_return_us)
        return 0

    # ------------------------------------------------------------------ events
    def _new_event(self, flag: int, call: str) -> tuple[int, int]:
        dev, code = self.devices.init_and_current()
        if code or dev is None:
            return 0, code
        code = self.injector.fault(call, (dev,))
        if code:
            return 0, code
        e = self.engine.new_event(dev, flag)
        self.events[e.id] = e
        self.injector.host(2.0)
        return e.id, 0

    @pyacl("rt.create_event", "", keeps_plans=True)
    def create_event(self) -> tuple[int, int]:
        return self._new_event(0, "rt.create_event")

    @pyacl("rt.create_event_with_flag", "I", keeps_plans=True)
    def create_event_with_flag(self, flag: int) -> tuple[int, int]:
        return self._new_event(flag, "rt.create_event_with_flag")

    @pyacl("rt.create_event_ex_with_flag", "I", keeps_plans=True, newer=True)
    def create_event_ex_with_flag(self, flag: int) -> tuple[int, int]:
        return self._new_event(flag, "rt.create_event_ex_with_flag")

    @pyacl("rt.destroy_event", "k", keeps_plans=True)
    def destroy_event(self, handle: int) -> int:
        _, code = self._destroy("event", self.events, handle)
        if code:
            return code
        self.injector.host(2.0)
        return 0

    def _event_and_stream(
        self, event: int, stream: int
    ) -> tuple[SimEvent | None, Stream | None, int]:
        """An event and a stream of the current device, checked as both calls need them."""
        cur, code = self.devices.init_and_current()
        if code or cur is None:
            return None, None, code
        e = self.events.get(event)
        if e is None:
            return (
                None,
                None,
                self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"event {event} does not exist"),
            )
        s, code = self.stream_of(stream, cur)
        return e, s, code

    @pyacl("rt.record_event", "kk", keeps_plans=True, fast="fast_event_call")
    def record_event(self, event: int, stream: int) -> int:
        e, s, code = self._event_and_stream(event, stream)
        if code or e is None or s is None:
            return code
        if e.device != s.device:
            return self.fail(
                C.ACL_ERROR_RT_STREAM_CONTEXT,
                f"event {e.id} belongs to device {e.device}, stream to device {s.device}",
            )
        if self.injector.faults:
            code = self.injector.fault("rt.record_event", (s.device,))
            if code:
                return code
        self.injector.host(2.0)
        self.engine.enqueue_record(s, e)
        if type(event) is int is type(stream):
            self.kept_records[(event, stream)] = (e, s)
        return 0

    @pyacl("rt.stream_wait_event", "kk", keeps_plans=True, fast="fast_event_call")
    def stream_wait_event(self, stream: int, event: int) -> int:
        e, s, code = self._event_and_stream(event, stream)
        if code or e is None or s is None:
            return code
        code = self.injector.fault("rt.stream_wait_event", (s.device, e.device))
        if code:
            return code
        self.injector.host(2.0)
        self.engine.enqueue_wait(s, e)
        if e.device != s.device:  # crossing devices goes through the runtime's notify
            self.engine.enqueue_copy(s, 0, (), self.topology.cross_device_wait_us)
        if type(event) is int is type(stream):
            self.kept_waits[(stream, event)] = (e, s)
        return 0

    def fast_event_call(
        self, call: str, lock: Any, counts: dict[str, int], checked: Callable[..., int]
    ) -> Callable[..., int]:
        """``acl.rt.record_event`` or ``acl.rt.stream_wait_event``: a repeat of a
        successful call (:attr:`kept_records`, :attr:`kept_waits`: the same plain-int
        arguments, its stream's device still current, its event not destroyed) skips the
        checks, else ``checked`` (the format check, then the call's method).

        Under ``lock`` and counted, as every wrapped call is; a repeat does what the checked
        path does after its checks: the fault check, the host clock, the queued ops.
        """
        record = call == "rt.record_event"
        kept = self.kept_records if record else self.kept_waits
        events, tls, engine, injector = self.events, self.devices.tls, self.engine, self.injector
        faults, lost, fault, host = injector.faults, injector.lost, injector.fault, injector.host
        enqueue_record, enqueue_wait, enqueue_copy = (
            engine.enqueue_record,
            engine.enqueue_wait,
            engine.enqueue_copy,
        )
        cross_us = self.topology.cross_device_wait_us

        def event_call(*args: Any) -> int:
            lock.acquire()  # acquire/release: cheaper than `with lock` per call
            try:
                try:
                    counts[call] += 1
                except KeyError:  # the first call
                    counts[call] = 1
                try:
                    hit = kept.get(args)
                except TypeError:  # an unhashable argument: the checks report it
                    hit = None
                if hit is None:
                    return checked(*args)
                a, b = args
                e, s = hit
                if (
                    a.__class__ is not int
                    or b.__class__ is not int  # equal but not int
                    or s.device != tls.device
                    or events.get(e.id) is not e
                ):
                    return checked(*args)
                if record:
                    if faults:
                        code = fault(call, (s.device,))
                        if code:
                            return code
                elif faults or lost:
                    code = fault(call, (s.device, e.device))
                    if code:
                        return code
                if faults:
                    host(2.0)
                else:
                    engine.host_us += 2.0  # what host() does without faults
                if record:
                    enqueue_record(s, e)
                else:
                    enqueue_wait(s, e)
                    if e.device != s.device:
                        enqueue_copy(s, 0, (), cross_us)
                return 0
            finally:
                lock.release()

        return event_call

    @pyacl("rt.synchronize_event", "k", keeps_plans=True)
    def synchronize_event(self, event: int) -> int:
        devices, injector, engine = self.devices, self.injector, self.engine
        if not devices.initialized:
            return devices.check_init()
        e = self.events.get(event)
        if e is None:
            return self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"event {event} does not exist")
        faults = injector.faults or injector.lost  # fault() and host() act only then
        if faults:
            code = injector.fault("rt.synchronize_event", (e.device,))
            if code:
                return code
            injector.host(1.0)
        else:
            engine.host_us += 1.0
        if e.record_op is not None:
            engine.resolve()
            if faults:
                engine.wait_host_until(e.record_op.end or 0.0)
                injector.host(self.topology.host.sync_return_us)
            else:
                done = e.record_op.end or 0.0
                if done > engine.host_us:  # wait_host_until
                    engine.host_us = done
                engine.host_us += self.topology.host.sync_return_us
        return 0

    @pyacl("rt.event_elapsed_time", "kk", keeps_plans=True)
    def event_elapsed_time(self, start: int, end: int) -> tuple[float, int]:
        devices, injector = self.devices, self.injector
        if not devices.initialized:
            return 0.0, devices.check_init()
        events = self.events
        a, b = events.get(start), events.get(end)
        if a is None or b is None:
            return 0.0, self.fail(C.ACL_ERROR_RT_PARAM_INVALID, "event does not exist")
        if a.record_op is None or b.record_op is None:
            return 0.0, self.fail(
                C.ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "event was never recorded"
            )
        faults = injector.faults or injector.lost  # fault() and host() act only then
        if faults:
            code = injector.fault("rt.event_elapsed_time", (a.device, b.device))
            if code:
                return 0.0, code
        self.engine.resolve()
        if a.ts is None or b.ts is None:
            return 0.0, self.fail(C.ACL_ERROR_RT_EVENT_NOT_COMPLETE, "event not complete")
        if faults:
            injector.host(1.0)
        else:
            self.engine.host_us += 1.0
        return _F32.unpack(_F32.pack((b.ts - a.ts) / 1000.0))[0], 0  # a C float

    @pyacl("rt.event_get_timestamp", "k", keeps_plans=True, newer=True)
    def event_get_timestamp(self, event: int) -> tuple[int, int]:
        code = self.devices.check_init()
        if code:
            return 0, code
        e = self.events.get(event)
        if e is None or e.record_op is None:
            return 0, self.fail(C.ACL_ERROR_RT_PARAM_INVALID, "event does not exist or unrecorded")
        self.engine.resolve()
        return self.engine.epoch_ns + int((e.ts or 0.0) * NS_PER_US), 0
