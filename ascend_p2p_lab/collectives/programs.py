"""Collectives as tests of the one executor: each operation at each size a
:class:`~ascend_p2p_lab.patterns.model.Test` of the ``collective`` pattern, timed by the
``phases`` mode, carrying its :class:`Program` (the phases HCCL would run on the chosen
devices, the program on the streams, the buffers' layout, the prediction from links).

Example:
    >>> from ascend_p2p_lab.topology import load_preset
    >>> a2 = load_preset("atlas800t-a2")
    >>> [t] = collective_tests(a2, ["all_gather"], [1 << 20], devices=[0, 1, 2, 3])
    >>> t.key, t.program.collective.algorithm, len(t.transfers)
    ('collective/uni/on/p2p/all_gather-1048576', 'mesh', 12)
    >>> round(t.program.predicted.busbw_GBps, 1)
    34.2
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..patterns.model import PER_PHASE, PHASES, Test, Transfer
from ..topology import Topology
from ..vocab import COLLECTIVE
from .layout import Layout, layout
from .phases import Collective
from .predict import Timing, bound, predict
from .rates import LinkModel
from .schedule import Schedule, closed, repeat, schedule
from .select import collective


@dataclass(frozen=True)
class Program:
    """What the ``phases`` timing runs for one collective: its phases, its program for
    one run (``one``; ``closed``: a run another follows, :meth:`runs` repeats them), its
    buffers, and the prediction from
    the links (``model``; None where the server's links are unknown) and their bound
    (:func:`.predict.bound`)."""

    collective: Collective
    one: Schedule
    closed: Schedule
    layout: Layout
    model: LinkModel | None = None
    predicted: Timing | None = None
    bound: Timing | None = None
    _repeated: dict[int, Schedule] = field(default_factory=dict, compare=False, repr=False)

    def runs(self, n: int) -> Schedule:
        """The program of n runs back to back."""
        if n not in self._repeated:
            self._repeated[n] = repeat(self.one, n, self.closed)
        return self._repeated[n]

    @property
    def name(self) -> str:
        c = self.collective
        return f"{c.operation}-{c.size_bytes}"


def program(coll: Collective, model: LinkModel | None = None) -> Program:
    """The program of a collective, predicted on ``model`` when given."""
    one, last = schedule(coll), closed(coll)
    if model is None:
        return Program(coll, one, last, layout(coll))
    return Program(coll, one, last, layout(coll), model, predict(coll, model), bound(coll, model))


def as_test(prog: Program) -> Test:
    """The test that runs a program: every device pair and initiator it copies with
    (peer access is set for each pair), at its one size."""
    c = prog.collective
    transfers = tuple(
        dict.fromkeys(Transfer(m.src, m.dst, m.by) for p in c.phases for m in p.moves)
    )
    return Test(
        prog.name,
        transfers,
        (c.size_bytes,),
        f"{c.operation} by {c.algorithm} on devices {','.join(map(str, c.ranks))}",
        pattern=COLLECTIVE,
        timing=PHASES,
        values=PER_PHASE,
        program=prog,
    )


def collective_tests(
    topology: Topology,
    operations: Iterable[str],
    sizes: Iterable[int],
    devices: Sequence[int] | None = None,
    algorithm: str | None = None,
    model: LinkModel | None = None,
) -> list[Test]:
    """One test per operation and size (operations outer): the algorithm HCCL would run
    on ``devices`` (all by default), or ``algorithm``'s; predicted on ``model`` (default
    the topology's links: :meth:`.LinkModel.from_topology`). A collective the server
    cannot run (a pair it copies over cannot reach peer to peer) raises
    :class:`~.model.CollectiveError`."""
    model = LinkModel.from_topology(topology) if model is None else model
    sizes = list(sizes)
    return [
        as_test(program(collective(op, size, topology, devices, algorithm=algorithm), model))
        for op in operations
        for size in sizes
    ]
