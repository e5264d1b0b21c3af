"""Groups of devices that copy at once: ``--groups 0,1:2,3`` and the cards of a server.

A group pair ``(A, B)`` sends from every device of A to every device of B at the same
time (``ascend-dmi -m card`` does this for the two dies of one Atlas A3 card and the two
of another). A *card* is a set of devices the topology joins by a card's own bus (SIO
between the two dies of a 910C package); a device no such link touches is a card alone.

Pure: a server is anything with ``device_count`` and ``link_class(a, b)`` (a
:class:`~ascend_p2p_lab.runtime.Runtime`, or a topology view).

Example:
    >>> parse_groups("0,1:2,3", 16)
    [((0, 1), (2, 3))]
    >>> group_name((0, 1), (2, 3))
    '0,1->2,3'
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim", "atlas800t-a3") as rt:
    ...     cards_of(rt)[:2]
    [(0, 1), (2, 3)]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol

from ..vocab import CARD_LINKS, UNI

#: Separates group pairs in a ``--groups`` string; ``:`` separates the two groups.
PAIR_SEPARATOR = ";"

Group = tuple[int, ...]
GroupPair = tuple[Group, Group]


class Server(Protocol):
    """What the generators of tests read of a server (a Runtime has it)."""

    @property
    def device_count(self) -> int: ...

    def link_class(self, src: int, dst: int) -> str: ...


def group_name(a: Sequence[int], b: Sequence[int]) -> str:
    """How a row names the groups of its copy: sender devices ``->`` receiver devices.

    Example:
        >>> group_name([4], [6, 7])
        '4->6,7'
    """
    return f"{','.join(map(str, a))}->{','.join(map(str, b))}"


def parse_group_name(text: str, device_count: int) -> GroupPair:
    """A group pair written as rows name it (``"0,1->2,3"``, as a criteria file's
    ``group`` key holds it): senders, then receivers, checked against the devices. Rows
    and items carry the pair as ``senders``/``receivers``; only a file's text is parsed.

    Example:
        >>> parse_group_name(" 0,1 -> 2,3 ", 16)
        ((0, 1), (2, 3))
    """
    halves = str(text).split("->")
    if len(halves) != 2:
        raise ValueError(
            f"cannot read group {text!r}: write the senders, ->, the receivers (e.g. 0,1->2,3)"
        )
    a, b = (_group(h, device_count, str(text)) for h in halves)
    return a, b


def _group(text: str, device_count: int, whole: str) -> Group:
    ids: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        m = re.fullmatch(r"(\d+)(?:\s*-\s*(\d+))?", part)
        if not m or (m.group(2) is not None and int(m.group(2)) < int(m.group(1))):
            raise ValueError(
                f"cannot read groups {whole!r}: use e.g. 0,1:2,3 (devices 0 and 1 "
                "send to 2 and 3 at once), several separated by ;"
            )
        ids += range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1)
    return _checked(ids, device_count, whole)


def _checked(ids: Sequence[Any], device_count: int, whole: str) -> Group:
    for d in ids:
        if isinstance(d, bool) or not isinstance(d, int):
            raise TypeError(f"device {d!r} in groups {whole} must be an int")
        if not 0 <= d < device_count:
            raise ValueError(f"device {d} in groups {whole} is out of range 0..{device_count - 1}")
    if not ids:
        raise ValueError(f"a group in {whole} is empty")
    return tuple(dict.fromkeys(ids))


def parse_groups(
    spec: str | Sequence[Sequence[Sequence[int]]] | None, device_count: int
) -> list[GroupPair] | None:
    """Group pairs from ``"0,1:2,3"`` (several separated by ``;``, ranges as ``0-3``) or
    from ``[((0, 1), (2, 3))]``; the two groups of a pair share no device.

    Example:
        >>> parse_groups("0-1:2-3; 4:5,6", 8)
        [((0, 1), (2, 3)), ((4,), (5, 6))]
    """
    if spec is None:
        return None
    pairs: list[GroupPair] = []
    if isinstance(spec, str):
        for item in (s.strip() for s in spec.split(PAIR_SEPARATOR) if s.strip()):
            halves = item.split(":")
            if len(halves) != 2:
                raise ValueError(
                    f"cannot read groups {item!r}: give two groups separated by :, e.g. 0,1:2,3"
                )
            a, b = (_group(h, device_count, item) for h in halves)
            pairs.append((a, b))
    else:
        for item in spec:
            if len(item) != 2:
                raise ValueError(f"a group pair has two groups; got {item!r}")
            a, b = (_checked(list(g), device_count, str(item)) for g in item)
            pairs.append((a, b))
    if not pairs:
        raise ValueError("the group list is empty")
    for a, b in pairs:
        shared = sorted(set(a) & set(b))
        if shared:
            raise ValueError(
                f"groups {group_name(a, b)} share device "
                f"{','.join(map(str, shared))}; a device sends or receives"
            )
    return list(dict.fromkeys(pairs))


def cards_of(rt: Server, devices: Sequence[int] | None = None) -> list[Group]:
    """The cards among devices (all by default): devices joined by a card link
    (:data:`CARD_LINKS`), each card in device order; a device on no such link is a card
    alone."""
    used = list(range(rt.device_count)) if devices is None else list(devices)
    card: dict[int, int] = {d: d for d in used}  # device -> its card's first device

    def root(d: int) -> int:
        while card[d] != d:
            d = card[d]
        return d

    for a in used:
        for b in used:
            if a < b and rt.link_class(a, b) in CARD_LINKS:
                ra, rb = root(a), root(b)
                card[max(ra, rb)] = min(ra, rb)
    members: dict[int, list[int]] = {}
    for d in used:
        members.setdefault(root(d), []).append(d)
    return [tuple(sorted(m)) for _, m in sorted(members.items())]


def card_pairs(cards: Sequence[Group], direction: str) -> list[GroupPair]:
    """Every ordered pair of cards (uni), or every unordered one (bi: both ways at once).

    Example:
        >>> card_pairs([(0, 1), (2, 3), (4, 5)], "bi")
        [((0, 1), (2, 3)), ((0, 1), (4, 5)), ((2, 3), (4, 5))]
    """
    return [
        (a, b)
        for i, a in enumerate(cards)
        for j, b in enumerate(cards)
        if i != j and (direction == UNI or i < j)
    ]
