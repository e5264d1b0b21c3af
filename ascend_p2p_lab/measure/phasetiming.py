"""The timing of a collective (the ``phases`` timing mode): behind a gate (a chain of
device-local copies on the lead device, sized to outlast the host's enqueue), every rank
is released, each phase's moves run at once on slot streams, each after the end of the
previous phase on its own rank and on its peer (the barrier), writes into a rank landed
before its reduction pass (a device-local copy of the bytes it reduces) and its end; each
rank's times are taken on its own device and set on the lead's clock by the measured
cross-device hop.

:class:`~.timing.Streams` makes a :class:`Phases` for a test of the ``phases`` mode; the
executor sizes its samples with :func:`~.timing.calibrate` as any other's.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

from ..collectives.schedule import DONE, END, START, Ref
from ..runtime import Event, Runtime
from ..runtime.resources import close_all
from .timing import Sample, Timing

#: Bytes of one gate copy (device-local, on the lead device): the gate repeats it until the
#: host has enqueued the whole sample (nvbandwidth's spin kernel, which pyACL lacks).
GATE_BYTES = 128 << 20
#: The gate outlasts the host time of the previous sample by this factor.
GATE_MARGIN = 1.3
MAX_GATE_COPIES = 200_000


@dataclass(frozen=True)
class PhaseSample(Sample):
    """A sample of a collective: ``window`` spans its runs (``per_copy_us`` is one run),
    ``host_enqueue_us`` the host time of the whole sample; of its last run each phase's
    time, and when each move ended (since its rank's release, in the phase's order: the
    last to end is the one that set the phase's time); the cross-device hop the release
    measured; the gate's device time; ``host_bound``: the gate released the ranks before
    the host had enqueued everything (the window then holds host time); ``move_limits``:
    on the simulator, what bound each move (:meth:`.Runtime.copy_limit`: a saturated link
    or budget), empty on hardware."""

    phase_us: tuple[float, ...] = ()
    move_us: tuple[tuple[float, ...], ...] = ()
    hop_us: float = 0.0
    gate_us: float = 0.0
    host_bound: bool = False
    move_limits: tuple[tuple[tuple | None, ...], ...] = ()


class Phases:
    """The streams and events a collective is timed with (``phases`` in the module doc):
    a gate stream and one watch stream on the first rank's device, per rank its rank
    stream and slot streams, and the events of the program
    (:mod:`ascend_p2p_lab.collectives.schedule`); buffers are the executor's
    (:attr:`buffers`, a :class:`~.phasebuffers.PhaseBuffers`).

    Every rank's times are taken on its own device from its ``start`` (recorded when the
    gate releases it): the lead rank's start is the release itself, the others' one
    cross-device hop later; the watch stream sees a second rank's start one hop later
    again, which measures the hop (half that round trip), and the others' times are
    shifted by it onto the lead's clock.
    """

    def __init__(self, rt: Runtime, program: Any) -> None:
        self.rt, self.prog = rt, program
        self.ranks: tuple[int, ...] = program.collective.ranks
        self.lead = self.ranks[0]
        self.runs = 0  # runs made so far (the verification follows their data)
        self.gate_copies = 4
        #: from the last sample: the device time of one gate copy, the host time of a run
        self.per_gate_us: float | None = None
        self.host_per_run_us: float | None = None
        self.buffers: Any = None
        self.made: list[Any] = []
        try:
            self._make()
        except BaseException:
            self.close()
            raise

    def _make(self) -> None:
        rt, one, phases = self.rt, self.prog.one, self.prog.collective.phases

        def made(resource: Any) -> Any:
            self.made.append(resource)
            return resource

        self.gate, self.watch = made(rt.stream(self.lead)), made(rt.stream(self.lead))
        self.gate0, self.rel, self.seen = (made(rt.event(self.lead)) for _ in range(3))
        # slots before the rank streams: the simulator starts ready heads in the order the
        # streams were made, so a rank stream's waits on its slots resolve in one pass
        slots = {d: max(one.slots[d], self.prog.closed.slots[d]) for d in self.ranks}
        self.slot = {d: [made(rt.stream(d)) for _ in range(slots[d])] for d in self.ranks}
        self.rank = {d: made(rt.stream(d)) for d in self.ranks}
        self.start = {d: made(rt.event(d)) for d in self.ranks}
        self.pre = {d: made(rt.event(d)) for d in self.ranks}  # the last run's start
        self.end = [{d: made(rt.event(d)) for d in self.ranks} for _ in phases]
        self.done = [[made(rt.event(m.by)) for m in p.moves] for p in phases]
        self.land = [
            [made(rt.event(la.device)) for la in lands] for lands in self.prog.closed.landings
        ]  # the closing run's: more
        order = {d: i for i, d in enumerate(self.ranks)}  # a device's calls together
        self.order = [
            sorted(st, key=lambda s, p=p: order[p.moves[s.index].by])
            for st, p in zip(one.steps, phases)
        ]

    def _event(self, ref: Ref, run: int) -> Event:
        if ref.kind == START:
            return self.start[ref.who] if run == 0 else self.end[-1][ref.who]
        if ref.kind == END:
            return self.end[ref.phase][ref.who]
        return (self.done if ref.kind == DONE else self.land)[ref.phase][ref.who]

    def sample(self, n: int) -> PhaseSample:
        """n runs behind the gate, then their times (see :class:`PhaseSample`)."""
        rt, bufs = self.rt, self.buffers
        if self.per_gate_us and self.host_per_run_us:  # outlast this sample's enqueue
            self.gate_copies = max(
                1,
                min(
                    MAX_GATE_COPIES,
                    math.ceil(GATE_MARGIN * self.host_per_run_us * n / self.per_gate_us) + 1,
                ),
            )
        t0 = rt.host_time_ns()
        self.gate0.record(self.gate)
        rt.enqueue_copies(
            bufs.gate_dst, bufs.gate_src, bufs.gate_bytes, self.gate, self.gate_copies
        )
        self.rel.record(self.gate)
        for d in self.ranks:
            rt.wait_event(self.rank[d], self.rel)
            self.start[d].record(self.rank[d])
        rt.wait_event(self.watch, self.start[self.ranks[1]])  # the hop, there and back
        self.seen.record(self.watch)
        for run in range(n):
            if run == n - 1:
                for d in self.ranks:
                    self.pre[d].record(self.rank[d])
            program = self.prog.one if run == n - 1 else self.prog.closed
            for k in range(len(self.end)):
                self._phase(k, run, program)
        host_us = (rt.host_time_ns() - t0) / 1000.0
        self.runs += n
        return self._times(n, host_us)

    def _phase(self, k: int, run: int, one: Any) -> None:
        """Phase k of a run: its moves, its landings, each rank's reduction and end (the
        last run of a sample does not close: the host waits for all of it anyway)."""
        rt, bufs = self.rt, self.buffers
        moves, lay = self.prog.collective.phases[k].moves, self.prog.layout
        for st in self.order[k]:
            m = moves[st.index]
            stream = self.slot[m.by][st.slot]
            for ref in st.waits:
                rt.wait_event(stream, self._event(ref, run))
            into = (
                (bufs.recv[m.dst], lay.slots[(k, st.index)])
                if m.reduce
                else (bufs.data[m.dst], lay.offsets[m.dst][m.piece])
            )
            rt.memcpy_async(
                into[0],
                bufs.data[m.src],
                m.nbytes,
                stream,
                dst_offset=into[1],
                src_offset=lay.offsets[m.src][m.piece],
            )
            self.done[k][st.index].record(stream)
        for i, la in enumerate(one.landings[k]):
            stream = self.slot[la.device][la.slot]
            rt.wait_event(stream, self.done[la.of_phase][la.move])
            self.land[k][i].record(stream)
        for d in self.ranks:
            stream = self.rank[d]
            for ref in one.marks[k][d]:
                rt.wait_event(stream, self._event(ref, run))
            if (k, d) in lay.passes:  # the reduction: a local copy of what it reduces
                at, nbytes = lay.passes[(k, d)]
                rt.memcpy_async(bufs.scratch[d], bufs.recv[d], nbytes, stream, src_offset=at)
            self.end[k][d].record(stream)

    def _times(self, n: int, host_us: float) -> PhaseSample:
        """The sample's times on the lead's clock (see the class doc), and what the next
        sample's gate is sized from (one gate copy's time, the host's time per run)."""
        rt = self.rt
        gate_us = rt.elapsed_ms(self.gate0, self.rel) * 1000.0
        hop = rt.elapsed_ms(self.rel, self.seen) * 1000.0 / 2

        def at(d: int, ev: Event) -> float:
            return rt.elapsed_ms(self.start[d], ev) * 1000.0 + (hop if d != self.lead else 0.0)

        first = hop  # every rank but the lead released, one hop after the release
        bounds = [
            max(at(d, self.pre[d]) for d in self.ranks) if n > 1 else first,
            *(max(at(d, ends[d]) for d in self.ranks) for ends in self.end),
        ]
        phase_us = tuple(b - a for a, b in itertools.pairwise(bounds))
        moves = [p.moves for p in self.prog.collective.phases]
        move_us = tuple(
            tuple(at(m.by, e) for m, e in zip(ms, es)) for ms, es in zip(moves, self.done)
        )
        self.per_gate_us = gate_us / self.gate_copies
        self.host_per_run_us = host_us / n
        limits = (
            tuple(tuple(rt.copy_limit(e) for e in es) for es in self.done) if rt.simulated else ()
        )
        return PhaseSample(
            Timing(n, bounds[-1] - first, host_us),
            (),
            phase_us,
            move_us,
            hop,
            gate_us,
            gate_us < host_us,
            limits,
        )

    def close(self) -> None:
        made, self.made = self.made, []
        close_all(list(reversed(made)))
