"""A collective as a program on the devices' streams: which stream issues each move, what
it waits on, where the reduction passes run, and the check that the waits order every
pair of conflicting accesses (a hazard).

Each rank has a **rank stream** (its reductions run there, and it records the rank's
end of each phase, ``end``) and **slot streams**, one per move it issues at once in a
phase (HCCL's slave streams: the moves of a phase run at once only on streams of their
own). Before phase k a move waits on the end of phase k - 1 of its own rank and then
of its peer (the other end of the copy; ``start`` before the first phase): one
cross-device wait per move and phase, the per-step handshake HCCL's notify gives and
the barrier of the cost model (:mod:`.predict`). A write into a rank by another rank
(a push), and a read by another rank of a piece the rank reduces in the phase, is
*landed* on one of the rank's slot streams (a wait on that move's ``done`` event): the
rank's end of the phase, and its reduction pass, follow every landing. So a rank's end
covers every move it issued, every write into it and every read of what it reduces.

:func:`hazards` checks the program: every read after a write of the same piece on the
same device, and every write after a read or a write, must be ordered by the waits
(program order on a stream, waits across streams); it lists what is not.

Example:
    >>> from ascend_p2p_lab.collectives.phases import convention
    >>> from ascend_p2p_lab.collectives.algorithms import build
    >>> c = build("all_reduce", "ring", convention("all_reduce", 4096, 3), (0, 1, 2))
    >>> s = schedule(c)
    >>> s.steps[1][0].waits
    (Ref(kind='end', phase=0, who=1), Ref(kind='end', phase=0, who=0))
    >>> hazards(s)
    []
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .phases import Collective, Move, Phase

START, END, DONE, LAND = "start", "end", "done", "land"


@dataclass(frozen=True)
class Ref:
    """An event of the program: a rank's ``start`` (``who`` the device), a rank's
    ``end`` of a phase, a move's ``done`` (``who`` its index in the phase) or a
    landing's ``land`` (``who`` its index in the phase's landings)."""

    kind: str
    phase: int
    who: int


@dataclass(frozen=True)
class Step:
    """One move of phase ``phase`` (``index`` in its moves), on slot stream ``slot`` of
    the device that issues it, after ``waits``."""

    phase: int
    index: int
    slot: int
    waits: tuple[Ref, ...]


@dataclass(frozen=True)
class Landing:
    """A move by another rank that ``device``'s end must follow (move ``move`` of phase
    ``of_phase``: this phase, or an earlier one for the closing barrier), waited for on
    the device's slot stream ``slot`` in phase ``phase``."""

    phase: int
    device: int
    slot: int
    move: int
    of_phase: int


@dataclass(frozen=True)
class Schedule:
    """The program of a collective: per phase its steps and landings, per phase and
    rank what its rank stream waits on before its reduction and its ``end``, and how many
    slot streams each device needs."""

    collective: Collective
    runs: int
    steps: tuple[tuple[Step, ...], ...]
    landings: tuple[tuple[Landing, ...], ...]
    marks: tuple[dict[int, tuple[Ref, ...]], ...]
    slots: dict[int, int]

    @property
    def phases(self) -> tuple[Phase, ...]:
        """The program's phases: the collective's, once per run."""
        return self.collective.phases * self.runs


def previous(phase: int, device: int) -> Ref:
    """The event that closes what came before ``phase`` on ``device``."""
    return Ref(START, 0, device) if phase == 0 else Ref(END, phase - 1, device)


def lands_on(phase: Phase) -> list[tuple[int, int]]:
    """(device, move index) of the moves of a phase another rank issues that a device's
    end must wait for: a write into the device, and a read of a piece the device reduces
    in the phase (its reduction rewrites what the reader reads). The cost model charges
    a barrier before the reductions of a phase that has any (:mod:`.predict`).

    Example:
        >>> p = Phase.of([Move(1, 0, 8, 1, 0, True), Move(0, 1, 8, 1, 1)])
        >>> lands_on(p)
        [(0, 0)]
    """
    reduced = {(m.dst, m.piece) for m in phase.moves if m.reduce}
    out = []
    for j, m in enumerate(phase.moves):
        if m.by != m.dst:
            out.append((m.dst, j))
        if m.by != m.src and (m.src, m.piece) in reduced:
            out.append((m.src, j))
    return out


def _peer(m: Move) -> int:
    return m.src if m.by == m.dst else m.dst


def _phase(
    coll: Collective, k: int, lands: list[tuple[int, int, int]]
) -> tuple[tuple[Step, ...], tuple[Landing, ...], dict[int, tuple[Ref, ...]]]:
    """Phase k's steps, its landings ((device, phase, move) each) and each rank's marks."""
    used: dict[int, int] = {}
    last: dict[tuple[int, int], Ref] = {}  # (device, slot) -> its last event
    steps = []
    for j, m in enumerate(coll.phases[k].moves):
        slot = used.get(m.by, 0)
        used[m.by] = slot + 1
        steps.append(Step(k, j, slot, (previous(k, m.by), previous(k, _peer(m)))))
        last[(m.by, slot)] = Ref(DONE, k, j)
    landed: dict[int, int] = {}
    landings = []
    for device, of, j in lands:
        slot = landed.get(device, 0)
        landed[device] = slot + 1
        landings.append(Landing(k, device, slot, j, of))
        last[(device, slot)] = Ref(LAND, k, len(landings) - 1)
    marks = {d: tuple(last[key] for key in sorted(last) if key[0] == d) for d in coll.ranks}
    return tuple(steps), tuple(landings), marks


def _one_run(coll: Collective, closing: bool = False) -> Schedule:
    """One run: every phase with the landings its reductions need; ``closing`` (a run
    that another follows): the last phase also lands, on each device, every move of the
    run by another rank that touched the device and that the device's end does not
    already follow (the closing barrier, so that the next run may write its memory)."""
    steps, landings, marks = [], [], []
    for k, phase in enumerate(coll.phases):
        lands = [(d, k, j) for d, j in lands_on(phase)]
        st, la, ma = _phase(coll, k, lands)
        if closing and k == len(coll.phases) - 1:
            draft = Schedule(coll, 1, (*steps, st), (*landings, la), (*marks, ma), {})
            index, before = _ancestors(_program(draft))
            for d in coll.ranks:
                seen = before[Ref(END, k, d)]
                lands += [
                    (d, kk, j)
                    for kk, ph in enumerate(coll.phases)
                    for j, m in enumerate(ph.moves)
                    if d in (m.src, m.dst) and m.by != d and not seen >> index[Ref(DONE, kk, j)] & 1
                ]
            st, la, ma = _phase(coll, k, lands)
        steps.append(st)
        landings.append(la)
        marks.append(ma)
    slots = {
        d: max(
            [
                1,
                *(
                    s.slot + 1
                    for ph, st in zip(coll.phases, steps)
                    for s in st
                    if ph.moves[s.index].by == d
                ),
                *(la.slot + 1 for lands in landings for la in lands if la.device == d),
            ]
        )
        for d in coll.ranks
    }
    return Schedule(coll, 1, tuple(steps), tuple(landings), tuple(marks), slots)


def closes(coll: Collective) -> bool:
    """Whether the closing barrier between two runs lands moves the last phase does not
    land for its reductions (then a run that another follows costs one barrier more).

    Example:
        >>> from ascend_p2p_lab.collectives.phases import convention
        >>> from ascend_p2p_lab.collectives.algorithms import build
        >>> closes(build("all_gather", "mesh", convention("all_gather", 4096, 4), range(4)))
        True
    """
    if not coll.phases:
        return False
    last = _one_run(coll, closing=True).landings[-1]
    return len(last) > len(lands_on(coll.phases[-1]))


def closed(coll: Collective) -> Schedule:
    """The program of one run that another follows: its last phase closes it."""
    return _one_run(coll, closing=True)


def _shift(ref: Ref, by: int) -> Ref:
    if ref.kind == START:
        return ref if by == 0 else Ref(END, by - 1, ref.who)
    return Ref(ref.kind, ref.phase + by, ref.who)


def schedule(coll: Collective, runs: int = 1) -> Schedule:
    """The program of ``coll`` run ``runs`` times back to back (see the module doc):
    phase k of run i is phase i x P + k of the program; every run but the last closes
    (:func:`closed`), its start being the previous run's end."""
    return repeat(_one_run(coll), runs, closed(coll) if runs > 1 else None)


def repeat(one: Schedule, runs: int, closing: Schedule | None = None) -> Schedule:
    """A one-run schedule run ``runs`` times back to back, each run but the last the
    ``closing`` one."""
    if runs == 1:
        return one
    if one.runs != 1 or runs < 1 or closing is None:
        raise ValueError(f"repeat takes one run, its closing run and runs >= 1 ({runs})")
    coll = one.collective
    count = len(coll.phases)
    steps, landings, marks = [], [], []
    for i in range(runs):
        off = i * count
        this = closing if i < runs - 1 else one
        steps += [
            tuple(
                Step(s.phase + off, s.index, s.slot, tuple(_shift(w, off) for w in s.waits))
                for s in st
            )
            for st in this.steps
        ]
        landings += [
            tuple(
                Landing(la.phase + off, la.device, la.slot, la.move, la.of_phase + off)
                for la in lands
            )
            for lands in this.landings
        ]
        marks += [
            {d: tuple(_shift(r, off) for r in refs) for d, refs in ma.items()} for ma in this.marks
        ]
    slots = {d: max(one.slots[d], closing.slots[d]) for d in one.slots}
    return Schedule(coll, runs, tuple(steps), tuple(landings), tuple(marks), slots)


# ---------------------------------------------------------------- the check
def _program(s: Schedule) -> list[tuple[Ref, tuple[str, int, int], tuple[Ref, ...]]]:
    """Every event in program order: (event, its stream, what it waits on)."""
    out = [(Ref(START, 0, d), ("rank", d, 0), ()) for d in s.collective.ranks]
    for k, phase in enumerate(s.phases):
        for st in s.steps[k]:
            by = phase.moves[st.index].by
            out.append((Ref(DONE, k, st.index), ("slot", by, st.slot), st.waits))
        for i, land in enumerate(s.landings[k]):
            out.append(
                (
                    Ref(LAND, k, i),
                    ("slot", land.device, land.slot),
                    (Ref(DONE, land.of_phase, land.move),),
                )
            )
        for d in s.collective.ranks:
            out.append((Ref(END, k, d), ("rank", d, 0), s.marks[k][d]))
    return out


def _accesses(s: Schedule) -> Iterable[tuple[Ref, tuple[object, ...], bool]]:
    """(event, location, writes) in program order: a copy reads the source's piece and
    writes the destination's; a reducing move reads the source's piece and lands in a
    receive slot of its own; a rank's end reduces: it reads those slots and rewrites the
    pieces it reduced."""
    for k, phase in enumerate(s.phases):
        for j, m in enumerate(phase.moves):
            done = Ref(DONE, k, j)
            yield done, (m.src, m.piece), False
            yield done, ((m.dst, m.piece) if not m.reduce else ("slot", k, j)), True
        for d in s.collective.ranks:
            end = Ref(END, k, d)
            for j, m in enumerate(phase.moves):
                if m.reduce and m.dst == d:
                    yield end, ("slot", k, j), False
                    yield end, (d, m.piece), True


def _ancestors(
    program: list[tuple[Ref, tuple[str, int, int], tuple[Ref, ...]]],
) -> tuple[dict[Ref, int], dict[Ref, int]]:
    """Each event's position, and the events it follows (program order on its stream,
    the waits across streams, transitively) as a bitset of positions."""
    before: dict[Ref, int] = {}
    index: dict[Ref, int] = {}
    tail: dict[tuple[str, int, int], Ref] = {}
    for ev, stream, waits in program:
        index[ev] = len(index)
        seen = 0
        for ref in (*waits, *([tail[stream]] if stream in tail else [])):
            seen |= before[ref] | (1 << index[ref])
        before[ev] = seen
        tail[stream] = ev
    return index, before


def hazards(s: Schedule) -> list[str]:
    """Conflicting accesses the program leaves unordered (empty: every one is ordered)."""
    index, before = _ancestors(_program(s))
    problems: list[str] = []
    writer: dict[object, Ref] = {}
    readers: dict[object, list[Ref]] = {}
    for ev, where, writes in _accesses(s):
        earlier = ([writer[where]] if where in writer else []) + (
            readers.get(where, []) if writes else []
        )
        for e in earlier:
            if e != ev and not before[ev] >> index[e] & 1:
                problems.append(
                    f"{ev.kind} {ev.phase}/{ev.who} is not ordered after "
                    f"{e.kind} {e.phase}/{e.who} on {where}"
                )
        if writes:
            writer[where] = ev
            readers[where] = []
        else:
            readers.setdefault(where, []).append(ev)
    return problems
