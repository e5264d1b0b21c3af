"""Devices and contexts: aclInit/aclFinalize, set/reset device, the current device.

:class:`Devices` holds the session state every other part asks about: whether
``acl.init()`` ran, each device's reference count (``aclrtSetDevice`` adds one,
``aclrtResetDevice`` takes one, the last one frees what the device held), the current
device of each thread, and each set device's default context and stream. Releasing a
device asks the other parts (memory, streams and events, peer access) to let go of what
they hold on it, through :attr:`Devices.release_hooks`.

Example:
    >>> from ascend_p2p_lab.sim import simulated_acl
    >>> acl = simulated_acl("atlas800t-a2")
    >>> acl.rt.set_device(0)  # before acl.init()
    100001
    >>> acl.init(), acl.rt.set_device(0), acl.rt.get_device(), acl.rt.get_context()
    (0, 0, (0, 0), (13041664, 0))
    >>> acl.rt.set_device(0), acl.rt.reset_device(0), acl.rt.get_device()  # counted: still set
    (0, 0, (0, 0))
    >>> acl.rt.reset_device(0), acl.rt.get_device(), acl.finalize()
    (0, (0, 107002), 0)
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Callable
from typing import Any

from .. import codes as C
from .engine import Stream
from .part import Part, Shared

#: Host time of the first aclrtSetDevice of a device in a process (op upload, AICPU start).
FIRST_SET_DEVICE_US = 200_000.0
#: Default context handle of device d: CONTEXT_BASE + d.
CONTEXT_BASE = 0xC7_0000


class CurrentDevice(threading.local):
    """The calling thread's current device (None until it sets one)."""

    device: int | None = None


class Devices(Part):
    """Session and device state, and the device and context calls."""

    def __init__(self, shared: Shared) -> None:
        super().__init__(shared)
        self.initialized = False
        self.refs: dict[int, int] = {}
        self.ever_set: set[int] = set()
        self.default_streams: dict[int, Stream] = {}
        self.tls = CurrentDevice()
        #: called with (device, why) when a device's last reference goes, in order
        self.release_hooks: list[Callable[[int, str], None]] = []
        #: called with (why,) by a successful aclFinalize, after the devices are reset
        self.finalize_hooks: list[Callable[[str], None]] = []
        #: contexts a successful set_context named (plain int -> device); dropped with the
        #: kept copies (``Copies.clear``) by every call that could change the outcome
        self.kept: dict[int, int] = {}

    # ------------------------------------------------------------------ checks
    @property
    def current(self) -> int | None:
        """The calling thread's current device."""
        return self.tls.device

    def check_init(self) -> int:
        if not self.initialized:
            return self.fail(C.ACL_ERROR_UNINITIALIZE, "aclInit has not been called")
        return 0

    def check_dev(self, dev: int) -> int:
        if dev < 0 or dev >= C.RT_MAX_DEV_NUM:
            return self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"device id {dev} is out of range")
        if dev >= self.topology.device_count:
            return self.fail(
                C.ACL_ERROR_RT_INVALID_DEVICEID,
                f"device id {dev} is invalid; {self.topology.device_count} devices visible",
            )
        return 0

    def need_current(self) -> tuple[int | None, int]:
        """The current device, if it is set: (device, 0) or (None, code)."""
        dev = self.tls.device
        if dev is None or self.refs.get(dev, 0) == 0:
            return None, self.fail(C.ACL_ERROR_RT_CONTEXT_NULL, "no current device or context")
        return dev, 0

    def init_and_current(self) -> tuple[int | None, int]:
        """The current device, after the init check: (device, 0) or (None, code)."""
        code = self.check_init()
        if code:
            return None, code
        return self.need_current()

    # ------------------------------------------------------------------ top level
    def init(self, config_path: str | None = None) -> int:
        """``acl.init()``: 100002 when already initialized (ignorable)."""
        if self.initialized:
            return self.fail(C.ACL_ERROR_REPEAT_INITIALIZE, "aclInit was already called")
        code = self.injector.fault("init")
        if code:
            return code
        self.initialized = True
        self.injector.host(1000.0)
        return 0

    def finalize(self) -> int:
        """``acl.finalize()``: releases everything the process still holds."""
        if not self.initialized:
            return self.fail(C.ACL_ERROR_REPEAT_FINALIZE, "aclFinalize without aclInit")
        code = self.injector.fault("finalize")
        if code:  # as a failed aclFinalize: the session stays as it was
            return code
        for dev in sorted(d for d, r in self.refs.items() if r > 0):
            self.released.append(f"device {dev} reset by aclFinalize")
            self.release(dev, why="aclFinalize")
        for hook in self.finalize_hooks:
            hook("aclFinalize")
        self.initialized = False
        self.tls.device = None
        return 0

    def get_soc_name(self) -> str | None:
        """``acl.get_soc_name()``: device 0's SoC name, None before init."""
        return self.topology.soc_name if self.initialized else None

    def get_version(self) -> tuple[int, int, int, int]:
        """``acl.get_version()``: (major, minor, patch, ret) of the simulated runtime."""
        return (9, 0, 0, 0)

    # ------------------------------------------------------------------ devices
    def set_device(self, dev: int) -> int:
        code = self.check_init() or self.check_dev(dev) or self.injector.fault(
            "rt.set_device", (dev,))
        if code:
            return code
        if dev not in self.ever_set:
            self.ever_set.add(dev)
            self.injector.host(FIRST_SET_DEVICE_US)
        if self.refs.get(dev, 0) == 0:
            self.default_streams[dev] = self.engine.new_stream(dev)
        self.refs[dev] = self.refs.get(dev, 0) + 1
        self.tls.device = dev
        self.injector.host(1.0)
        return 0

    def reset_device(self, dev: int) -> int:
        code = self.check_init() or self.check_dev(dev) or self.injector.fault(
            "rt.reset_device", (dev,))
        if code:
            return code
        if self.refs.get(dev, 0) == 0:
            return self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"device {dev} was not set")
        self.refs[dev] -= 1
        if self.refs[dev] == 0:
            self.release(dev, why="aclrtResetDevice")
        return 0

    def reset_device_force(self, dev: int) -> int:
        code = self.check_init() or self.check_dev(dev)
        if code:
            return code
        if self.refs.get(dev, 0) == 0:
            return self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"device {dev} was not set")
        self.release(dev, why="aclrtResetDeviceForce")
        return 0

    def release(self, dev: int, why: str) -> None:
        """What the driver frees when a device's last reference goes."""
        self.engine.all_done_at(dev)
        for hook in self.release_hooks:
            hook(dev, why)
        if dev in self.default_streams:
            self.engine.drop_stream(self.default_streams.pop(dev))
        self.refs[dev] = 0

    def get_device(self) -> tuple[int, int]:
        code = self.check_init()
        if code:
            return 0, code
        dev, code = self.need_current()
        return (dev if dev is not None else 0), code

    def get_context(self) -> tuple[int, int]:
        code = self.check_init()
        if code:
            return 0, code
        dev, code = self.need_current()
        return (0, code) if code or dev is None else (CONTEXT_BASE + dev, 0)

    def set_context(self, ctx: int) -> int:
        code = self.check_init()
        if code:
            return code
        dev = ctx - CONTEXT_BASE
        if not 0 <= dev < self.topology.device_count or self.refs.get(dev, 0) == 0:
            return self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"context {ctx:#x} does not exist")
        self.tls.device = dev
        self.injector.host(0.5)
        if type(ctx) is int:
            self.kept[ctx] = dev
        return 0

    def fast_set_context(self, lock: Any, counts: dict[str, int],
                         checked: Callable[..., int]) -> Callable[..., int]:
        """``acl.rt.set_context``: a context a successful call named (:attr:`kept`) made
        current without the checks, else ``checked`` (the format check, then
        :meth:`set_context`). Under ``lock`` and counted, as every wrapped call is; the
        host clock advances as the checked path advances it.
        """
        kept, tls, injector, engine = self.kept, self.tls, self.injector, self.engine
        faults, host, name = injector.faults, injector.host, "rt.set_context"

        def set_context(*args: Any) -> int:
            lock.acquire()
            try:
                try:
                    counts[name] += 1
                except KeyError:  # the first call
                    counts[name] = 1
                if len(args) == 1 and args[0].__class__ is int:
                    dev = kept.get(args[0])
                    if dev is not None:
                        tls.device = dev
                        if faults:
                            host(0.5)
                        else:
                            engine.host_us += 0.5  # what host() does without faults
                        return 0
                return checked(*args)
            finally:
                lock.release()

        return set_context

    def get_device_count(self) -> tuple[int, int]:
        code = self.check_init() or self.injector.fault("rt.get_device_count")
        return (0, code) if code else (self.topology.device_count, 0)

    def get_devices_topo(self, dev: int, other: int) -> tuple[int, int]:
        code = self.check_init() or self.check_dev(dev) or self.check_dev(other)
        if code:
            return 0, code
        if dev == other:
            return 0, self.fail(C.ACL_ERROR_INVALID_PARAM, "deviceId equals otherDeviceId")
        return C.TOPOLOGY_BITS.get(self.topology.link(dev, other), 0), 0

    def get_device_info(self, dev: int, attr: int) -> tuple[int, int]:
        code = self.check_init() or self.check_dev(dev)
        if code:
            return 0, code
        values = {301: self.topology.memory_bytes, 402: dev, 601: self.topology.npu_arch}
        if attr not in values:
            return 0, self.fail(C.ACL_ERROR_FEATURE_UNSUPPORTED, f"attribute {attr} unsupported")
        # pyACL builds the reply with Py_BuildValue("ii", ...): an int64 value is cut to C int.
        return struct.unpack("i", struct.pack("I", values[attr] & 0xFFFFFFFF))[0], 0
