"""Peer access around a block: set as the block needs it, put back exactly as it was.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> from ascend_p2p_lab.measure.plan import Block
    >>> with open_runtime("sim") as rt:
    ...     with peer_state(rt, Block("pair", "uni", "on", "p2p", 0, 1, "HCCS")):
    ...         during = rt.peer_refs()
    ...     after = rt.peer_refs()
    >>> during, after
    ({(0, 1): 1, (1, 0): 1}, {})
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..runtime import AclError, Runtime
from ..schema import HOST_PATTERNS, LOCAL_PATTERN
from .links import both_directions
from .plan import Block


class PeerRestoreError(AclError):
    """Peer access could not be put back after a block as it was before; the sweep stops
    there, since later blocks would measure with a peer state nobody asked for."""

    def __str__(self) -> str:
        return f"cannot restore peer access after the block: {super().__str__()}"


def _set_refs(rt: Runtime, pair: tuple[int, int], target: int) -> None:
    """Enable or disable pair until this runtime holds target enables of it."""
    while rt.peer_refs().get(pair, 0) > target:
        rt.disable_peer(*pair)
    while rt.peer_refs().get(pair, 0) < target:
        rt.enable_peer(*pair)


def _restore(rt: Runtime, before: dict[tuple[int, int], int]
             ) -> tuple[BaseException | None, BaseException | None]:
    """Put each direction back to its enables in before, trying each twice; returns
    (a KeyboardInterrupt that arrived meanwhile, the error that remains)."""
    interrupt: BaseException | None = None
    failure: BaseException | None = None
    for pair, refs in before.items():
        for attempt in range(2):
            try:
                _set_refs(rt, pair, refs)
                break
            except KeyboardInterrupt as exc:
                interrupt = interrupt or exc
            except Exception as exc:
                if attempt:
                    failure = failure or exc
    return interrupt, failure


def _restore_error(failure: BaseException) -> BaseException:
    if isinstance(failure, AclError) and not isinstance(failure, PeerRestoreError):
        return PeerRestoreError(failure.call, failure.call_args, failure.code, failure.message)
    return failure


@contextmanager
def peer_state(rt: Runtime, block: Block) -> Iterator[None]:
    """Peer access as the block needs it, restored afterwards: also after a failure or a
    KeyboardInterrupt, with each restoring call tried twice. A restore that still fails
    raises :class:`PeerRestoreError` (unless an interrupt is on its way)."""
    if block.pattern == LOCAL_PATTERN or block.pattern in HOST_PATTERNS or block.failure \
            or block.keep_peer_state:  # one device: no peer access to set
        yield
        return
    directed = both_directions(block.flows)  # the driver needs both directions enabled
    held = rt.peer_refs()
    before = {p: held.get(p, 0) for p in directed}
    # "on": one more enable of each direction (the driver counts them); "off": none held.
    during = {p: (before[p] + 1 if block.peer == "on" else 0) for p in directed}
    try:
        for pair in directed:
            _set_refs(rt, pair, during[pair])
        yield
    except BaseException as exc:
        interrupt, failure = _restore(rt, before)
        if interrupt is not None and interrupt is not exc:
            raise interrupt from exc
        if failure is not None and not isinstance(exc, KeyboardInterrupt):
            raise _restore_error(failure) from exc
        raise
    interrupt, failure = _restore(rt, before)
    if interrupt is not None:
        raise interrupt
    if failure is not None:
        raise _restore_error(failure)
