"""The expected time of a collective from its links, phase by phase, and the link (or the
shared budget) that holds each phase back.

A phase costs (the alpha-beta-gamma model of HCCL's ``coll_algo_intro`` pages, one step
``D = alpha + n beta + n gamma``, applied to the phase's actual copies):

- **alpha**: a barrier (every rank's stream waits on the events of the previous phase,
  ``barrier_us``: the preset's ``cross_device_wait_us``, HCCL's per-step handshake) plus
  the largest latency of the phase's copies (the class's ``latency_us``, or the measured
  small-copy latency);
- **n beta**: the most loaded resource of the phase: each ordered pair carries the sum of
  its copies' streaming times (bytes / rate of the pair for that initiator), each shared
  budget the sum of the bytes that cross it over its capacity. The most loaded one is
  the phase's bottleneck: a link ``(src, dst)`` or a budget by name;
- **n gamma**: the reductions that follow, on every device at once: the largest pass
  (``local_latency_us`` + bytes / ``local_GBps``), after one more barrier when a
  reducing device did not issue every copy it reduces (it waits on the writers' events).

The op's time is the sum of its phases plus ``op_us``; algbw is hccl_test's bytes
(:func:`.model.convention`) over that time, busbw algbw x the nccl-tests factor; the op's
bottleneck is that of its longest phase (the first on ties). With no latency the time of
a mesh all-gather on uniform links at B is c / B, so busbw = (p - 1) B.

Example:
    >>> from ascend_p2p_lab.topology import load_preset
    >>> from ascend_p2p_lab.collectives.select import collective
    >>> from ascend_p2p_lab.collectives.rates import LinkModel
    >>> a2 = load_preset("atlas800t-a2")
    >>> t = predict(collective("all_gather", 256 << 20, a2), LinkModel.from_topology(a2))
    >>> round(t.busbw_GBps, 1), str(t.bottleneck)
    (181.6, '1->0')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from .busbw import bus_factor
from .phases import Collective, CollectiveError, Phase
from .rates import BYTES_PER_US, LinkModel
from .schedule import lands_on

PREDICTED, MEASURED = "predicted", "measured"
#: Loads within this relative margin of the largest count as a tie (the first one wins).
_TIE = 1e-6


@dataclass(frozen=True)
class Bottleneck:
    """What sets a phase's time: the link ``src -> dst`` or a shared ``budget``."""

    phase: int
    src: int | None = None
    dst: int | None = None
    budget: str | None = None
    #: how many resources are that loaded (1: this one alone holds the phase back)
    ties: int = 1

    def __str__(self) -> str:
        if self.budget is not None:
            return self.budget
        return "" if self.src is None else f"{self.src}->{self.dst}"


@dataclass(frozen=True)
class PhaseTime:
    """One phase's time and its parts, in us."""

    index: int
    label: str
    moves: int
    nbytes: int
    time_us: float
    bottleneck: Bottleneck
    barrier_us: float = 0.0
    latency_us: float = 0.0
    transfer_us: float = 0.0
    reduce_us: float = 0.0


@dataclass(frozen=True)
class Timing:
    """A collective's phases timed, predicted or measured."""

    collective: Collective
    phases: tuple[PhaseTime, ...]
    op_us: float = 0.0
    source: str = PREDICTED

    @property
    def time_us(self) -> float:
        return self.op_us + sum(p.time_us for p in self.phases)

    @property
    def algbw_GBps(self) -> float:
        """hccl_test's algorithm bandwidth: its bytes for the op over the time."""
        return self.collective.convention.algbw_bytes / (self.time_us * BYTES_PER_US)

    @property
    def busbw_GBps(self) -> float:
        c = self.collective
        return self.algbw_GBps * bus_factor(c.operation, len(c.ranks))

    @property
    def bottleneck(self) -> Bottleneck:
        """The bottleneck of the longest phase (the first on ties)."""
        return _longest(self.phases).bottleneck


def _longest(phases: Sequence[PhaseTime]) -> PhaseTime:
    best = phases[0]
    for p in phases[1:]:
        if p.time_us > best.time_us * (1 + _TIE):
            best = p
    return best


def _transfer(phase: Phase, model: LinkModel, index: int) -> tuple[float, float, Bottleneck]:
    """(largest latency, load of the most loaded resource, what it is) of a phase."""
    load: dict[object, float] = {}
    latency = 0.0
    for m in phase.moves:
        lat, stream = model.cost(m)
        latency = max(latency, lat)
        key = (m.src, m.dst)
        load[key] = load.get(key, 0.0) + stream
        for b in model.budgets(m.src, m.dst):
            load[b.name] = load.get(b.name, 0.0) + m.nbytes / (b.capacity_GBps * BYTES_PER_US)
    best_key, best = None, -1.0
    for key, value in load.items():
        if value > best * (1 + _TIE) or best_key is None:
            best_key, best = key, value
    ties = sum(1 for v in load.values() if v >= best * (1 - _TIE))
    if isinstance(best_key, tuple):
        return latency, best, Bottleneck(index, best_key[0], best_key[1], ties=ties)
    return latency, best, Bottleneck(index, budget=str(best_key), ties=ties)


def _reductions(phase: Phase, model: LinkModel) -> tuple[float, float]:
    """(extra barrier, longest reduction pass) of a phase: the barrier when a device must
    wait for moves other ranks issue (:func:`.schedule.lands_on`: writes into it, reads of
    what it reduces; also where the writes reduce inline and no pass follows)."""
    wait = model.barrier_us if lands_on(phase) else 0.0
    if not phase.reduces:
        return wait, 0.0
    longest = max(
        model.local_latency_us + r.nbytes / (model.local_GBps * BYTES_PER_US) for r in phase.reduces
    )
    return wait, longest


def phase_time(phase: Phase, model: LinkModel, index: int = 0) -> PhaseTime:
    """The predicted time of one phase (see the module doc)."""
    if not phase.moves:
        raise CollectiveError(f"phase {index} ({phase.label or 'unnamed'}) has no moves")
    latency, transfer, neck = _transfer(phase, model, index)
    wait, reduce_us = _reductions(phase, model)
    barrier = model.barrier_us + wait
    return PhaseTime(
        index,
        phase.label,
        len(phase.moves),
        phase.nbytes,
        barrier + latency + transfer + reduce_us,
        neck,
        barrier,
        latency,
        transfer,
        reduce_us,
    )


def predict(coll: Collective, model: LinkModel) -> Timing:
    """The predicted timing of a collective on a server's links.

    Example:
        >>> from ascend_p2p_lab.topology import load_preset
        >>> from ascend_p2p_lab.collectives.select import collective
        >>> a2 = load_preset("atlas800t-a2")
        >>> model = LinkModel.from_topology(a2).degraded({(2, 5): 0.5})
        >>> str(predict(collective("all_gather", 256 << 20, a2), model).bottleneck)
        '2->5'
    """
    for d in coll.ranks:
        if not 0 <= d < model.devices:
            raise CollectiveError(f"device {d} is not on a server of {model.devices} devices")
    phases = tuple(phase_time(p, model, i) for i, p in enumerate(coll.phases))
    return Timing(coll, phases, model.op_us, PREDICTED)


#: The link bound prices every copy at the rate of a copy at least this large (measured
#: links are slower at small sizes, where their latency is not all subtracted out).
BOUND_BYTES = 256 << 20


def bound(coll: Collective, model: LinkModel) -> Timing:
    """What the links alone allow: each phase only its most loaded link or budget at
    its rate (the rate of a copy of at least :data:`BOUND_BYTES`; no barrier, latency or
    reduction); its busbw is the op's link bound.

    Example:
        >>> from ascend_p2p_lab.topology import load_preset
        >>> from ascend_p2p_lab.collectives.select import collective
        >>> a2 = load_preset("atlas800t-a2")
        >>> round(bound(collective("all_gather", 256 << 20, a2),
        ...             LinkModel.from_topology(a2)).busbw_GBps, 1)
        183.4
    """
    base = model.rate

    def rate(src: int, dst: int, nbytes: int, initiator: str) -> float:
        return base(src, dst, max(nbytes, BOUND_BYTES), initiator)

    model = replace(model, rate=rate)
    out = []
    for i, p in enumerate(coll.phases):
        _lat, transfer, neck = _transfer(p, model, i)
        out.append(
            PhaseTime(i, p.label, len(p.moves), p.nbytes, transfer, neck, transfer_us=transfer)
        )
    return Timing(coll, tuple(out), 0.0, PREDICTED)


def measured(
    coll: Collective,
    phase_us: Sequence[float],
    move_us: Sequence[Sequence[float]] | None = None,
    op_us: float = 0.0,
) -> Timing:
    """A timing from measured phase times (and, when given, each move's time in the
    order of the phase's moves: the slowest move of the longest phase is the
    bottleneck).

    Example:
        >>> from ascend_p2p_lab.collectives.phases import convention
        >>> from ascend_p2p_lab.collectives.algorithms import build
        >>> c = build("all_gather", "mesh", convention("all_gather", 4096, 2), (0, 1))
        >>> str(measured(c, [10.0], [[3.0, 9.0]]).bottleneck)
        '0->1'
    """
    if len(phase_us) != len(coll.phases):
        raise CollectiveError(f"{len(phase_us)} phase times for {len(coll.phases)} phases")
    out = []
    for i, (phase, t) in enumerate(zip(coll.phases, phase_us)):
        neck = Bottleneck(i)
        if move_us is not None:
            times = list(move_us[i])
            if len(times) != len(phase.moves):
                raise CollectiveError(
                    f"phase {i}: {len(times)} move times for {len(phase.moves)} moves"
                )
            slow = phase.moves[max(range(len(times)), key=times.__getitem__)]
            neck = Bottleneck(i, slow.src, slow.dst)
        out.append(PhaseTime(i, phase.label, len(phase.moves), phase.nbytes, float(t), neck))
    return Timing(coll, tuple(out), op_us, MEASURED)
