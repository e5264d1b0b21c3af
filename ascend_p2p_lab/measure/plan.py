"""The plan of a sweep: the blocks it runs, in order; one case on one pair or device each.

Unreachable pairs are blocks too, carrying their reason, so that no planned point is a
silent gap.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> from ascend_p2p_lab.measure.spec import make_spec
    >>> with open_runtime("sim") as rt:
    ...     blocks = plan_blocks(rt, make_spec(rt, pairs="0-1", sizes="4KiB", peer="both"))
    >>> [b.key for b in blocks]
    ['pair/uni/on/p2p/0-1', 'pair/uni/off/direct/0-1', 'pair/uni/off/staged/0-1']
"""

from __future__ import annotations

from dataclasses import dataclass

from ..runtime import Runtime
from ..runtime.errors import CAN_ACCESS_PEER_CALL
from ..schema import HOST_PATTERNS, PATTERNS_BY_NAME, TEST_PATTERN
from ..vocab import HOST_LINK
from . import outcomes
from .groups import GroupPair, card_pairs, cards_of, group_name
from .spec import DEFAULT_PATTERN, SweepSpec, devices_of
from .transfers import Test

#: One direction a block's rows describe: source, destination, or the group pair.
End = tuple[int | None, int | None, GroupPair | None]


@dataclass(frozen=True)
class Block:
    """One case on one pair or device; all sizes of it run together."""

    pattern: str
    direction: str
    peer: str
    path: str
    src: int | None
    dst: int | None
    link: str
    peers: tuple[int, ...] = ()
    failure: outcomes.Failure | None = None  # why the block cannot be measured at all
    keep_peer_state: bool = False  # measure with the peer access the runtime holds now
    groups: GroupPair | None = None  # group and card patterns: A copies to B at once
    test: Test | None = None  # a test's transfers, at once (pattern "test")

    @property
    def sizes(self) -> tuple[int, ...] | None:
        """The sizes this block measures (None: every size of the sweep)."""
        return None if self.test is None else self.test.sizes

    @property
    def key(self) -> str:
        if self.test is not None:
            return f"{self.pattern}/{self.direction}/{self.peer}/{self.path}/{self.test.name}"
        if self.groups is not None:
            who = group_name(*self.groups)
        else:
            who = f"{'' if self.src is None else self.src}-" \
                  f"{'' if self.dst is None else self.dst}"
        return f"{self.pattern}/{self.direction}/{self.peer}/{self.path}/{who}"

    @property
    def label(self) -> str:
        if self.test is not None:
            return f"test {self.test.name}"
        arrow = "<->" if self.direction == "bi" else "->"
        if self.groups is not None:
            a, b = (",".join(map(str, g)) for g in self.groups)
        else:
            nobody = "host" if self.pattern in HOST_PATTERNS else "all"
            a = nobody if self.src is None else self.src
            b = nobody if self.dst is None else self.dst
        return f"{self.pattern} {a}{arrow}{b} {self.path}"

    @property
    def devices(self) -> tuple[int, ...]:
        """Every device the block uses."""
        ends = tuple(d for d in (self.src, self.dst) if d is not None)
        grouped = (*self.groups[0], *self.groups[1]) if self.groups is not None else ()
        tested = self.test.devices if self.test is not None else ()
        return tuple(dict.fromkeys((*ends, *self.peers, *grouped, *tested)))

    @property
    def flows(self) -> list[tuple[int, int]]:
        """The ordered device pairs that copy (one way; a bi block also copies back):
        the pair, a fan-out's center with each peer, or every device of group A to every
        device of group B."""
        if self.groups is not None:
            return [(a, b) for a in self.groups[0] for b in self.groups[1]]
        if self.test is not None:
            return self.test.flows
        if self.peers:
            if self.src is not None:
                return [(self.src, p) for p in self.peers]
            assert self.dst is not None
            return [(p, self.dst) for p in self.peers]
        if self.src is None or self.dst is None or self.src == self.dst:
            return []
        return [(self.src, self.dst)]

    def ends(self) -> list[End]:
        """(src, dst, groups) of each direction the block's rows describe: one, or both
        for a bidirectional block; groups are the senders and receivers of a group."""
        if self.groups is not None:
            a, b = self.groups
            fwd: End = (None, None, (a, b))
            back: End = (None, None, (b, a))
        else:
            fwd, back = (self.src, self.dst, None), (self.dst, self.src, None)
        return [fwd, back] if self.direction == "bi" else [fwd]


def plan_blocks(rt: Runtime, spec: SweepSpec) -> list[Block]:
    """Every block the sweep will run, in order; unreachable pairs carry their reason."""
    n = rt.device_count
    can = {(a, b): rt.can_access_peer(a, b) for a in range(n) for b in range(n) if a != b}
    pairs = list(spec.pairs) if spec.pairs is not None else list(can)
    blocks: list[Block] = []
    for pattern in spec.patterns:
        decl = PATTERNS_BY_NAME[pattern]  # planned by its declared traits, not its name
        if decl.on_pairs and not decl.per_copy:  # pair
            for peer in spec.peers:
                for direction in spec.directions:
                    items = pairs if direction == "uni" else _unordered(pairs)
                    for a, b in items:
                        blocks.extend(_pair_blocks(rt, can, peer, direction, a, b, pattern))
        elif decl.per_copy:  # latency: one direction; peer on/off as the pair pattern
            for peer in spec.peers:
                for a, b in pairs:
                    blocks.extend(_pair_blocks(rt, can, peer, "uni", a, b, pattern))
        elif decl.host_end is not None:  # pinned host memory to (h2d) or from (d2h) a device
            for d in devices_of(rt, spec):
                src, dst = (None, d) if decl.host_end == "src" else (d, None)
                blocks.append(Block(pattern, "uni", "off", "host", src, dst, HOST_LINK))
        elif decl.of_transfers:
            blocks.extend(_test_blocks(rt, can, spec))
        elif decl.grouped:
            blocks.extend(_group_blocks(rt, can, spec, pattern))
        elif decl.within:
            for d in devices_of(rt, spec):
                blocks.append(Block(pattern, "uni", "off", "local", d, d, "X"))
        else:  # fan-out: each device of the sweep with its peers among those devices
            used = devices_of(rt, spec)
            for d in used:
                peers = tuple(p for p in used if p != d and can[(d, p)] and can[(p, d)])
                link = _link_label(rt, [(d, p) for p in peers])
                src, dst = (d, None) if decl.center == "src" else (None, d)
                failure = None if peers else outcomes.Failure(
                    "unreachable", f"device {d} has no peer it can access both ways", None,
                    CAN_ACCESS_PEER_CALL)
                blocks.append(Block(pattern, "uni", "on", "p2p", src, dst, link, peers, failure))
    return blocks


def _link_label(rt: Runtime, flows: list[tuple[int, int]]) -> str:
    """The link class of copies on several links: theirs when they share one, else
    ``mixed``."""
    links = {rt.link_class(a, b) for a, b in flows}
    return links.pop() if len(links) == 1 else "mixed"


def _group_blocks(rt: Runtime, can: dict, spec: SweepSpec, pattern: str) -> list[Block]:
    """Every group pair of the spec (group) or pair of cards (card), each direction asked
    for; a pair with a device that cannot reach another both ways carries why."""
    blocks = []
    for direction in spec.directions:
        if PATTERNS_BY_NAME[pattern].needs_groups:
            pairs = list(spec.groups or ())
        else:
            pairs = card_pairs(cards_of(rt, spec.devices), direction)
        for a, b in pairs:
            flows = [(x, y) for x in a for y in b]
            link = _link_label(rt, flows)
            cut = [(x, y) for x, y in flows if not (can[(x, y)] and can[(y, x)])]
            failure = None
            if cut:
                x, y = cut[0]
                who = (x, y) if not can[(x, y)] else (y, x)
                failure = outcomes.unreachable(who[0], who[1], rt.link_class(x, y))
            blocks.append(Block(pattern, direction, "on", "p2p", None, None, link,
                                failure=failure, groups=(a, b)))
    return blocks


def _test_blocks(rt: Runtime, can: dict, spec: SweepSpec) -> list[Block]:
    """One block per test; a transfer between devices that cannot reach each other both
    ways (peer access is enabled both ways) carries why. With peer mode ``current`` no
    peer state is touched: a test whose device pairs all hold peer access both ways runs
    as P2P, another as direct copies (which the runtime may refuse)."""
    blocks = []
    keep = spec.peers == ("current",)
    for test in spec.tests or ():
        flows = test.flows
        link = _link_label(rt, flows) if flows else HOST_LINK
        if flows and any(t.peer_flow is None for t in test.transfers):
            link = "mixed"
        held = all(rt.peer_enabled(x, y) and rt.peer_enabled(y, x) for x, y in flows)
        cut = [(x, y) for x, y in flows if not (can[(x, y)] and can[(y, x)])]
        failure = None
        if cut and not keep:
            x, y = cut[0]
            who = (x, y) if not can[(x, y)] else (y, x)
            failure = outcomes.unreachable(who[0], who[1], rt.link_class(x, y))
        peer, path = ("on", "p2p") if held or not keep else ("off", "direct")
        blocks.append(Block(TEST_PATTERN, "uni", peer, path, None, None, link,
                            failure=failure, keep_peer_state=keep, test=test))
    return blocks


def _unordered(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    return list(dict.fromkeys((min(a, b), max(a, b)) for a, b in pairs))


def _pair_blocks(rt: Runtime, can: dict, peer: str, direction: str, a: int, b: int,
                 pattern: str = DEFAULT_PATTERN) -> list[Block]:
    link = rt.link_class(a, b)
    reachable = can[(a, b)] and (direction == "uni" or can[(b, a)])
    if peer == "current":  # as the user left it: P2P where both directions are held
        held = rt.peer_enabled(a, b) and rt.peer_enabled(b, a)
        return [Block(pattern, direction, "on" if held else "off", "p2p" if held else "direct",
                      a, b, link, keep_peer_state=True)]
    if peer == "on":
        if reachable:
            return [Block(pattern, direction, "on", "p2p", a, b, link)]
        who = (a, b) if not can[(a, b)] else (b, a)
        failure = outcomes.unreachable(who[0], who[1], link)
        return [Block(pattern, direction, "on", "p2p", a, b, link, failure=failure)]
    out = [Block(pattern, direction, "off", "direct", a, b, link)]
    if direction == "uni":
        out.append(Block(pattern, "uni", "off", "staged", a, b, link))
    return out
