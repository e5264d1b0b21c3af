"""Exceptions of the runtime layer: a failed ACL call, a call pyACL lacks, no backend."""

from __future__ import annotations

from ..codes import error_name


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

    def __str__(self) -> str:
        args = ", ".join(_fmt(a) for a in self.call_args)
        text = f"{self.call}({args}) returned {self.code} ({self.name})"
        return f"{text}: {self.message}" if self.message else text

    def __reduce__(self):  # keep it picklable for Dask workers
        return (AclError, (self.call, self.call_args, self.code, self.message))


def _fmt(a: object) -> str:
    return hex(a) if isinstance(a, int) and a > 0xFFFF_FFFF else repr(a)


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
