"""Where a collective's data lives on each device, and what each buffer must hold at the
end: what the executor allocates, fills and verifies.

Each rank has a **data** buffer holding the pieces it touches (holds first, sends,
receives or must end with), at offsets of its own; a **receive** buffer with one slot per
reducing move into it (a contribution lands in its own slot: the reduction is not a
copy, so the bytes of a contribution are kept as they arrived); and a **scratch** buffer
the reduction pass writes (on hardware a device-local copy of the phase's slots stands in
for the reduction: it reads and writes as many bytes as the pass would). A copy moves
piece ``piece`` from the source's data buffer into the same piece of the destination's.

The data is tracked by *origin*: piece k as first held by device d has origin (d, k) and
its own bytes (the executor fills it with a pattern of its own, so that a piece that
lands at the wrong place, or from the wrong device, is seen). A copy carries its
source's origin; a reducing move lands its source's origin in its slot and leaves the
destination's piece as it was (the sum is not computed). :func:`origins` runs the
moves on origins: what each rank's pieces and slots must hold after a run.

Example:
    >>> from ascend_p2p_lab.collectives.phases import convention
    >>> from ascend_p2p_lab.collectives.algorithms import build
    >>> c = build("all_gather", "mesh", convention("all_gather", 1024, 2), (3, 5))
    >>> lay = layout(c)
    >>> lay.offsets[5], lay.data_bytes[5]
    ({0: 0, 1: 512}, 1024)
    >>> origins(c)[0][(3, 1)]
    (5, 1)
"""

from __future__ import annotations

from dataclasses import dataclass

from .phases import SLICE_ALIGN, Collective, expected

#: (device, piece) -> (origin device, piece)
Origins = dict[tuple[int, int], tuple[int, int]]


@dataclass(frozen=True)
class Layout:
    """Byte offsets of a collective's buffers on each device (see the module doc)."""

    offsets: dict[int, dict[int, int]]  # device -> piece -> offset in its data buffer
    data_bytes: dict[int, int]
    slots: dict[tuple[int, int], int]  # (phase, move) -> offset in the dst's receive buffer
    slot_bytes: dict[int, int]
    #: (phase, device) -> (offset of the phase's first slot, bytes the pass reduces)
    passes: dict[tuple[int, int], tuple[int, int]]
    scratch_bytes: dict[int, int]

    def device_bytes(self, device: int) -> int:
        """What the device's three buffers take."""
        return self.data_bytes[device] + self.slot_bytes[device] + self.scratch_bytes[device]


def held(coll: Collective) -> dict[int, list[int]]:
    """The pieces each rank holds before the first phase (its own contribution, or the
    pieces it is the source of)."""
    out: dict[int, list[int]] = {r: [] for r in coll.ranks}
    for k, piece in enumerate(coll.pieces):
        if piece.nbytes:
            for r in coll.ranks if piece.src is None else (piece.src,):
                out[r].append(k)
    return out


def layout(coll: Collective) -> Layout:
    """The buffers' layout of ``coll`` on every rank."""
    touched: dict[int, set[int]] = {r: set(ks) for r, ks in held(coll).items()}
    for r, pieces in expected(coll).items():
        touched[r] |= set(pieces)
    for phase in coll.phases:
        for m in phase.moves:
            touched[m.src].add(m.piece)
            touched[m.dst].add(m.piece)
    offsets, data = {}, {}
    for r in coll.ranks:
        at, here = 0, {}
        for k in sorted(touched[r]):
            here[k] = at
            at += -(-coll.pieces[k].nbytes // SLICE_ALIGN) * SLICE_ALIGN
        offsets[r], data[r] = here, at
    slots: dict[tuple[int, int], int] = {}
    passes: dict[tuple[int, int], tuple[int, int]] = {}
    fill = dict.fromkeys(coll.ranks, 0)
    scratch = dict.fromkeys(coll.ranks, 0)
    for k, phase in enumerate(coll.phases):
        first = dict(fill)
        for j, m in enumerate(phase.moves):
            if m.reduce:
                slots[(k, j)] = fill[m.dst]
                fill[m.dst] += m.nbytes
        for red in phase.reduces:
            passes[(k, red.device)] = (first[red.device], red.nbytes)
            scratch[red.device] = max(scratch[red.device], red.nbytes)
    return Layout(offsets, data, slots, fill, passes, scratch)


def origins(
    coll: Collective, runs: int = 1
) -> tuple[Origins, dict[tuple[int, int], tuple[int, int]]]:
    """After ``runs`` runs from the first fill: the origin of every piece a rank holds,
    and of every receive slot ((phase, move) -> origin, as the last run left it). A
    reducing op's second run sends what its first one gathered, so the count matters;
    from the second run on nothing changes (a test checks it)."""
    now: Origins = {(r, k): (r, k) for r, ks in held(coll).items() for k in ks}
    slot: dict[tuple[int, int], tuple[int, int]] = {}
    for _ in range(runs):
        for k, phase in enumerate(coll.phases):
            before = dict(now)
            for j, m in enumerate(phase.moves):
                if m.reduce:
                    slot[(k, j)] = before[(m.src, m.piece)]
                else:
                    now[(m.dst, m.piece)] = before[(m.src, m.piece)]
    return now, slot


def checked(coll: Collective) -> list[tuple[int, int]]:
    """The (device, piece) a verification reads: every non-empty piece a rank must end
    with (:func:`.model.expected`), in rank order."""
    return [
        (r, k)
        for r, pieces in expected(coll).items()
        for k in sorted(pieces)
        if coll.pieces[k].nbytes
    ]
