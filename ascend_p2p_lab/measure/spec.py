"""A sweep's parameters, validated against the runtime before anything is allocated.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim") as rt:
    ...     spec = make_spec(rt, pairs="0-1", sizes="4KiB:16KiB", direction="both")
    >>> spec.sizes, spec.directions
    ((4096, 8192, 16384), ('uni', 'bi'))
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from ..patterns.builtin import DECLARATIONS
from ..patterns.cards import GroupPair, cards_of, parse_groups
from ..patterns.model import Test
from ..runtime import Runtime
from ..schema import (
    CARD_PATTERNS,
    COLLECTIVE_PATTERN,
    GIVEN_GROUPS,
    LATENCY_PATTERN,
    PAIR_PATTERN,
    PAIR_PATTERNS,
    TEST_PATTERN,
)
from ..units import parse_sizes
from ..vocab import CURRENT, MAX_SAMPLE_US
from .diechoice import check_die_link, die_link_tests
from .pairs import parse_pairs

#: The built-ins a sweep can plan (``--patterns``): every declaration.
PATTERNS = tuple(DECLARATIONS)


#: The pattern of a sweep given no patterns (nor groups, nor tests): the first measured
#: on ordered pairs, one at a time.
DEFAULT_PATTERN = PAIR_PATTERN
#: The latency pattern's size when the sweep is given none (and measures nothing else):
#: one 4-byte word, as p2pBandwidthLatencyTest copies.
LATENCY_SIZES = (4,)
MAX_SAMPLES = 1000  # per point; also the dashboard's limit
MAX_COPIES = 1_000_000  # per sample


@dataclass(frozen=True)
class Sampling:
    """How the engine measures each test (:func:`~.sweep.run_tests`): at which sizes (a
    test's own sizes, where it has them, come first) and the timing loop's numbers."""

    sizes: tuple[int, ...]
    samples: int = 5
    warmup: int = 2
    min_sample_us: float = 1000.0
    max_copies: int = 1000
    timing: str = "events"
    verify: bool = True
    host_bound_ratio: float = 0.5


@dataclass(frozen=True)
class SweepSpec:
    """Every parameter of a sweep, validated. ``to_dict()`` goes into the run metadata."""

    sizes: tuple[int, ...]
    pairs: tuple[tuple[int, int], ...] | None = None
    #: the devices the sweep may use (None: all); pairs default to every ordered pair
    #: among them, and the per-device and fan-out patterns keep to them
    devices: tuple[int, ...] | None = None
    directions: tuple[str, ...] = ("uni",)
    peers: tuple[str, ...] = ("on",)
    patterns: tuple[str, ...] = (DEFAULT_PATTERN,)
    #: group pairs (A, B) of the group pattern: every device of A copies to every one of B
    groups: tuple[GroupPair, ...] | None = None
    #: whose stream issues a pair's copies: dst pulls (a read, the default: what the
    #: runtime guide's sample and ascend-dmi's figures do), src pushes (a write)
    initiator: str = "dst"
    #: the tests of the test pattern: sets of transfers that run at once (see .transfers)
    tests: tuple[Test, ...] | None = None
    #: the collectives of the collective pattern (``collectives.busbw.OPERATIONS``), and
    #: the algorithm they are forced to (None: the one HCCL would run, per size)
    operations: tuple[str, ...] | None = None
    algorithm: str | None = None
    #: the timing loop's numbers (their defaults are :class:`Sampling`'s)
    samples: int = Sampling.samples
    warmup: int = Sampling.warmup
    min_sample_us: float = Sampling.min_sample_us
    max_copies: int = Sampling.max_copies
    timing: str = Sampling.timing
    verify: bool = Sampling.verify
    host_bound_ratio: float = Sampling.host_bound_ratio
    #: the A3's die link of the pair tests (measure.diechoice; None: the default path)
    #: and, for ``both``, SIO's shares of the bytes (a test per share)
    die_link: str | None = None
    die_splits: tuple[float, ...] | None = None

    @property
    def sampling(self) -> Sampling:
        """The sizes and timing loop the spec's tests are measured with."""
        return Sampling(**{f.name: getattr(self, f.name) for f in fields(Sampling)})

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["pairs"] = None if self.pairs is None else [list(p) for p in self.pairs]
        d["devices"] = None if self.devices is None else list(self.devices)
        d["groups"] = None if self.groups is None else [[list(a), list(b)] for a, b in self.groups]
        d["tests"] = None if self.tests is None else [t.to_dict() for t in self.tests]
        if self.die_link is None:  # a sweep of no die link: its params as before
            del d["die_link"], d["die_splits"]
        elif self.die_splits is not None:
            d["die_splits"] = list(self.die_splits)
        if self.operations is None:  # a sweep of no collective: its params as before
            del d["operations"], d["algorithm"]
        else:
            d["operations"] = list(self.operations)
        for k in ("sizes", "directions", "peers", "patterns"):
            d[k] = list(d[k])
        return d


def _choice(
    name: str, value: str, allowed: Sequence[str], both: bool = True, also: Sequence[str] = ()
) -> tuple[str, ...]:
    """The values ``value`` stands for; ``also`` names other values the caller accepts
    (so that the error lists every valid one)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__}")
    if both and value == "both":
        return tuple(allowed)
    if value not in allowed:
        opts = [*allowed, *(["both"] if both else []), *also]
        raise ValueError(f"{name} must be one of {', '.join(opts)}; got {value!r}")
    return (value,)


def check_sampling(
    samples: int = Sampling.samples,
    warmup: int = Sampling.warmup,
    min_sample_us: float = Sampling.min_sample_us,
    max_copies: int = Sampling.max_copies,
    host_bound_ratio: float = Sampling.host_bound_ratio,
) -> None:
    """The timing loop's numbers checked (ValueError naming the first one out of bounds),
    before any device work: by every sweep, and by a command that hands them to others
    (``fleet``'s hosts).

    Example:
        >>> check_sampling(samples=0)
        Traceback (most recent call last):
        ...
        ValueError: samples must be an integer from 1 to 1000; got 0
    """
    for name, value, lo, hi in (
        ("samples", samples, 1, MAX_SAMPLES),
        ("warmup", warmup, 0, MAX_SAMPLES),
        ("max_copies", max_copies, 1, MAX_COPIES),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise ValueError(f"{name} must be an integer from {lo} to {hi}; got {value!r}")
    for name, value, hi in (
        ("min_sample_us", min_sample_us, MAX_SAMPLE_US),
        ("host_bound_ratio", host_bound_ratio, 1e6),
    ):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= hi:
            raise ValueError(f"{name} must be a number above 0 and at most {hi:g}; got {value!r}")


def make_spec(
    rt: Runtime,
    pairs: str | Sequence[tuple[int, int]] | None = None,
    sizes: Any = None,
    *,
    direction: str = "uni",
    peer: str = "on",
    initiator: str = "dst",
    samples: int = 5,
    warmup: int = 2,
    patterns: Sequence[str] | str | None = None,
    timing: str = "events",
    min_sample_us: float = 1000.0,
    max_copies: int = 1000,
    verify: bool = True,
    host_bound_ratio: float = 0.5,
    devices: str | Sequence[int] | None = None,
    groups: str | Sequence[Any] | None = None,
    tests: Sequence[Test] | None = None,
    operations: Sequence[str] | str | None = None,
    algorithm: str | None = None,
    die_link: str | None = None,
    die_split: float | Sequence[float] | None = None,
) -> SweepSpec:
    """Validate sweep arguments against the runtime, before anything is allocated.

    ``sizes=None`` is :data:`~ascend_p2p_lab.units.DEFAULT_SIZES`, except for a sweep of the
    latency pattern alone, which measures one 4-byte copy (:data:`LATENCY_SIZES`).
    ``patterns=None`` is the pair pattern, or the group pattern when ``groups`` are given
    (``"0,1:2,3"``, see :mod:`.groups`), or the test pattern when ``tests`` are given
    (:class:`~.transfers.Test`: transfers at once, at their sizes unless ``sizes`` is).
    """
    if patterns is None and operations is not None:
        patterns = (COLLECTIVE_PATTERN,)
    pats = _patterns(patterns, groups, tests)
    ops = check_operations(operations, algorithm, pats)
    test_list = _tests(tests, pats, rt.device_count, sizes)
    size_list = _sizes(sizes, pats, test_list)
    check_sampling(samples, warmup, min_sample_us, max_copies, host_bound_ratio)
    n = rt.device_count
    pair_list = given = parse_pairs(pairs, n)
    device_list = parse_devices(devices, n)
    if device_list is not None:
        pair_list = _pairs_among(device_list, pair_list)
    if set(pats) & set(PAIR_PATTERNS) and len(device_list or range(n)) < 2:
        raise ValueError("the pair and latency patterns need at least two devices")
    group_list = _groups(groups, pats, n, device_list)
    dirs = _choice("direction", direction, ("uni", "bi"))
    peer_list = (
        ("current",) if peer == CURRENT else _choice("peer", peer, ("on", "off"), also=("current",))
    )
    die, splits, twins = check_die_link(
        rt, die_link, die_split, given, pats, dirs, peer_list, device_list
    )
    pair_list = pair_list if die is None else twins
    test_list = die_link_tests(rt, test_list, die, splits)
    for card in set(pats) & set(CARD_PATTERNS):
        if len(cards_of(rt, device_list)) < 2:
            raise ValueError(f"the {card} pattern needs at least two cards among the devices")
    return SweepSpec(
        sizes=tuple(size_list),
        pairs=None if pair_list is None else tuple(pair_list),
        devices=None if device_list is None else tuple(device_list),
        directions=dirs,
        peers=peer_list,
        patterns=pats,
        groups=None if group_list is None else tuple(group_list),
        tests=None if test_list is None else tuple(test_list),
        operations=ops,
        algorithm=algorithm,
        initiator=_choice("initiator", initiator, ("src", "dst"), both=False)[0],
        samples=samples,
        warmup=warmup,
        min_sample_us=float(min_sample_us),
        max_copies=max_copies,
        timing=_choice("timing", timing, ("events", "host"), both=False)[0],
        verify=bool(verify),
        host_bound_ratio=float(host_bound_ratio),
        die_link=die,
        die_splits=splits,
    )


def _groups(
    groups: Any, pats: tuple[str, ...], n: int, devices: list[int] | None
) -> list[GroupPair] | None:
    """The group pairs, checked: given exactly when the group pattern is asked for, and
    among the sweep's devices."""
    group_list = parse_groups(groups, n)
    if group_list is None and GIVEN_GROUPS in pats:
        raise ValueError(
            f"the {GIVEN_GROUPS} pattern needs groups, e.g. groups='0,1:2,3' (--groups 0,1:2,3)"
        )
    if group_list is not None and GIVEN_GROUPS not in pats:
        raise ValueError(
            f"groups are measured by the {GIVEN_GROUPS} pattern; add {GIVEN_GROUPS} to patterns"
        )
    if group_list is not None and devices is not None:
        outside = sorted({d for a, b in group_list for d in (*a, *b)} - set(devices))
        if outside:
            raise ValueError(
                f"groups use devices {','.join(map(str, outside))} outside "
                f"--devices {','.join(map(str, devices))}"
            )
    return group_list


def _patterns(patterns: Sequence[str] | str | None, groups: Any, tests: Any) -> tuple[str, ...]:
    """The patterns asked for, checked; by default the group pattern with groups, the
    test pattern with tests, else the pair pattern."""
    if patterns is None:
        patterns = (
            GIVEN_GROUPS if groups is not None else TEST_PATTERN if tests else DEFAULT_PATTERN
        )
    if isinstance(patterns, str):
        patterns = (patterns,)
    pats = tuple(dict.fromkeys(patterns))
    if not pats or any(p not in PATTERNS for p in pats):
        raise ValueError(
            f"patterns must be among {', '.join(PATTERNS)}; got {list(patterns)}"
            " (tests made of transfers run with: ascend-p2p-lab run NAME)"
        )
    return pats


def check_operations(
    operations: Sequence[str] | str | None, algorithm: str | None, pats: tuple[str, ...]
) -> tuple[str, ...] | None:
    """The collectives asked for, checked: given exactly when the collective pattern is,
    each a known operation, once; ``algorithm`` one that builds them all.

    Example:
        >>> check_operations("all_gather,broadcast", "ring", ("collective",))
        ('all_gather', 'broadcast')
    """
    from ..collectives.algorithms import ALGORITHMS
    from ..collectives.busbw import OPERATIONS

    if operations is None:
        if COLLECTIVE_PATTERN in pats:
            raise ValueError(
                f"the {COLLECTIVE_PATTERN} pattern needs operations, e.g. "
                "operations=['all_reduce'] (ascend-p2p-lab collectives)"
            )
        if algorithm is not None:
            raise ValueError("algorithm is for collectives; give operations too")
        return None
    if COLLECTIVE_PATTERN not in pats:
        raise ValueError(
            f"operations are measured by the {COLLECTIVE_PATTERN} pattern; add it to patterns"
        )
    if isinstance(operations, str):
        operations = [o.strip() for o in operations.split(",") if o.strip()]
    ops = tuple(dict.fromkeys(operations))
    unknown = [o for o in ops if o not in OPERATIONS]
    if unknown or not ops:
        raise ValueError(
            f"unknown operation {unknown[0] if unknown else '(none)'!r}; "
            f"known: {', '.join(OPERATIONS)}"
        )
    if algorithm is not None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
        builds = ALGORITHMS[algorithm][1]
        cannot = [o for o in ops if o not in builds]
        if cannot:
            raise ValueError(
                f"{algorithm} does not build {cannot[0]}; it builds {', '.join(builds)}"
            )
    return ops


def _sizes(sizes: Any, pats: tuple[str, ...], tests: list[Test] | None) -> list[int]:
    """The sweep's sizes: given, else one small copy for latency alone, every size of
    the tests for tests alone, or the default sizes."""
    if sizes is None and pats == (LATENCY_PATTERN,):
        return list(LATENCY_SIZES)
    if sizes is None and pats == (TEST_PATTERN,) and tests:
        return sorted({s for t in tests for s in t.sizes or ()})
    return parse_sizes(sizes)


def _tests(
    tests: Sequence[Test] | None, pats: tuple[str, ...], n: int, sizes: Any
) -> list[Test] | None:
    """The tests, checked: given exactly when the test pattern is asked for, on devices
    of this server, each with sizes unless the sweep gives them (which then replace
    the tests' own)."""
    if tests is None:
        if TEST_PATTERN in pats:
            raise ValueError("the test pattern needs tests (a test file: ascend-p2p-lab run)")
        return None
    if TEST_PATTERN not in pats:
        raise ValueError("tests are measured by the test pattern; add it to patterns")
    out = []
    for t in tests:
        if not isinstance(t, Test):
            raise TypeError(f"tests must be Test objects, got {type(t).__name__}")
        outside = [d for d in t.devices if not 0 <= d < n]
        if outside:
            raise ValueError(
                f"test {t.name!r} uses device {outside[0]}; the server has devices 0..{n - 1}"
            )
        if sizes is not None:  # (a die-link test keeps its link: patterns.dielink)
            t = (
                replace(t, sizes=None)
                if t.die_link
                else Test(t.name, t.transfers, None, t.description)
            )
        elif not t.sizes:
            raise ValueError(f"test {t.name!r} has no sizes; give sizes")
        out.append(t)
    if not out:
        raise ValueError("the test list is empty")
    names = [t.name for t in out]
    if len(set(names)) != len(names):
        raise ValueError("two tests share a name")
    return out


def check_spec(rt: Runtime, spec: SweepSpec) -> SweepSpec:
    """Check a spec made elsewhere against this runtime: its devices and its memory.
    Returns it as :func:`make_spec` would make it: its pairs those among its devices (a
    die link's: the server's twin dies), its tests as :class:`~.transfers.Test` (a run's
    ``params`` hold them as dicts, as ``to_dict`` writes them)."""
    n = rt.device_count
    for src, dst in spec.pairs or ():
        for dev in (src, dst):
            if not 0 <= dev < n:
                raise ValueError(f"device {dev} in pair {src}-{dst} is out of range 0..{n - 1}")
    devices = None if spec.devices is None else parse_devices(list(spec.devices), n)
    given = None if spec.pairs is None else list(spec.pairs)
    pairs = given if devices is None else _pairs_among(devices, given)
    if spec.die_link is not None:
        _, _, pairs = check_die_link(
            rt, spec.die_link, spec.die_splits, given, spec.patterns, spec.directions,
            spec.peers, devices,
        )  # fmt: skip
    spec = replace(spec, pairs=None if pairs is None else tuple(pairs))
    if spec.groups is not None:
        parse_groups(spec.groups, n)
    if set(spec.patterns) & set(PAIR_PATTERNS) and n < 2:
        raise ValueError("the pair and latency patterns need at least two devices")
    ops = check_operations(spec.operations, spec.algorithm, spec.patterns)
    if ops is not None:
        spec = replace(spec, operations=ops)
    if spec.tests is not None:
        try:
            tests = tuple(t if isinstance(t, Test) else Test.from_dict(t, n) for t in spec.tests)
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"a test of the spec cannot be read ({exc!r})") from None
        _tests(tests, spec.patterns, n, None if all(t.sizes for t in tests) else spec.sizes)
        spec = replace(spec, tests=tests)
    return spec


def parse_devices(spec: str | Sequence[int] | None, device_count: int) -> list[int] | None:
    """Device ids from ``"all"`` (None), ``"0-3"``, ``"0,2,5"``, ``"0-3,6"`` or ints,
    checked against device_count, in order without repeats.

    Example:
        >>> parse_devices("0-2,5", 8)
        [0, 1, 2, 5]
    """
    if spec is None or (isinstance(spec, str) and spec.strip().lower() == "all"):
        return None
    ids: list[int] = []
    if isinstance(spec, str):
        for part in (p.strip() for p in spec.split(",")):
            m = re.fullmatch(r"(\d+)(?:\s*-\s*(\d+))?", part)
            if not m or (m.group(2) is not None and int(m.group(2)) < int(m.group(1))):
                raise ValueError(f"cannot read devices {part!r}: use e.g. 0-3 or 0,2,5")
            ids += range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1)
    else:
        for d in spec:
            if isinstance(d, bool) or not isinstance(d, int):
                raise TypeError(f"device {d!r} must be an int")
            ids.append(d)
    for d in ids:
        if not 0 <= d < device_count:
            raise ValueError(f"device {d} is out of range 0..{device_count - 1}")
    if not ids:
        raise ValueError("the device list is empty")
    return list(dict.fromkeys(ids))


def _pairs_among(devices: list[int], pairs: list[tuple[int, int]] | None) -> list[tuple[int, int]]:
    """Every ordered pair among devices, or the given pairs checked to stay among them."""
    if pairs is None:
        return [(a, b) for a in devices for b in devices if a != b]
    outside = [f"{a}-{b}" for a, b in pairs if a not in devices or b not in devices]
    if outside:
        raise ValueError(
            f"pairs {', '.join(outside)} use devices outside --devices "
            f"{','.join(map(str, devices))}"
        )
    return pairs


def devices_of(rt: Runtime, spec: SweepSpec) -> list[int]:
    """The devices a sweep of spec uses."""
    if spec.devices is not None:
        return list(spec.devices)
    if spec.patterns == (GIVEN_GROUPS,) and spec.groups:
        return sorted({d for a, b in spec.groups for d in (*a, *b)})
    if spec.patterns == (TEST_PATTERN,) and spec.tests:
        return sorted({d for t in spec.tests for d in t.devices})
    if spec.pairs is None or set(spec.patterns) - set(PAIR_PATTERNS):
        return list(range(rt.device_count))  # collectives: every device unless --devices
    return sorted({d for p in spec.pairs for d in p})
