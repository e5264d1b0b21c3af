"""Peer access around a test: set as the test needs it, put back exactly as it was.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> from ascend_p2p_lab.patterns import make_test
    >>> with open_runtime("sim") as rt:
    ...     with peer_state(rt, make_test("t", ["0->1"], 8)):
    ...         during = rt.peer_refs()
    ...     after = rt.peer_refs()
    >>> during, after
    ({(0, 1): 1, (1, 0): 1}, {})
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..patterns.model import Test
from ..runtime import AclError, Runtime
from ..vocab import ON
from .links import both_directions


class PeerRestoreError(AclError):
    """Peer access could not be put back after a test as it was before; the sweep stops
    there, since later tests would measure with a peer state nobody asked for."""

    def __str__(self) -> str:
        return f"cannot restore peer access after the test: {super().__str__()}"


def _set_refs(rt: Runtime, pair: tuple[int, int], target: int) -> None:
    """Enable or disable pair until this runtime holds target enables of it."""
    while rt.peer_refs().get(pair, 0) > target:
        rt.disable_peer(*pair)
    while rt.peer_refs().get(pair, 0) < target:
        rt.enable_peer(*pair)


def _restore(
    rt: Runtime, before: dict[tuple[int, int], int]
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
def peer_state(rt: Runtime, test: Test) -> Iterator[None]:
    """Peer access as the test needs it, restored afterwards: also after a failure or a
    KeyboardInterrupt, with each restoring call tried twice. A restore that still fails
    raises :class:`PeerRestoreError` (unless an interrupt is on its way)."""
    flows = test.flows
    if not flows or test.waived or test.keep_peer_state:  # no device pair: nothing to set
        yield
        return
    directed = both_directions(flows)  # the driver needs both directions enabled
    held = rt.peer_refs()
    before = {p: held.get(p, 0) for p in directed}
    # "on": one more enable of each direction (the driver counts them); "off": none held.
    during = {p: (before[p] + 1 if test.peer == ON else 0) for p in directed}
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
