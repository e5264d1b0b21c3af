"""A sweep over the A3's die links: the choice checked against the server, and the pair
tests of the plan turned into tests over the chosen die link (docs/die-links.md).

``die_link`` (``sio``, ``hccs`` or ``both``) applies to the pair pattern, one way, with
peer access on, between the two dies of one card of a server that has the choice (its
topology's ``die_hccs``: the A3). A sweep that names no pairs takes the server's twin-die
pairs (among its devices); named pairs must all be twin dies. ``both`` takes one or more
splits (SIO's share of the bytes): each split a test of its own, so a sweep over the
split finds its best share.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim", "atlas800t-a3") as rt:
    ...     check_die_link(rt, "both", [0.5, 0.6], None, ("pair",), ("uni",), ("on",), None)
    ('both', (0.5, 0.6), [(0, 1), (1, 0), (2, 3), (3, 2), (4, 5), (5, 4), (6, 7), (7, 6), \
(8, 9), (9, 8), (10, 11), (11, 10), (12, 13), (13, 12), (14, 15), (15, 14)])
    >>> with open_runtime("sim", "atlas800t-a2") as rt:
    ...     check_die_link(rt, "hccs", None, None, ("pair",), ("uni",), ("on",), None)
    Traceback (most recent call last):
    ...
    ValueError: --die-link: server atlas800t-a2 has no choice of link between the dies ...
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..patterns.dielink import over_die_link
from ..patterns.model import Test
from ..runtime import Runtime
from ..schema import PAIR_PATTERN, TEST_PATTERN
from ..vocab import DIE_BOTH, DIE_LINK_CHOICES, DIE_LINKS, ON, UNI


def check_die_link(
    rt: Runtime,
    die_link: str | None,
    die_split: float | Sequence[float] | None,
    pairs: list[tuple[int, int]] | None,
    patterns: tuple[str, ...],
    directions: tuple[str, ...],
    peers: tuple[str, ...],
    devices: list[int] | None,
) -> tuple[str | None, tuple[float, ...] | None, list[tuple[int, int]] | None]:
    """(die link, splits, pairs) of a sweep, checked; ValueError naming the server, the
    pair or the option that cannot take it. Without a die link: (None, None, pairs)."""
    if die_link is None:
        if die_split is not None:
            raise ValueError("--die-split is SIO's share of a --die-link both sweep")
        return None, None, pairs
    if die_link not in DIE_LINK_CHOICES:
        raise ValueError(
            f"--die-link must be one of {', '.join(DIE_LINK_CHOICES)}; got {die_link!r}"
        )
    splits = _splits(die_link, die_split)
    if patterns not in ((PAIR_PATTERN,), (TEST_PATTERN,)) or directions != (UNI,) or peers != (ON,):
        raise ValueError(
            f"--die-link measures the {PAIR_PATTERN} pattern (or the tests of a file) one "
            "way with peer access on"
        )
    topo = _chooser(rt)
    if patterns == (TEST_PATTERN,):
        return die_link, splits, pairs
    n = topo.device_count
    allowed = set(devices if devices is not None else range(n))
    twins = [(a, b) for a in range(n) for b in range(n) if topo.twin_dies(a, b)]
    if pairs is None:
        return die_link, splits, [(a, b) for a, b in twins if {a, b} <= allowed]
    for a, b in pairs:
        if not topo.twin_dies(a, b):
            raise ValueError(
                f"--die-link: pair {a}-{b} is not the two dies of one card "
                f"(link {topo.link(a, b)}; twin dies are joined by SIO)"
            )
    return die_link, splits, [(a, b) for a, b in pairs if {a, b} <= allowed]


def _chooser(rt: Runtime) -> Any:
    """The runtime's server, which must have a choice of die link (ValueError naming it)."""
    topo = rt.topology
    if topo is None or topo.die_hccs is None:
        name = rt.preset or (topo.name if topo is not None else "of this runtime")
        raise ValueError(
            f"--die-link: server {name} has no choice of link between the dies of a card "
            "(A3 twin dies only)"
        )
    return topo


def die_link_tests(
    rt: Runtime, tests: list[Test] | None, die_link: str | None, splits: tuple[float, ...] | None
) -> list[Test] | None:
    """The tests of the test pattern over the die link given (one per split for
    ``both``), every die-link test checked against the server: a test of more than one
    copy, a server without the choice or a pair of two cards is refused by name."""
    if tests is None:
        return None
    if die_link is not None:
        shares = splits if die_link == DIE_BOTH and splits else (None,)
        tests = [over_die_link(t, die_link, s) for t in tests for s in shares]
    for t in tests:
        if not t.die_link:
            continue
        topo, x = _chooser(rt), t.transfers[0]
        if not topo.twin_dies(x.src, x.dst):
            raise ValueError(
                f"test {t.name!r}: transfer {x} is not between the two dies of one card "
                f"(link {topo.link(x.src, x.dst)}; twin dies are joined by SIO)"
            )
    return tests


def _splits(die_link: str, die_split: float | Sequence[float] | None) -> tuple[float, ...] | None:
    if die_split is None:
        return None
    if die_link != DIE_BOTH:
        raise ValueError(f"--die-split is SIO's share of a --die-link both sweep, not {die_link}")
    values = (die_split,) if isinstance(die_split, (int, float)) else tuple(die_split)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v < 1:
            raise ValueError(f"--die-split: SIO's share of the bytes is in (0, 1); got {v!r}")
    if not values or len(set(values)) != len(values):
        raise ValueError("--die-split: give each share once")
    return tuple(float(v) for v in values)


def with_die_links(
    tests: list[Test], die_link: str | None, splits: tuple[float, ...] | None
) -> list[Test]:
    """The plan's pair tests over the die link (one per split for ``both``), in order."""
    if die_link is None:
        return tests
    out: list[Test] = []
    for test in tests:
        if test.pattern != PAIR_PATTERN or test.waived is not None:
            out.append(test)
        elif die_link == DIE_BOTH:
            out.extend(over_die_link(test, DIE_BOTH, s) for s in splits or (None,))  # type: ignore[arg-type]
        else:
            out.append(over_die_link(test, die_link))
    return out


def die_slot(rt: Runtime, test: Test) -> dict[str, Any]:
    """The one row slot of a die-link test (measure.rows): its pair, SIO's link class,
    its initiator, and the paper rate of its die link (both: the two links' sum)."""
    t = test.transfers[0]
    assert t.src is not None and t.dst is not None
    topo = rt.topology
    links = DIE_LINKS if test.die_link == DIE_BOTH else (test.die_link,)
    figures = [topo.die_link_class(t.src, t.dst, k) if topo is not None else None for k in links]
    nominal = sum(f.nominal_GBps for f in figures if f is not None)
    one = len(test.transfers) == 1
    return {
        "src": t.src,
        "dst": t.dst,
        "link": rt.link_class(t.src, t.dst),
        "initiator": t.initiator,
        "nominal_GBps": nominal if None not in figures else math.nan,
        "_transfer": 0 if one else None,
        "_members": tuple(range(len(test.transfers))),
    }
