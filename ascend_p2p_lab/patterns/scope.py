"""The server as a pattern's generator sees it, and what the generator expands over.

A generator never holds the runtime: it reads a :class:`Planning` (device count, link
classes, which pairs can reach each other, which directions hold peer access now), which
:class:`ServerView` makes of a runtime, and the sweep's choices in a :class:`Scope`.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim", "atlas800t-a2") as rt:
    ...     scope = Scope(ServerView(rt), (0, 1, 2))
    ...     scope.server.can(0, 1), scope.directions
    (True, ('uni',))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..vocab import DST, ON, UNI
from .cards import GroupPair
from .model import Failure, Test, unreachable


class Planning(Protocol):
    """The server as a generator sees it: its devices, link classes, which pairs can reach
    each other (asked once per sweep) and which directions hold peer access now."""

    @property
    def device_count(self) -> int: ...

    def link_class(self, src: int, dst: int) -> str: ...

    def can(self, src: int, dst: int) -> bool: ...

    def held(self, src: int, dst: int) -> bool: ...

    def refusal(self, src: int, dst: int) -> Failure:
        """Why ``src`` cannot reach ``dst``: the probe said no, or the probe failed."""
        ...


@dataclass(frozen=True)
class Scope:
    """What a generator expands over: the server, the devices it may use, the ordered
    pairs, and the sweep's directions, peer modes (``on``, ``off``, ``current``),
    initiator (who issues a pair's copies), groups and tests."""

    server: Planning
    devices: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...] = ()
    directions: tuple[str, ...] = (UNI,)
    peers: tuple[str, ...] = (ON,)
    initiator: str = DST
    groups: tuple[GroupPair, ...] | None = None
    tests: tuple[Test, ...] | None = None
    #: the devices the sweep was limited to (None: all); cards are found among them
    chosen: tuple[int, ...] | None = None
    #: the collectives of the sweep, made from the server's topology by the plan
    #: (``collectives.programs.collective_tests``: one test per operation and size)
    collectives: tuple[Test, ...] | None = None


class ServerView:
    """A runtime as the generators see it (:class:`Planning`): its link classes and the
    peer access it holds now, read from it, and whether each ordered pair can reach the
    other, asked once per pair. ``ask_all``: ask every ordered pair at once, first (a
    sweep's plan does, so that its calls come in one known order). ``failure_of``: turns
    what a pair's probe raised into that pair's :class:`Failure` (None: raise it), so
    that a failed ``aclrtDeviceCanAccessPeer`` costs that pair, not the sweep.

    Example:
        >>> from ascend_p2p_lab.runtime import open_runtime
        >>> with open_runtime("sim", "atlas300i-duo") as rt:
        ...     view = ServerView(rt, ask_all=True)
        ...     view.can(0, 1), view.can(1, 2), len(view.pairs)
        (True, False, 56)
    """

    def __init__(
        self,
        rt: Any,
        *,
        ask_all: bool = False,
        failure_of: Callable[[Exception], Failure | None] | None = None,
    ) -> None:
        self.rt = rt
        self._can: dict[tuple[int, int], bool] = {}
        self._failed: dict[tuple[int, int], Failure] = {}
        self._failure_of = failure_of
        if ask_all:
            for a, b in self.pairs:
                self.can(a, b)

    @property
    def device_count(self) -> int:
        return int(self.rt.device_count)

    @property
    def pairs(self) -> tuple[tuple[int, int], ...]:
        """Every ordered pair of the server's devices."""
        n = self.device_count
        return tuple((a, b) for a in range(n) for b in range(n) if a != b)

    def link_class(self, src: int, dst: int) -> str:
        return str(self.rt.link_class(src, dst))

    def can(self, src: int, dst: int) -> bool:
        if (src, dst) not in self._can:
            try:
                self._can[(src, dst)] = bool(self.rt.can_access_peer(src, dst))
            except Exception as exc:
                failure = self._failure_of(exc) if self._failure_of else None
                if failure is None:
                    raise
                self._failed[(src, dst)] = failure
                self._can[(src, dst)] = False
        return self._can[(src, dst)]

    def refusal(self, src: int, dst: int) -> Failure:
        """The probe's failure for the pair if it failed, else its answer 0.

        Example:
            >>> from ascend_p2p_lab.runtime import open_runtime
            >>> with open_runtime("sim", "atlas300i-duo") as rt:
            ...     ServerView(rt).refusal(1, 2).kind
            'unreachable'
        """
        return self._failed.get((src, dst)) or unreachable(src, dst, self.link_class(src, dst))

    def held(self, src: int, dst: int) -> bool:
        return bool(self.rt.peer_enabled(src, dst))
