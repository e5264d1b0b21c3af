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

from .. import codes as C
from .engine import Stream
from .part import Part, Shared, pyacl

#: Host time of the first aclrtSetDevice of a device in a process (op upload, AICPU start).
FIRST_SET_DEVICE_US = 200_000.0
#: Default context handle of device d: CONTEXT_BASE + d.
CONTEXT_BASE = 0xC7_0000


class CurrentDevice(threading.local):
    """The device the calling thread set (None until it sets one) and its current
    context: None for that device's default context, else an explicit context's handle
    (whose device is then the current device)."""

    device: int | None = None
    context: int | None = None


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
        #: explicit contexts (aclrtCreateContext): handle -> (device, its default stream);
        #: each holds its device open, as the runtime's DeviceRetain does
        self.explicit: dict[int, tuple[int, Stream]] = {}

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
        """The current device, if it is set: (device, 0) or (None, code). The thread's
        explicit context names it; without one (or once it was destroyed) the device the
        thread set, while its default context lives."""
        tls = self.tls
        ctx = tls.context
        if ctx is not None:
            held = self.explicit.get(ctx)
            if held is not None:
                return held[0], 0
            tls.context = None  # destroyed: back to the device's default context
        dev = tls.device
        if dev is None or self.refs.get(dev, 0) == 0:
            return None, self.fail(C.ACL_ERROR_RT_CONTEXT_NULL, "no current device or context")
        return dev, 0

    def context_handle(self, dev: int) -> int:
        """The handle of the calling thread's current context on dev (its device)."""
        ctx = self.tls.context
        return ctx if ctx is not None and ctx in self.explicit else CONTEXT_BASE + dev

    def default_stream(self, dev: int) -> Stream | None:
        """The default stream of the calling thread's current context on dev."""
        ctx = self.tls.context
        held = self.explicit.get(ctx) if ctx is not None else None
        return held[1] if held is not None else self.default_streams.get(dev)

    def is_open(self, dev: int) -> bool:
        """Whether dev is set (aclrtSetDevice) or held by an explicit context."""
        return self.refs.get(dev, 0) > 0 or any(d == dev for d, _ in self.explicit.values())

    def open_device(self, dev: int) -> None:
        """What the first reference to a device makes: its default context and stream
        (and the first aclrtSetDevice's host cost)."""
        if dev not in self.ever_set:
            self.ever_set.add(dev)
            self.injector.host(FIRST_SET_DEVICE_US)
        if not self.is_open(dev):
            self.default_streams[dev] = self.engine.new_stream(dev)

    def init_and_current(self) -> tuple[int | None, int]:
        """The current device, after the init check: (device, 0) or (None, code)."""
        code = self.check_init()
        if code:
            return None, code
        return self.need_current()

    # ------------------------------------------------------------------ top level
    @pyacl("init", "|z")
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

    @pyacl("finalize", "")
    def finalize(self) -> int:
        """``acl.finalize()``: releases everything the process still holds."""
        if not self.initialized:
            return self.fail(C.ACL_ERROR_REPEAT_FINALIZE, "aclFinalize without aclInit")
        code = self.injector.fault("finalize")
        if code:  # as a failed aclFinalize: the session stays as it was
            return code
        held = {d for d, r in self.refs.items() if r > 0} | {d for d, _ in self.explicit.values()}
        for dev in sorted(held):
            self.released.append(f"device {dev} reset by aclFinalize")
            self.release(dev, why="aclFinalize")
        for hook in self.finalize_hooks:
            hook("aclFinalize")
        self.initialized = False
        self.tls.device = self.tls.context = None
        return 0

    @pyacl("get_soc_name", "", locked=False)
    def get_soc_name(self) -> str | None:
        """``acl.get_soc_name()``: device 0's SoC name, None before init."""
        return self.topology.soc_name if self.initialized else None

    @pyacl("get_version", "", locked=False)
    def get_version(self) -> tuple[int, int, int, int]:
        """``acl.get_version()``: (major, minor, patch, ret) of the simulated runtime."""
        return (9, 0, 0, 0)

    # ------------------------------------------------------------------ devices
    @pyacl("rt.set_device", "i")
    def set_device(self, dev: int) -> int:
        code = (
            self.check_init() or self.check_dev(dev) or self.injector.fault("rt.set_device", (dev,))
        )
        if code:
            return code
        self.open_device(dev)
        self.refs[dev] = self.refs.get(dev, 0) + 1
        self.tls.device, self.tls.context = dev, None  # its default context is current
        self.injector.host(1.0)
        return 0

    @pyacl("rt.reset_device", "i")
    def reset_device(self, dev: int) -> int:
        code = (
            self.check_init()
            or self.check_dev(dev)
            or self.injector.fault("rt.reset_device", (dev,))
        )
        if code:
            return code
        if self.refs.get(dev, 0) == 0:
            return self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"device {dev} was not set")
        self.refs[dev] -= 1
        if not self.is_open(dev):  # explicit contexts still hold it open
            self.release(dev, why="aclrtResetDevice")
        return 0

    @pyacl("rt.reset_device_force", "i", newer=True)
    def reset_device_force(self, dev: int) -> int:
        code = self.check_init() or self.check_dev(dev)
        if code:
            return code
        if self.refs.get(dev, 0) == 0:
            return self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"device {dev} was not set")
        self.release(dev, why="aclrtResetDeviceForce")
        return 0

    def release(self, dev: int, why: str) -> None:
        """What the driver frees when a device's last reference goes (a forced reset
        takes its explicit contexts too)."""
        self.engine.all_done_at(dev)
        for ctx, (d, stream) in list(self.explicit.items()):
            if d == dev:
                self.released.append(f"context {ctx:#x} destroyed by {why}")
                self.engine.drop_stream(stream)
                del self.explicit[ctx]
        for hook in self.release_hooks:
            hook(dev, why)
        if dev in self.default_streams:
            self.engine.drop_stream(self.default_streams.pop(dev))
        self.refs[dev] = 0

    @pyacl("rt.get_device", "", keeps_plans=True)
    def get_device(self) -> tuple[int, int]:
        code = self.check_init()
        if code:
            return 0, code
        dev, code = self.need_current()
        return (dev if dev is not None else 0), code

    @pyacl("rt.get_run_mode", "", keeps_plans=True)  # WrapAclRtGetRunMode -> "ii"
    def get_run_mode(self) -> tuple[int, int]:
        """``acl.rt.get_run_mode()``: (ACL_HOST, 0): the application runs on the host of an
        Atlas server (``aclrtGetRunModeImpl`` checks no aclInit: device.cpp)."""
        return C.ACL_HOST, 0

    @pyacl("rt.get_device_count", "", keeps_plans=True)
    def get_device_count(self) -> tuple[int, int]:
        code = self.check_init() or self.injector.fault("rt.get_device_count")
        return (0, code) if code else (self.topology.device_count, 0)

    @pyacl("rt.get_devices_topo", "ii", keeps_plans=True, newer=True)
    def get_devices_topo(self, dev: int, other: int) -> tuple[int, int]:
        code = self.check_init() or self.check_dev(dev) or self.check_dev(other)
        if code:
            return 0, code
        if dev == other:
            return 0, self.fail(C.ACL_ERROR_INVALID_PARAM, "deviceId equals otherDeviceId")
        return C.TOPOLOGY_BITS.get(self.topology.link(dev, other), 0), 0

    @pyacl("rt.get_device_info", "ii", keeps_plans=True)
    def get_device_info(self, dev: int, attr: int) -> tuple[int, int]:
        code = self.check_init() or self.check_dev(dev)
        if code:
            return 0, code
        values = {301: self.topology.memory_bytes, 402: dev, 601: self.topology.npu_arch}
        if attr not in values:
            return 0, self.fail(C.ACL_ERROR_FEATURE_UNSUPPORTED, f"attribute {attr} unsupported")
        # pyACL builds the reply with Py_BuildValue("ii", ...): an int64 value is cut to C int.
        return struct.unpack("i", struct.pack("I", values[attr] & 0xFFFFFFFF))[0], 0
