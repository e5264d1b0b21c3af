"""Contexts: create, destroy, set and get the calling thread's context.

``aclrtSetDevice`` makes a device's default context (and default stream) implicitly and
makes it current; ``aclrtCreateContext`` makes an explicit context on a device, with its
own default stream, holds the device open and makes the context current; a stream belongs
to the context that was current when it was made. What the runtime's source says
(hicann/runtime; see docs/reference/pyacl-api.md, section 11):

- create: an invalid device id -> 107001 (``ContextCreate``: ``RT_ERROR_DEVICE_ID``);
  the new context becomes the thread's current one (its device the current device);
- destroy: handle 0 -> 100000 (the ACL layer's null check); a default context, or a handle
  that is not a live context -> 107002 (``RT_ERROR_CONTEXT_NULL``); the context's streams
  go with it; a thread whose current context it was falls back to the default context of
  the device it set with ``aclrtSetDevice`` [I: the runtime's fallback context];
- set: handle 0 -> 100000; not a live context -> 107000 (``CHECK_CONTEXT_VALID``:
  ``RT_ERROR_INVALID_VALUE``); switching to a context of another device switches the
  device too.

Example:
    >>> from ascend_p2p_lab.sim import simulated_acl
    >>> acl = simulated_acl("atlas800t-a2")
    >>> acl.init(), acl.rt.set_device(0)
    (0, 0)
    >>> ctx, ret = acl.rt.create_context(1)  # current now: device 1
    >>> ret, acl.rt.get_context() == (ctx, 0), acl.rt.get_device()
    (0, True, (1, 0))
    >>> acl.rt.destroy_context(ctx), acl.rt.get_device()  # back to device 0's default
    (0, (0, 0))
    >>> acl.rt.destroy_context(ctx), acl.rt.reset_device(0), acl.finalize()
    (107002, 0, 0)
"""

from __future__ import annotations

from collections.abc import Callable

from .. import codes as C
from .devices import CONTEXT_BASE, Devices
from .part import Part, Shared, pyacl

#: Handles of explicit contexts: EXPLICIT_BASE + 64 * n (apart from every default one).
EXPLICIT_BASE = 0xC8_0000


class Contexts(Part):
    """The context calls over :class:`~.devices.Devices`' thread and device state."""

    def __init__(self, shared: Shared, devices: Devices) -> None:
        super().__init__(shared)
        self.devices = devices
        self._made = 0
        #: called as hook(context, why) when an explicit context goes (its streams)
        self.teardown_hooks: list[Callable[[int, str], None]] = []
        #: called when the thread's context changes in a way the kept calls cannot see
        #: (to or from an explicit context): drops them (``Copies.clear``)
        self.on_switch: list[Callable[[], None]] = []

    @pyacl("rt.create_context", "i")  # rt_context.cpp: WrapAclRtCreateContext "i" -> "ki"
    def create_context(self, dev: int) -> tuple[int, int]:
        devices = self.devices
        code = devices.check_init()
        if code:
            return 0, code
        if not 0 <= dev < self.topology.device_count:
            return 0, self.fail(
                C.ACL_ERROR_RT_INVALID_DEVICEID,
                f"device id {dev} is invalid for a context; "
                f"{self.topology.device_count} devices visible",
            )
        code = self.injector.fault("rt.create_context", (dev,))
        if code:
            return 0, code
        devices.open_device(dev)
        handle = EXPLICIT_BASE + 64 * self._made
        self._made += 1
        devices.explicit[handle] = (dev, self.engine.new_stream(dev))
        devices.tls.context = handle  # tls.device stays the device the thread set
        self.injector.host(10.0)
        return handle, 0

    @pyacl("rt.destroy_context", "k")  # WrapAclRtDestroyContext "k" -> "i"
    def destroy_context(self, ctx: int) -> int:
        devices = self.devices
        code = devices.check_init()
        if code:
            return code
        if ctx == 0:
            return self.fail(C.ACL_ERROR_INVALID_PARAM, "context is a null pointer")
        held = devices.explicit.get(ctx)
        if held is None:
            what = (
                "a default context cannot be destroyed explicitly"
                if self._is_default(ctx)
                else "not a live context"
            )
            return self.fail(C.ACL_ERROR_RT_CONTEXT_NULL, f"context {ctx:#x}: {what}")
        dev, stream = held
        for hook in self.teardown_hooks:
            hook(ctx, "aclrtDestroyContext")
        self.engine.drop_stream(stream)
        del devices.explicit[ctx]
        if devices.tls.context == ctx:
            devices.tls.context = None
        if not devices.is_open(dev):
            devices.release(dev, why="aclrtDestroyContext")
        self.injector.host(10.0)
        return 0

    def _is_default(self, ctx: int) -> bool:
        return 0 <= ctx - CONTEXT_BASE < self.topology.device_count

    @pyacl("rt.get_context", "", keeps_plans=True)
    def get_context(self) -> tuple[int, int]:
        devices = self.devices
        code = devices.check_init()
        if code:
            return 0, code
        dev, code = devices.need_current()
        return (0, code) if code or dev is None else (devices.context_handle(dev), 0)

    @pyacl("rt.set_context", "k", keeps_plans=True)
    def set_context(self, ctx: int) -> int:
        devices = self.devices
        code = devices.check_init()
        if code:
            return code
        if ctx == 0:
            return self.fail(C.ACL_ERROR_INVALID_PARAM, "context is a null pointer")
        tls = devices.tls
        held = devices.explicit.get(ctx)
        if held is not None:
            tls.context = ctx
            self._switched()
            self.injector.host(0.5)
            return 0
        dev = ctx - CONTEXT_BASE
        if not self._is_default(ctx) or devices.refs.get(dev, 0) == 0:
            return self.fail(C.ACL_ERROR_RT_PARAM_INVALID, f"context {ctx:#x} does not exist")
        if tls.context is not None:
            self._switched()
        tls.device, tls.context = dev, None
        self.injector.host(0.5)
        if type(ctx) is int:
            devices.kept[ctx] = dev
        return 0

    def _switched(self) -> None:
        for hook in self.on_switch:
            hook()
