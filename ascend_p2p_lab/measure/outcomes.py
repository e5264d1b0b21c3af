"""What went wrong with a point, as data: a kind, an ACL code and the call, beside a sentence.

Every row a sweep writes carries ``error_kind`` (see :data:`~ascend_p2p_lab.results.
ERROR_KINDS`), ``error_code`` (the ACL return code, or missing), ``error_call`` (the pyACL
call) and ``error`` (text for people). Figures, summaries, the dashboard and exit codes
group on the first three; nothing parses the text.

Example:
    >>> from ascend_p2p_lab.runtime import AclError
    >>> f = from_exception(AclError("acl.rt.memcpy_async", (), 507013, "dma"))
    >>> f.kind, f.code, f.call
    ('runtime', 507013, 'acl.rt.memcpy_async')
"""

from __future__ import annotations

from ..patterns.model import Failure, unreachable
from ..runtime import AclError, MissingCall

__all__ = [
    "Failure",
    "device_lost",
    "direct_copy_failure",
    "from_exception",
    "missing_calls",
    "unreachable",
    "verification_failed",
    "worker_lost",
]


def from_exception(exc: BaseException, kind: str = "runtime") -> Failure:
    """A failure from what a call raised: MissingCall -> ``missing_call``, else ``kind``."""
    if isinstance(exc, MissingCall):
        return Failure("missing_call", str(exc), None, exc.call)
    if isinstance(exc, AclError):
        return Failure(kind, str(exc), exc.code, exc.call)
    return Failure(kind, f"{type(exc).__name__}: {exc}")


def direct_copy_failure(exc: AclError) -> Failure:
    """A direct copy with peer access off that the runtime did not do: a refusal (the
    result this case measures), unless the code says the device is broken. The text names
    no pointers or devices, so that the pairs refused alike read alike."""
    kind = "refused" if exc.from_copy and not exc.device_fault else "runtime"
    return Failure(
        kind, f"{exc.name} ({exc.code}) from {exc.call}: {exc.message}", exc.code, exc.call
    )


def missing_calls(calls: list[str]) -> Failure:
    """The point needs calls the installed pyACL lacks."""
    return Failure("missing_call", "the installed pyACL has no " + ", ".join(calls), None, calls[0])


def verification_failed(src: int | None, dst: int | None) -> Failure:
    """The destination does not hold what the source sent (None: pinned host memory).

    Example:
        >>> verification_failed(None, 1).message
        "data verification failed: the bytes at device 1 differ from the host buffer's pattern"
    """
    at = "pinned host memory" if dst is None else f"device {dst}"
    of = "the host buffer's" if src is None else f"device {src}'s"
    return Failure(
        "verification", f"data verification failed: the bytes at {at} differ from {of} pattern"
    )


def device_lost(dev: int, cause: Failure) -> Failure:
    """A point skipped because one of its devices was lost earlier in the run."""
    return Failure(
        "device_lost",
        f"not measured: device {dev} was lost earlier in this run ({cause.message})",
        cause.code,
        cause.call,
    )


def worker_lost(message: str) -> Failure:
    """A point of ``sweep --processes`` whose worker process died or did not answer."""
    return Failure("worker_lost", message)
