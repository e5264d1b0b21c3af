"""Rows of a sweep: what each measured sample or failed point of a test becomes, and the
formulas.

A test's rows follow its declared ``values`` (:mod:`ascend_p2p_lab.patterns.model`): a row
per transfer (each its own time, or the time per copy), a row per direction over the
window of all, or both. Which rows one sample gives is worked out once per test (its
*slots*: ends, link, initiator, nominal rate); each sample then fills in its numbers.
The bandwidth of a window, the time per copy and the total of a bidirectional pair are
named functions, tested on their own; :class:`Context` is what the executor writes
through.

Example:
    >>> bandwidth(1 << 30, 41_000.0) > 26
    True
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..patterns.cards import group_name
from ..patterns.model import (
    EACH,
    PER_COPY,
    PER_PHASE,
    PER_TRANSFER,
    STAGED,
    TRANSFERS,
    Failure,
    Test,
    Transfer,
    blocking,
    link_of,
    transfer_link,
)
from ..runtime import Runtime
from ..units import format_size
from ..vocab import BI, DST, EVENTS, HOST_CLOCK, SRC
from . import outcomes, phaserows
from .buffers import BufferPool
from .diechoice import die_slot
from .spec import Sampling
from .timing import Sample, Timing


@dataclass
class Context:
    """What the executor needs: runtime, parameters, buffers and the row sink."""

    rt: Runtime
    sampling: Sampling
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
    _slots: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    #: each slot's row prefix (:meth:`_prefix`), by the slot's id, with the slot and test
    _prefixes: dict[int, tuple[Any, ...]] = field(default_factory=dict)

    def sizes_todo(self, test: Test) -> Iterator[int]:
        """The test's sizes not done yet; ticks the progress bar after each one. Each
        point starts with ``rt.begin_point`` (on the simulator, a point's numbers then
        depend on the point, not on what ran before it)."""
        for size in test.sizes or self.sampling.sizes:
            if (test.key, size) in self.done or (test.key, size) in self._emitted:
                continue
            self.rt.begin_point(f"{test.key}/{size}")
            if self.bar is not None:
                self.bar.set_postfix_str(f"{test.label} {format_size(size)}", refresh=False)
            yield size
            if self.bar is not None:
                self.bar.update(1)

    def remaining(self, test: Test) -> list[int]:
        return [
            s
            for s in test.sizes or self.sampling.sizes
            if (test.key, s) not in self.done and (test.key, s) not in self._emitted
        ]

    def emitted(self, test: Test) -> list[int]:
        """The test's sizes whose rows this context emitted."""
        return [s for s in test.sizes or self.sampling.sizes if (test.key, s) in self._emitted]

    def adopt(self, test: Test, sizes: list[int]) -> None:
        """Count sizes of a test emitted elsewhere (by a worker process) as emitted here,
        and tick the progress bar for them."""
        self._emitted.update((test.key, s) for s in sizes)
        if self.bar is not None and sizes:
            self.bar.update(len(sizes))

    # ------------------------------------------------------------------ the rows
    def slots(self, test: Test) -> list[dict[str, Any]]:
        """The columns each row of one sample of the test holds before its numbers, in
        row order (made once per test)."""
        if test.key not in self._slots:
            self._slots[test.key] = _slots(self, test)
        return self._slots[test.key]

    def _timing(self, test: Test) -> str:
        """How the test's samples are timed: the host clock for the staged path and for
        a test of one copy when the sweep asks (blocking copies), else events."""
        staged_or_blocking = test.timing == STAGED or blocking(test, self.sampling.timing)
        return HOST_CLOCK if staged_or_blocking else EVENTS

    def _values(self, t: Timing, size: int, timing: str, transfers: int) -> dict[str, Any]:
        bw = bandwidth(size * t.copies * transfers, t.elapsed_us)
        bound = (
            t.host_enqueue_us >= self.sampling.host_bound_ratio * t.elapsed_us
            if timing == EVENTS
            else None
        )
        return {
            "copies": t.copies,
            "elapsed_us": t.elapsed_us,
            "bandwidth_GBps": bw,
            "host_enqueue_us": t.host_enqueue_us,
            "host_bound": bound,
            "timing": timing,
        }

    def emit(
        self, test: Test, size: int, samples: Sequence[Sample], verified: Sequence[bool | None]
    ) -> None:
        """A test's samples at one size: per sample, its rows in slot order (a
        collective: the op's row and a row per phase, :mod:`.phaserows`)."""
        if test.values == PER_PHASE:
            slot, ok = self.slots(test)[0], verified[0]
            bad = (
                {}
                if ok is not False
                else outcomes.Failure(
                    "verification",
                    f"data verification failed: a piece of {test.name} holds "
                    "bytes other than its origin's",
                ).columns()
            )
            for i, sample in enumerate(samples):
                for v in phaserows.sample_values(test, sample, ok):  # type: ignore[arg-type]
                    self.rows.append(self._row(test, size, slot, sample=i, **v, **bad))
            self._emitted.add((test.key, size))
            return
        timing, slots = self._timing(test), self.slots(test)
        checks = [_verdict(verified, s["_members"]) for s in slots]
        bad = [_verification(ok, test, s) for ok, s in zip(checks, slots)]
        for i, sample in enumerate(samples):
            values = []
            for s in slots:
                own = s["_transfer"]
                t = sample.each[own] if own is not None else sample.window
                assert t is not None
                # a test over both die links moves size bytes in all (patterns.dielink)
                many = own is None and not test.die_link
                v = self._values(t, size, timing, len(s["_members"]) if many else 1)
                if test.values == PER_COPY:
                    v["latency_us"] = latency(t.elapsed_us, t.copies)
                values.append(v)
            if test.direction == BI:
                total = bidirectional_total(*(v["bandwidth_GBps"] for v in values))
                for v in values:
                    v["bidir_total_GBps"] = total
            for s, v, ok, b in zip(slots, values, checks, bad):
                self.rows.append(self._row(test, size, s, sample=i, verified=ok, **v, **b))
        self._emitted.add((test.key, size))

    def error_rows(
        self, test: Test, sizes: list[int], failure: Failure, *, tick: bool = True
    ) -> None:
        """Rows that carry a failure instead of a number; ``tick=False`` inside a
        ``sizes_todo`` loop, which moves the progress bar itself."""
        columns = failure.columns()
        for size in sizes:
            for s in self.slots(test):
                self.rows.append(self._row(test, size, s, **columns))
            self._emitted.add((test.key, size))
            if tick and self.bar is not None:
                self.bar.update(1)

    def _row(self, test: Test, size: int, slot: dict[str, Any], **values: Any) -> dict[str, Any]:
        made = self._prefixes.get(id(slot))
        if made is None or made[1] is not test:  # the slot is kept in it: no other has its id
            made = (slot, test, self._prefix(test, slot), "size_bytes" in slot)
            self._prefixes[id(slot)] = made
        row = made[2].copy()
        if not made[3]:  # a slot's own size_bytes stands, as its items come after the size
            row["size_bytes"] = size
        row.update(values)
        return row

    def _prefix(self, test: Test, slot: dict[str, Any]) -> dict[str, Any]:
        """What every row of a test's slot holds before its size and values, the columns
        in row order (the size's place kept)."""
        row = {
            **self.base,
            **_EMPTY,
            "pattern": test.pattern,
            "direction": test.direction,
            "peer": test.peer,
            "path": test.path,
            "size_bytes": None,
            "timing": self._timing(test),
            "test": test.name if test.values == TRANSFERS else None,
            "die_link": test.die_link or None,
            "die_split": math.nan if test.die_split is None else test.die_split,
        }
        row.update((k, v) for k, v in slot.items() if not k.startswith("_"))
        return row


#: The columns a row starts from (a failure or a sample fills them in).
_EMPTY: dict[str, Any] = {
    "copies": None,
    "sample": None,
    "elapsed_us": math.nan,
    "bandwidth_GBps": math.nan,
    "host_enqueue_us": math.nan,
    "host_bound": None,
    "verified": None,
    "error": None,
    "bidir_total_GBps": math.nan,
    "error_kind": None,
    "error_code": None,
    "error_call": None,
    "latency_us": math.nan,
    "cpu_affinity": None,
    "transfer": None,
    "group": None,
    "senders": None,
    "receivers": None,
}


def _slots(ctx: Context, test: Test) -> list[dict[str, Any]]:
    """The row slots of one sample: a slot per transfer (values each, per copy,
    transfers), a slot per direction over the window (sum, sum per direction), and for a
    test of transfers the aggregate last. ``_transfer``: whose own timing the slot shows
    (None: the window); ``_members``: the transfers it covers."""
    if test.values == PER_PHASE:  # a collective: its op's row (the phase rows follow it)
        return [
            {
                **phaserows.slot(test, link_of(test, ctx.rt.link_class)),
                "_transfer": None,
                "_members": (),
            }
        ]
    if test.die_link:  # one copy between twin dies over its die link(s): one row
        return [die_slot(ctx.rt, test)]
    links = [transfer_link(t, ctx.rt.link_class) for t in test.transfers]
    out = []
    if test.values in PER_TRANSFER:
        for k, (t, link) in enumerate(zip(test.transfers, links)):
            end = t.dst if t.src is None else t.src
            out.append(
                {
                    "src": t.src,
                    "dst": t.dst,
                    "link": link,
                    "initiator": t.initiator,
                    "nominal_GBps": math.nan
                    if test.timing == STAGED
                    else ctx.nominal.get(link, math.nan),
                    "cpu_affinity": ctx.affinity.get(end) if t.host_end else None,
                    "transfer": k if test.values == TRANSFERS else None,
                    "_transfer": k,
                    "_members": (k,),
                }
            )
    if test.values in (EACH, PER_COPY):
        return out
    link = link_of(test, ctx.rt.link_class)
    ends = test.ends or ((None, None, None, None),)
    # an aggregate names its transfers' one initiator (a fan-out with no peer to copy
    # to: its centre's side); a test of transfers names none (each transfer's row does)
    who = {t.initiator for t in test.transfers} or {
        SRC if end[0] is not None else DST for end in ends if end[0] != end[1]
    }
    initiator = who.pop() if len(who) == 1 and test.values != TRANSFERS else None
    for i, (src, dst, senders, receivers) in enumerate(ends):
        members = tuple(k for k in range(len(test.transfers)) if test.direction_of(k) == i)
        grouped = senders is not None and receivers is not None
        out.append(
            {
                "src": src,
                "dst": dst,
                "link": link,
                "initiator": initiator,
                **_window_nominal(ctx.rt, test.transfers, members),
                "group": group_name(senders, receivers) if grouped else None,
                "senders": senders,
                "receivers": receivers,
                "_transfer": None,
                "_members": members,
            }
        )
    return out


def _verdict(verified: Sequence[bool | None], members: Sequence[int]) -> bool | None:
    """A slot's verification: its transfer's, or all of its members' (False if any is,
    None when none was checked)."""
    got = [verified[k] for k in members]
    if False in got:
        return False
    return None if all(v is None for v in got) else True


def _verification(ok: bool | None, test: Test, slot: dict[str, Any]) -> dict[str, Any]:
    """The failure columns of a slot whose bytes did not arrive intact (else none)."""
    if ok is not False:
        return {}
    if slot["_transfer"] is not None:
        return outcomes.verification_failed(slot["src"], slot["dst"]).columns()
    what = slot["group"] or (
        f"test {test.name}" if test.values == TRANSFERS else f"{test.pattern} {test.name}"
    )
    return outcomes.Failure(
        "verification",
        f"data verification failed: a transfer of {what} holds bytes other than its source's",
    ).columns()


def _window_nominal(
    rt: Runtime, transfers: Sequence[Transfer], members: Sequence[int]
) -> dict[str, Any]:
    """The paper rate of the transfers ``members`` while all ``transfers`` run at once
    over one window (:func:`aggregate_bound`: the other direction of a bidirectional
    window shares the both-ways budgets), and the budget that holds it
    (``bottleneck_budget``); no rate when one has no paper rate (a host end: the host
    link's figure in a preset is a reference, measured, not a rate on paper:
    vocab.REFERENCE)."""
    picked = [transfers[k] for k in members]
    if any(t.host_end for t in transfers) or not any(t.peer_flow for t in picked):
        return {"nominal_GBps": math.nan, "bottleneck_budget": None}
    copying = [k for k, t in enumerate(transfers) if t.peer_flow is not None]
    flows = [f for k in copying if (f := transfers[k].peer_flow) is not None]
    chosen = set(members)
    rate, budget = aggregate_bound(rt, flows, [i for i, k in enumerate(copying) if k in chosen])
    return {"nominal_GBps": rate, "bottleneck_budget": budget}


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


def aggregate_nominal(rt: Runtime, flows: list[tuple[int, int]]) -> float:
    """The paper rate of copies on several links at once (:func:`aggregate_bound`'s rate).

    Example:
        >>> from ascend_p2p_lab.runtime import open_runtime
        >>> with open_runtime("sim", "atlas800t-a2") as rt:
        ...     aggregate_nominal(rt, [(0, 2), (0, 3), (1, 2), (1, 3)])
        112.0
    """
    return aggregate_bound(rt, flows)[0]


def aggregate_bound(
    rt: Runtime, flows: list[tuple[int, int]], members: Sequence[int] | None = None
) -> tuple[float, str | None]:
    """The paper rate of copies on several links at once (of the flows ``members`` of
    them while all run; default all), and the shared budget that holds it below the sum
    of its links' rates (None: none does). Each copy runs at most
    at its link class's nominal rate; the budgets the preset declares (a switched link's
    port each way, ``port_GBps``; each ``[[shared]]`` group's egress, ingress and
    both-ways budget: the simulator's resources, :func:`.collectives.rates.topology_budgets`)
    are shared max-min fairly, as the simulator shares them; the rate is the sum. NaN
    when a link has no rate or the topology is unknown.

    Example:
        >>> from ascend_p2p_lab.runtime import open_runtime
        >>> with open_runtime("sim", "atlas800t-a3") as rt:  # card 0,1 -> card 2,3
        ...     aggregate_bound(rt, [(0, 2), (0, 3), (1, 2), (1, 3)])
        (329.0, 'card[0,1]:egress')
        >>> with open_runtime("sim", "atlas800t-a2") as rt:  # one copy: its link's rate
        ...     aggregate_bound(rt, [(2, 0)])
        (28.0, None)
    """
    from ..collectives.rates import topology_budgets

    topo = rt.topology
    if topo is None or not flows:
        return math.nan, None
    caps: list[float] = []
    budgets: dict[str, tuple[float, list[int]]] = {}
    for k, (a, b) in enumerate(flows):
        lc = topo.link_classes.get(rt.link_class(a, b))
        if lc is None:
            return math.nan, None
        caps.append(lc.nominal_GBps)
        for budget in topology_budgets(topo, a, b):
            budgets.setdefault(budget.name, (budget.capacity_GBps, []))[1].append(k)
    rates, binding = fair_share(caps, budgets)
    picked = range(len(flows)) if members is None else members
    total = math.fsum(rates[k] for k in picked)
    # a budget used up only as the links reach their own rates holds nothing below them
    binds = total < math.fsum(caps[k] for k in picked) * (1 - 1e-9)
    return total, binding if binds else None


def fair_share(
    caps: Sequence[float], budgets: dict[str, tuple[float, list[int]]]
) -> tuple[list[float], str | None]:
    """Progressive filling: every flow's rate rises together until its own cap or a
    budget it crosses (capacity, member flows) is used up; the rates, and the first
    budget used up (declaration order breaks a tie; None: only caps were reached).

    Example:
        >>> fair_share([10.0, 10.0, 4.0], {"port": (12.0, [0, 1])})
        ([6.0, 6.0, 4.0], 'port')
    """
    rate = [0.0] * len(caps)
    live = set(range(len(caps)))
    left = {name: cap for name, (cap, _) in budgets.items()}
    binding: str | None = None
    while live:
        step, full = min(caps[k] - rate[k] for k in live), None
        for name, (_, members) in budgets.items():
            moving = [k for k in members if k in live]
            if moving and left[name] / len(moving) < step - 1e-12:
                step, full = left[name] / len(moving), name
        for k in live:
            rate[k] += step
        for name, (_, members) in budgets.items():
            left[name] -= step * sum(1 for k in members if k in live)
        spent = {name for name in budgets if left[name] <= 1e-9}
        binding = binding or full or next(iter(sorted(spent, key=list(budgets).index)), None)
        live = {
            k
            for k in live
            if caps[k] - rate[k] > 1e-9 and not any(k in budgets[name][1] for name in spent)
        }
    return rate, binding


def bidirectional_total(*directions_GBps: float) -> float:
    """Both directions of a pair measured at once: their bandwidths add up.

    Example:
        >>> bidirectional_total(26.0, 25.0)
        51.0
    """
    return math.fsum(directions_GBps)
