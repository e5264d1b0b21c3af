"""Exceptions of the runtime layer: a failed ACL call, a call pyACL lacks, no backend."""

from __future__ import annotations

from ..codes import DEVICE_FAULT_CODES, DEVICE_LOST_CODES, error_name

#: The pyACL calls that copy memory.
COPY_CALLS = frozenset({"acl.rt.memcpy", "acl.rt.memcpy_async"})


class AclError(RuntimeError):
    """A pyACL call returned non-zero.

    Carries the call, its arguments, the numeric code, its symbolic name and the
    runtime's recent error message (``acl.get_recent_err_msg()``).

    Example:
        >>> e = AclError("acl.rt.malloc", (4096, 3), 107002, "no context")
        >>> str(e)
        'acl.rt.malloc(4096, 3) returned 107002 (ACL_ERROR_RT_CONTEXT_NULL): no context'
    """

    def __init__(self, call: str, args: tuple[object, ...], code: int, message: str = "") -> None:
        self.call = call
        self.call_args = tuple(args)
        self.code = int(code)
        self.name = error_name(code)
        self.message = message.strip()
        super().__init__(str(self))

    @property
    def device_fault(self) -> bool:
        """The code says a device or its link is broken (not that a request was refused)."""
        return self.code in DEVICE_FAULT_CODES

    @property
    def device_lost(self) -> bool:
        """The code says the device takes no more work in this process."""
        return self.code in DEVICE_LOST_CODES

    @property
    def from_copy(self) -> bool:
        """The failed call was a memory copy (aclrtMemcpy or aclrtMemcpyAsync)."""
        return self.call in COPY_CALLS

    def __str__(self) -> str:
        args = ", ".join(
            hex(a) if isinstance(a, int) and a > 0xFFFF_FFFF else repr(a) for a in self.call_args
        )
        text = f"{self.call}({args}) returned {self.code} ({self.name})"
        return f"{text}: {self.message}" if self.message else text

    def __reduce__(self):  # keep it picklable for Dask workers
        return (AclError, (self.call, self.call_args, self.code, self.message))


class MissingCall(RuntimeError):
    """The installed pyACL has no such call (an older CANN release, say).

    Example:
        >>> str(MissingCall("acl.rt.stream_wait_event"))
        'the installed pyACL has no acl.rt.stream_wait_event'
    """

    code = None

    def __init__(self, call: str) -> None:
        self.call = call
        super().__init__(f"the installed pyACL has no {call}")

    def __reduce__(self):
        return (MissingCall, (self.call,))


class BackendUnavailable(RuntimeError):
    """The requested backend cannot be used here (for example, pyACL is not installed)."""
