"""Every built-in measurement, declared once: a name, what it measures, how it is timed,
how its values add up, how its matrix is laid out, the traits readers draw and judge it
by, and the generator that expands a server's devices into :class:`~.model.Test` s.

nvbandwidth's testcase (key, description, filter, run) and TransferBench's presets (each a
list of Transfers run by one executor) are the model: ``sweep --patterns``, ``run NAME``,
``patterns``, the command line's choices and help, the plan, the rows, the matrices, the
figures, ``check`` and ``calibrate`` read these declarations and never compare a name.

A generator takes a :class:`~.scope.Scope` (the server as the plan sees it, and the sweep's
choices: devices, pairs, directions, peer modes, initiator, groups, tests) and returns its
tests in the order they run; a test it cannot run carries why (``waived``), so that no
planned point is a silent gap.

- ``values``: see :mod:`.model` (each, per_copy, sum, sum_per_direction, transfers);
- ``layout``: ``device`` (a device x device matrix), ``card`` (card x card), ``none``;
- ``row_pattern``: the ``pattern`` column of its rows (its own name, or ``test`` for the
  generated tests of transfers such as ``ring``).

Example:
    >>> [d.name for d in DECLARATIONS.values()][:3]
    ['pair', 'latency', 'local']
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim", "atlas800t-a2") as rt:
    ...     [str(t) for t in expand(rt, "ring", [0, 1, 2])[0].transfers]
    ['0->1', '1->2', '2->0']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..codes import CAN_ACCESS_PEER_CALL
from ..texttable import Column, row_line
from ..vocab import (
    ALL_TO_ONE,
    BI,
    CARD,
    COLLECTIVE,
    CURRENT,
    D2H,
    DIRECT,
    DST,
    GROUP,
    H2D,
    HOST_PATH,
    LATENCY,
    LOCAL,
    LOCAL_PATH,
    OFF,
    ON,
    ONE_TO_ALL,
    P2P,
    PAIR,
    SRC,
    STAGED,
    TEST,
    UNI,
)
from .cards import card_pairs, cards_of, group_name
from .model import (
    EACH,
    INTERLEAVED,
    PER_COPY,
    PER_PHASE,
    PHASES,
    SUM,
    SUM_PER_DIRECTION,
    TRANSFERS,
    WINDOW,
    End,
    Failure,
    Test,
    Transfer,
)
from .model import STAGED as STAGED_TIMING
from .scope import Planning, Scope, ServerView

#: The copy size of a built-in run by name (``run NAME``), or printed as a test file.
BUILT_IN_SIZE = "256MiB"
#: A built-in's line in ``ascend-p2p-lab patterns``: its name, then what it measures.
LINE_COLUMNS = (Column(width=11), Column(gap=" "))


Generator = Callable[[Scope], list[Test]]


@dataclass(frozen=True)
class Declaration:
    """One built-in: what ``patterns`` lists, what the plan expands, what readers read."""

    name: str
    description: str
    values: str
    generate: Generator
    timing: str = WINDOW
    #: the rows' ``pattern`` column: the declaration's name, or ``test``
    row_pattern: str = ""
    on_pairs: bool = False  # measured on the ordered pairs of the sweep (``pairs``)
    within: bool = False  # a copy within one device (the matrix diagonal)
    center: str | None = None  # a fan-out: its device pushes (src) or pulls (dst)
    host_end: str | None = None  # a host copy: the host is the source (src) or dst
    grouped: bool = False  # every device of one set to every device of another
    on_cards: bool = False  # its sets are the server's cards (card x card matrices)
    needs_groups: bool = False  # its sets are the sweep's ``groups``
    needs_tests: bool = False  # its tests are the sweep's ``tests`` (a test file)
    #: its tests are the sweep's collectives (``operations``, made from the topology)
    needs_collectives: bool = False
    #: printable as a test file of its transfers (``patterns NAME``)
    as_file: bool = True

    @property
    def pattern(self) -> str:
        """The ``pattern`` column of its rows."""
        return self.row_pattern or self.name

    @property
    def per_copy(self) -> bool:
        return self.values == PER_COPY

    @property
    def of_transfers(self) -> bool:
        return self.values == TRANSFERS

    def cells(self) -> list[str]:
        """Its cells in ``ascend-p2p-lab patterns``: the name, what it measures [values]."""
        return [self.name, f"{self.description} [{self.values}]"]

    def line(self) -> str:
        """One line of ``ascend-p2p-lab patterns``: the name first."""
        return row_line(self.cells(), LINE_COLUMNS)


# ---------------------------------------------------------------- generators
def _unordered(pairs: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    return list(dict.fromkeys((min(a, b), max(a, b)) for a, b in pairs))


def _one_pair(a: int, b: int, initiator: str, pattern: str, values: str, direction: str) -> Test:
    ways = [(a, b)] if direction == UNI else [(a, b), (b, a)]
    transfers = tuple(Transfer(x, y, y if initiator == DST else x) for x, y in ways)
    return Test(
        f"{a}-{b}",
        transfers,
        pattern=pattern,
        values=values,
        direction=direction,
        timing=WINDOW if direction == UNI else INTERLEAVED,
    )


def one_pair(src: int, dst: int, initiator: str = DST) -> Test:
    """The pair pattern's test of one ordered pair, one way, peer access on: what
    ``sweep --processes`` measures across processes.

    Example:
        >>> one_pair(2, 5, "src").key, str(one_pair(2, 5, "src").transfers[0])
        ('pair/uni/on/p2p/2-5', '2->5 by 2')
    """
    return _one_pair(src, dst, initiator, PAIR, EACH, UNI)


def refusal(server: Planning, x: int, y: int) -> Failure:
    """Why the pair x, y cannot copy both ways: the direction that cannot reach the other
    (its probe's answer 0, or the probe's failure).

    Example:
        >>> from ascend_p2p_lab.runtime import open_runtime
        >>> with open_runtime("sim", "atlas300i-duo") as rt:
        ...     refusal(ServerView(rt), 1, 2).message
        'cannot access peer: aclrtDeviceCanAccessPeer(1, 2) = 0 (link SYS)'
    """
    return server.refusal(x, y) if not server.can(x, y) else server.refusal(y, x)


def _pair_tests(
    scope: Scope, pattern: str, values: str, peer: str, direction: str, a: int, b: int
) -> list[Test]:
    """One pair in one peer mode: P2P (waived when the pair cannot reach each other),
    with peer access off a direct copy and (one way) the host-staged path, or as the
    runtime holds it (``current``)."""
    server = scope.server
    base = _one_pair(a, b, scope.initiator, pattern, values, direction)
    if peer == CURRENT:
        held = server.held(a, b) and server.held(b, a)
        return [
            base.at(peer=ON if held else OFF, path=P2P if held else DIRECT, keep_peer_state=True)
        ]
    if peer == ON:
        if server.can(a, b) and (direction == UNI or server.can(b, a)):
            return [base]
        return [base.at(waived=refusal(server, a, b))]
    out = [base.at(peer=OFF, path=DIRECT)]
    if direction == UNI:
        out.append(base.at(peer=OFF, path=STAGED, timing=STAGED_TIMING))
    return out


def _pair(scope: Scope) -> list[Test]:
    return [
        t
        for peer in scope.peers
        for direction in scope.directions
        for a, b in (scope.pairs if direction == UNI else _unordered(scope.pairs))
        for t in _pair_tests(scope, PAIR, EACH, peer, direction, a, b)
    ]


def _latency(scope: Scope) -> list[Test]:
    return [
        t
        for peer in scope.peers
        for a, b in scope.pairs
        for t in _pair_tests(scope, LATENCY, PER_COPY, peer, UNI, a, b)
    ]


def _local(scope: Scope) -> list[Test]:
    return [
        Test(
            f"{d}-{d}", (Transfer(d, d, d),), pattern=LOCAL, values=EACH, peer=OFF, path=LOCAL_PATH
        )
        for d in scope.devices
    ]


def _fanout(pattern: str, pushes: bool) -> Generator:
    def tests(scope: Scope) -> list[Test]:
        out, can = [], scope.server.can
        for d in scope.devices:
            peers = [p for p in scope.devices if p != d and can(d, p) and can(p, d)]
            ways = [(d, p) if pushes else (p, d) for p in peers]
            end: End = (d, None, None, None) if pushes else (None, d, None, None)
            failed = [
                f
                for p in scope.devices
                if p != d
                for f in (refusal(scope.server, d, p),)
                if f.kind != "unreachable"
            ]
            alone = f"device {d} has no peer it can access both ways"
            failed.append(Failure("unreachable", alone, None, CAN_ACCESS_PEER_CALL))
            waived = None if peers else failed[0]
            out.append(
                Test(
                    f"{d}-" if pushes else f"-{d}",
                    tuple(Transfer(x, y, d) for x, y in ways),
                    pattern=pattern,
                    values=SUM,
                    ends=(end,),
                    waived=waived,
                )
            )
        return out

    return tests


def _host(pattern: str, to_device: bool) -> Generator:
    def tests(scope: Scope) -> list[Test]:
        return [
            Test(
                f"-{d}" if to_device else f"{d}-",
                (Transfer(None, d, d) if to_device else Transfer(d, None, d),),
                pattern=pattern,
                values=EACH,
                peer=OFF,
                path=HOST_PATH,
            )
            for d in scope.devices
        ]

    return tests


def _group_test(
    scope: Scope, pattern: str, direction: str, a: tuple[int, ...], b: tuple[int, ...]
) -> Test:
    """Every device of a copies to every device of b at once (bi: b to a as well, in the
    same window), each copy on its initiator's stream; waived when a device cannot reach
    another both ways."""
    server, pull = scope.server, scope.initiator == DST
    ways = [(a, b), (b, a)] if direction == BI else [(a, b)]
    transfers = tuple(
        Transfer(x, y, y if pull else x) for send, recv in ways for x in send for y in recv
    )
    cut = [(x, y) for x in a for y in b if not (server.can(x, y) and server.can(y, x))]
    waived = refusal(server, *cut[0]) if cut else None
    return Test(
        group_name(a, b),
        transfers,
        pattern=pattern,
        direction=direction,
        values=SUM_PER_DIRECTION if direction == BI else SUM,
        ends=tuple((None, None, s, r) for s, r in ways),
        waived=waived,
    )


def _group(scope: Scope) -> list[Test]:
    return [
        _group_test(scope, GROUP, direction, a, b)
        for direction in scope.directions
        for a, b in scope.groups or ()
    ]


def _card(scope: Scope) -> list[Test]:
    cards = cards_of(scope.server, scope.chosen)
    return [
        _group_test(scope, CARD, direction, a, b)
        for direction in scope.directions
        for a, b in card_pairs(cards, direction)
    ]


def transfer_tests(scope: Scope, tests: Sequence[Test]) -> list[Test]:
    """Tests of transfers as the sweep's peer mode asks: peer access on both ways for
    every device pair (waived when a pair cannot reach each other), or, with ``current``,
    as the runtime holds it: P2P where every pair holds both directions, else direct
    copies (which the runtime may refuse)."""
    server = scope.server
    keep = scope.peers == (CURRENT,)
    out = []
    for test in tests:
        flows = test.flows
        held = all(server.held(x, y) and server.held(y, x) for x, y in flows)
        cut = [(x, y) for x, y in flows if not (server.can(x, y) and server.can(y, x))]
        waived = refusal(server, *cut[0]) if cut and not keep else None
        peer, path = (ON, P2P) if held or not keep else (OFF, DIRECT)
        out.append(
            test.at(
                pattern=TEST,
                values=TRANSFERS,
                timing=WINDOW,
                peer=peer,
                path=path,
                keep_peer_state=keep,
                waived=waived,
            )
        )
    return out


def _files(scope: Scope) -> list[Test]:
    return transfer_tests(scope, scope.tests or ())


def _collectives(scope: Scope) -> list[Test]:
    """The sweep's collectives as the plan made them (their phases from the topology);
    one whose pairs cannot all reach each other is waived."""
    out = []
    for test in scope.collectives or ():
        cut = [
            (x, y) for x, y in test.flows if not (scope.server.can(x, y) and scope.server.can(y, x))
        ]
        waived = refusal(scope.server, *cut[0]) if cut else None
        out.append(test.at(pattern=COLLECTIVE, timing=PHASES, values=PER_PHASE, waived=waived))
    return out


def _ring(both: bool) -> Generator:
    def tests(scope: Scope) -> list[Test]:
        devices = scope.devices
        n = len(devices)
        if n < 2:
            raise ValueError("a ring needs at least two devices")
        ways = [(devices[i], devices[(i + 1) % n]) for i in range(n)]
        if both:
            ways += [(b, a) for a, b in ways]
        ways = list(dict.fromkeys(ways))
        name = "ring-bi" if both else "ring"
        return transfer_tests(
            scope,
            [
                Test(
                    name,
                    tuple(Transfer(a, b, b) for a, b in ways),
                    description=DECLARATIONS[name].description,
                )
            ],
        )

    return tests


def _a2a(scope: Scope) -> list[Test]:
    devices = scope.devices
    if len(devices) < 2:
        raise ValueError("all-to-all needs at least two devices")
    return transfer_tests(
        scope,
        [
            Test(
                "a2a",
                tuple(Transfer(a, b, b) for a in devices for b in devices if a != b),
                description=DECLARATIONS["a2a"].description,
            )
        ],
    )


def _scaling(scope: Scope) -> list[Test]:
    """The first device to 1, 2, ... of its peers at once (each peer pulls): peers on
    other cards first (their copies share the device's port where the links are
    switched), the peers on its own card last."""
    devices = scope.devices
    if len(devices) < 2:
        raise ValueError("scaling needs at least two devices")
    center = devices[0]
    card = next((c for c in cards_of(scope.server, devices) if center in c), (center,))
    peers = [d for d in devices[1:] if d not in card] + [d for d in devices[1:] if d in card]
    return transfer_tests(
        scope,
        [
            Test(
                f"scaling-{k}",
                tuple(Transfer(center, p, p) for p in peers[:k]),
                description=f"device {center} to {k} peer{'s' if k > 1 else ''} at once",
            )
            for k in range(1, len(peers) + 1)
        ],
    )


_BUILT_IN = (
    Declaration(
        PAIR,
        "one ordered pair alone (peer on: P2P; off: direct and staged)",
        EACH,
        _pair,
        on_pairs=True,
    ),
    Declaration(
        LATENCY,
        "time per copy of back-to-back small copies of one pair",
        PER_COPY,
        _latency,
        on_pairs=True,
        as_file=False,
    ),
    Declaration(LOCAL, "a copy within one device (the diagonal)", EACH, _local, within=True),
    Declaration(
        ONE_TO_ALL,
        "a device pushes to all its peers at once",
        SUM,
        _fanout(ONE_TO_ALL, True),
        center=SRC,
    ),
    Declaration(
        ALL_TO_ONE,
        "a device pulls from all its peers at once",
        SUM,
        _fanout(ALL_TO_ONE, False),
        center=DST,
    ),
    Declaration(H2D, "pinned host memory to each device", EACH, _host(H2D, True), host_end=SRC),
    Declaration(D2H, "each device to pinned host memory", EACH, _host(D2H, False), host_end=DST),
    Declaration(
        GROUP,
        "every device of one group to every device of another (--groups)",
        SUM_PER_DIRECTION,
        _group,
        grouped=True,
        needs_groups=True,
        as_file=False,
    ),
    Declaration(
        CARD,
        "the devices of one card to those of another, every pair of cards",
        SUM_PER_DIRECTION,
        _card,
        grouped=True,
        on_cards=True,
    ),
    Declaration(
        TEST,
        "transfers at once, one window: the tests of a test file (run FILE)",
        TRANSFERS,
        _files,
        needs_tests=True,
        as_file=False,
    ),
    Declaration(
        COLLECTIVE,
        "HCCL's collectives as phases of copies, busbw the nccl-tests "
        "way (the collectives command)",
        PER_PHASE,
        _collectives,
        timing=PHASES,
        needs_collectives=True,
        as_file=False,
    ),
    Declaration("a2a", "every device to every other at once", TRANSFERS, _a2a, row_pattern=TEST),
    Declaration(
        "ring",
        "each device to its next at once (one way round)",
        TRANSFERS,
        _ring(False),
        row_pattern=TEST,
    ),
    Declaration(
        "ring-bi",
        "each device to its next and its previous at once (both ways)",
        TRANSFERS,
        _ring(True),
        row_pattern=TEST,
    ),
    Declaration(
        "scaling",
        "one device to 1, 2, ... N-1 peers at once: the aggregate against the number of peers",
        TRANSFERS,
        _scaling,
        row_pattern=TEST,
    ),
)
#: Every built-in by name, in the order of ``patterns`` and the help.
DECLARATIONS: dict[str, Declaration] = {d.name: d for d in _BUILT_IN}
#: The words of the ``pattern`` column, each with the declaration its rows follow.
ROW_PATTERNS: dict[str, Declaration] = {d.pattern: d for d in _BUILT_IN if not d.row_pattern}
#: The built-ins ``patterns NAME`` prints as a test file of its transfers.
AS_FILES = tuple(d.name for d in _BUILT_IN if d.as_file)
#: The built-ins ``run NAME`` and the dashboard run by name: those that expand over the
#: server's devices alone (not the group pattern, which needs groups, nor test files).
BY_NAME = tuple(
    d.name for d in _BUILT_IN if not (d.needs_groups or d.needs_tests or d.needs_collectives)
)


def rows_where(keep: Callable[[Declaration], Any]) -> tuple[str, ...]:
    """The ``pattern`` words whose declaration has a trait, e.g. ``rows_where(lambda d:
    d.per_copy)`` -> ``('latency',)``."""
    return tuple(p for p, d in ROW_PATTERNS.items() if keep(d))


def expand(rt: Any, name: str, devices: Sequence[int] | None = None) -> list[Test]:
    """The tests of a built-in over devices (all of the server's by default), as ``run
    NAME`` runs them: peer access on, one way, pulls, every ordered pair among them."""
    decl = DECLARATIONS.get(name)
    if decl is None or name not in BY_NAME:
        raise ValueError(
            f"no built-in test {name!r} that expands over devices; built-in: {', '.join(BY_NAME)}"
        )
    used = tuple(range(rt.device_count)) if devices is None else tuple(devices)
    return decl.generate(
        Scope(
            ServerView(rt), used, tuple((a, b) for a in used for b in used if a != b), chosen=used
        )
    )


def as_file(rt: Any, name: str, devices: Sequence[int] | None = None) -> list[Test]:
    """The tests of a built-in as a test file holds them (``patterns NAME``, the shipped
    files): each named after the built-in and what it copies (``one_to_all-3``,
    ``card-0,1-2,3``), with the built-in's description. A test with nothing to copy (a
    fan-out from a device with no peer it can access both ways) is left out, as a test
    file cannot hold it; ValueError (one line, why) when no test is left, as on a server
    without peer access (the Atlas 300I).

    Example:
        >>> from ascend_p2p_lab.runtime import open_runtime
        >>> with open_runtime("sim", "atlas800t-a2") as rt:
        ...     [t.name for t in as_file(rt, "one_to_all", [0, 1, 2])]
        ['one_to_all-0', 'one_to_all-1', 'one_to_all-2']
    """
    decl = DECLARATIONS[name]
    tests = expand(rt, name, devices)
    out = []
    for t in tests:
        own = t.name if decl.row_pattern else f"{decl.name}-{t.name.strip('-').replace('->', '-')}"
        if t.transfers:
            out.append(Test(own, t.transfers, t.sizes, t.description or decl.description))
    if not out:
        why = next((t.waived.message for t in tests if t.waived), "it expands to no test")
        more = f" (nor have its {len(tests) - 1} other tests a transfer)" if len(tests) > 1 else ""
        raise ValueError(f"{name} copies nothing on these devices, no file to print: {why}{more}")
    return out


def markdown_table() -> str:
    """The table of built-ins in docs/tests-as-data.md (a test checks that the page holds it)."""
    lines = ["| name | what it measures | values |", "|---|---|---|"]
    lines += [f"| `{d.name}` | {d.description} | {d.values} |" for d in _BUILT_IN]
    return "\n".join(lines)


def pattern_help() -> str:
    """The ``--patterns`` help text, from the declarations."""
    return "comma list of: " + "; ".join(
        f"{d.name} ({d.description})"
        for d in _BUILT_IN
        if not (d.needs_tests or d.needs_collectives)
    )
