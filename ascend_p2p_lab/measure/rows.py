"""Rows of a sweep: what each measured sample or failed point becomes, and the formulas.

The bandwidth of a window, the time per copy of the latency pattern and the total of a
bidirectional pair are named functions here, tested on their own; :class:`Context` is
what a running test case writes through.

Example:
    >>> bandwidth(1 << 30, 41_000.0) > 26
    True
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..runtime import Runtime
from ..schema import (
    AGGREGATE_PATTERNS,
    GROUP_PATTERNS,
    HOST_PATTERNS,
    HOST_TO_DEVICE,
    PAIR_PATTERNS,
    PULL_FANOUT,
    TEST_PATTERN,
)
from ..units import format_size
from ..vocab import HOST_LINK
from . import outcomes
from .copyengine import BufferPool, Timing
from .groups import GroupPair, group_name
from .plan import Block
from .spec import SweepSpec
from .together import Window
from .transfers import Transfer


@dataclass
class Context:
    """What a running test case needs: runtime, parameters, buffers and the row sink."""

    rt: Runtime
    spec: SweepSpec
    pool: BufferPool
    base: dict[str, Any]
    nominal: dict[str, float]
    affinity: dict[int, str] = field(default_factory=dict)  # device -> its CPUs, where known
    rows: list[dict[str, Any]] = field(default_factory=list)
    done: set[tuple[str, int]] = field(default_factory=set)
    bar: Any = None
    lost: dict[int, outcomes.Failure] = field(default_factory=dict)  # device -> why
    fallbacks: dict[str, str] = field(default_factory=dict)  # missing call -> what instead
    _emitted: set[tuple[str, int]] = field(default_factory=set)

    def sizes_todo(self, block: Block) -> Iterator[int]:
        """The block's sizes not done yet; ticks the progress bar after each one. Each
        point starts with ``rt.begin_point`` (on the simulator, a point's numbers then
        depend on the point, not on what ran before it)."""
        for size in block.sizes or self.spec.sizes:
            if (block.key, size) in self.done or (block.key, size) in self._emitted:
                continue
            self.rt.begin_point(f"{block.key}/{size}")
            if self.bar is not None:
                self.bar.set_postfix_str(f"{block.label} {format_size(size)}", refresh=False)
            yield size
            if self.bar is not None:
                self.bar.update(1)

    def _nominal(self, block: Block) -> float:
        """The paper rate a row is compared with: its link's, or for an aggregate (a
        fan-out, a group) that of all the links it uses at once (:func:`aggregate_nominal`).
        """
        if block.pattern == TEST_PATTERN:
            return test_nominal(self.rt, block.test.transfers) if block.test else math.nan
        if block.pattern not in AGGREGATE_PATTERNS:
            return self.nominal.get(block.link, math.nan)
        return aggregate_nominal(self.rt, block.flows)

    def remaining(self, block: Block) -> list[int]:
        return [s for s in block.sizes or self.spec.sizes
                if (block.key, s) not in self.done and (block.key, s) not in self._emitted]

    def emitted(self, block: Block) -> list[int]:
        """The block's sizes whose rows this context emitted."""
        return [s for s in block.sizes or self.spec.sizes if (block.key, s) in self._emitted]

    def adopt(self, block: Block, sizes: list[int]) -> None:
        """Count sizes of block emitted elsewhere (by a worker process) as emitted here,
        and tick the progress bar for them."""
        self._emitted.update((block.key, s) for s in sizes)
        if self.bar is not None and sizes:
            self.bar.update(len(sizes))

    def _row(self, block: Block, size: int, src: int | None, dst: int | None,
             groups: GroupPair | None = None, **values: Any) -> dict[str, Any]:
        link = block.link
        row = {
            **self.base, "src": src, "dst": dst, "link": link,
            "group": None if groups is None else group_name(*groups),
            "senders": None if groups is None else groups[0],
            "receivers": None if groups is None else groups[1],
            "pattern": block.pattern,
            "direction": block.direction, "peer": block.peer, "path": block.path,
            "initiator": _initiator(self.spec, block),
            "size_bytes": size, "timing": self.spec.timing,
            "nominal_GBps": self._nominal(block),
            "copies": None, "sample": None, "elapsed_us": math.nan,
            "bandwidth_GBps": math.nan, "host_enqueue_us": math.nan, "host_bound": None,
            "verified": None, "error": None, "bidir_total_GBps": math.nan,
            "error_kind": None, "error_code": None, "error_call": None,
            "latency_us": math.nan, "cpu_affinity": None,
            "test": None if block.test is None else block.test.name, "transfer": None,
        }
        if block.path == "staged":
            row["nominal_GBps"] = math.nan
        if block.pattern in HOST_PATTERNS:  # the device end of a host copy, and its CPUs
            row["cpu_affinity"] = self.affinity.get(dst if src is None else src)
        row.update(values)
        return row

    def _values(self, t: Timing, size: int, timing: str, fanout: int = 1) -> dict[str, Any]:
        bw = bandwidth(size * t.copies * fanout, t.elapsed_us)
        bound = (t.host_enqueue_us >= self.spec.host_bound_ratio * t.elapsed_us
                 if timing == "events" else None)
        return {"copies": t.copies, "elapsed_us": t.elapsed_us, "bandwidth_GBps": bw,
                "host_enqueue_us": t.host_enqueue_us, "host_bound": bound, "timing": timing}

    def emit_samples(self, block: Block, size: int, timings: list[Timing], *,
                     verified: bool | None, timing: str | None = None, fanout: int = 1,
                     per_copy: bool = False) -> None:
        """One row per sample. The case says how its value is aggregated: ``fanout``
        copies move at once (their bytes add up), ``per_copy`` fills ``latency_us``."""
        timing = timing or self.spec.timing
        src, dst, groups = block.ends()[0]
        bad = _verification(verified, src, dst, groups)
        for i, t in enumerate(timings):
            values = self._values(t, size, timing, fanout)
            if per_copy:
                values["latency_us"] = latency(t.elapsed_us, t.copies)
            self.rows.append(self._row(block, size, src, dst, groups, sample=i,
                                       verified=verified, **values, **bad))
        self._emitted.add((block.key, size))

    def emit_bidirectional(self, block: Block, size: int, pairs: list[tuple[Timing, Timing]],
                           verified: tuple[bool | None, bool | None], fanout: int = 1) -> None:
        """Both directions of each sample, each with its bandwidth and their total;
        ``fanout`` copies move at once each way (a group pair)."""
        ends = block.ends()
        bad = [_verification(ok, *end) for ok, end in zip(verified, ends)]
        for i, timing_pair in enumerate(pairs):
            values = [self._values(t, size, "events", fanout) for t in timing_pair]
            total = bidirectional_total(values[0]["bandwidth_GBps"],
                                        values[1]["bandwidth_GBps"])
            for end, ok, v, b in zip(ends, verified, values, bad):
                self.rows.append(self._row(block, size, *end, sample=i, verified=ok,
                                           bidir_total_GBps=total, **v, **b))
        self._emitted.add((block.key, size))

    def emit_test(self, block: Block, size: int, windows: list[Window],
                  verified: list[bool | None]) -> None:
        """A test's samples: per sample one row per transfer (its bytes over its own
        time, its link's nominal rate) and the aggregate row (every transfer's bytes over
        the window; the nominal rate of all at once, :func:`test_nominal`)."""
        test = block.test
        assert test is not None
        timing = "events"
        for i, w in enumerate(windows):
            for k, (t, each, ok) in enumerate(zip(test.transfers, w.each, verified)):
                link = self._link(t)
                bad = _verification(ok, t.src, t.dst)
                self.rows.append(self._row(
                    block, size, t.src, t.dst, sample=i, verified=ok, transfer=k,
                    link=link, initiator=t.initiator,
                    nominal_GBps=test_nominal(self.rt, (t,)),
                    **self._values(each, size, timing), **bad))
            every = None if None in verified else all(verified)  # type: ignore[arg-type]
            bad = {} if every is not False else outcomes.Failure(
                "verification", f"data verification failed: a transfer of test "
                f"{test.name} holds bytes other than its source's").columns()
            self.rows.append(self._row(block, size, None, None, sample=i, verified=every,
                                       initiator=None, **self._values(w.window, size, timing),
                                       **bad))
        self._emitted.add((block.key, size))

    def _link(self, t: Transfer) -> str:
        """The link class of one transfer (the host link for a host copy)."""
        if t.src is None or t.dst is None:
            return HOST_LINK
        return self.rt.link_class(t.src, t.dst)

    def error_rows(self, block: Block, sizes: list[int], failure: outcomes.Failure, *,
                   tick: bool = True) -> None:
        """Rows that carry a failure instead of a number; ``tick=False`` inside a
        ``sizes_todo`` loop, which moves the progress bar itself."""
        columns = failure.columns()
        for size in sizes:
            for end in block.ends():
                self.rows.append(self._row(block, size, *end, **columns))
            for k, t in enumerate(block.test.transfers if block.test is not None else ()):
                self.rows.insert(len(self.rows) - 1, self._row(  # each transfer, then all
                    block, size, t.src, t.dst, transfer=k, link=self._link(t),
                    initiator=t.initiator, nominal_GBps=test_nominal(self.rt, (t,)),
                    **columns))
            self._emitted.add((block.key, size))
            if tick and self.bar is not None:
                self.bar.update(1)


def _initiator(spec: SweepSpec, block: Block) -> str | None:
    """Which end's stream carries the copies: the spec's choice for pairs, the center
    of a fan-out, the device of a host copy (h2d: the destination)."""
    if block.pattern == TEST_PATTERN:
        return None  # each transfer's row says its own
    if block.pattern in PAIR_PATTERNS or block.pattern in GROUP_PATTERNS:
        return spec.initiator
    return "dst" if block.pattern in (PULL_FANOUT, HOST_TO_DEVICE) else "src"


def bandwidth(nbytes: int, elapsed_us: float) -> float:
    """Decimal GB/s of nbytes moved in elapsed_us (NaN for a window of no time).

    Example:
        >>> bandwidth(2_000_000_000, 1e6)
        2.0
    """
    return nbytes / (elapsed_us * 1e3) if elapsed_us > 0 else math.nan


def latency(elapsed_us: float, copies: int) -> float:
    """Time per copy (µs) of ``copies`` back-to-back copies that took elapsed_us in all
    (NaN for a window of no time or no copies).

    Example:
        >>> latency(1000.0, 200)
        5.0
    """
    return elapsed_us / copies if elapsed_us > 0 and copies > 0 else math.nan


def _verification(verified: bool | None, src: int | None, dst: int | None,
                  groups: GroupPair | None = None) -> dict[str, Any]:
    """The failure columns of a point whose bytes did not arrive intact (else none)."""
    if verified is not False:
        return {}
    if groups is not None:
        return outcomes.Failure("verification", "data verification failed: a receiver of "
                                f"{group_name(*groups)} holds bytes other than its sender's"
                                ).columns()
    return outcomes.verification_failed(src, dst).columns()


def aggregate_nominal(rt: Runtime, flows: list[tuple[int, int]]) -> float:
    """The paper rate of copies on several links at once: the sum of their links' rates,
    where links through a switch share each device's one port (the topology's
    ``port_GBps``, for what leaves a sender and what enters a receiver); NaN when a link
    has no rate or the topology is unknown.

    Example:
        >>> from ascend_p2p_lab.runtime import open_runtime
        >>> with open_runtime("sim", "atlas800t-a2") as rt:
        ...     aggregate_nominal(rt, [(0, 2), (0, 3), (1, 2), (1, 3)])
        112.0
    """
    topo = rt.topology
    if topo is None or not flows:
        return math.nan
    direct: list[float] = []
    out: dict[int, list[float]] = {}
    into: dict[int, list[float]] = {}
    for a, b in flows:
        lc = topo.link_classes.get(rt.link_class(a, b))
        if lc is None:
            return math.nan
        if lc.switched:
            out.setdefault(a, []).append(lc.nominal_GBps)
            into.setdefault(b, []).append(lc.nominal_GBps)
        else:
            direct.append(lc.nominal_GBps)
    port = topo.port_GBps if topo.port_GBps is not None else math.inf
    switched = min(math.fsum(min(port, math.fsum(r)) for r in side.values())
                   for side in (out, into)) if out else 0.0
    return math.fsum(direct) + switched


def test_nominal(rt: Runtime, transfers: tuple[Transfer, ...] | list[Transfer]) -> float:
    """The paper rate of a test's transfers at once: :func:`aggregate_nominal` of its
    device copies plus the host link's rate (h2d or d2h, from the topology) of each host
    copy; NaN when the topology is unknown or gives no rate.

    Example:
        >>> from ascend_p2p_lab.runtime import open_runtime
        >>> from ascend_p2p_lab.measure.transfers import parse_transfer
        >>> with open_runtime("sim", "atlas800t-a2") as rt:
        ...     test_nominal(rt, [parse_transfer(t, 8) for t in ("0->1", "2->3")])
        56.0
    """
    topo = rt.topology
    if topo is None or not transfers:
        return math.nan
    flows = [f for t in transfers if (f := t.peer_flow) is not None]
    total = aggregate_nominal(rt, flows) if flows else 0.0
    for t in transfers:
        if t.peer_flow is None:
            total += topo.host.h2d_GBps if t.src is None else topo.host.d2h_GBps
    return total


def bidirectional_total(ab_GBps: float, ba_GBps: float) -> float:
    """Both directions of a pair measured at once: their bandwidths add up.

    Example:
        >>> bidirectional_total(26.0, 25.0)
        51.0
    """
    return ab_GBps + ba_GBps
