"""A collective as phases of copies: what moves where, in which order, and what it means.

A :class:`Collective` is an operation on ranks (device ids, rank i = ``ranks[i]``), an
algorithm name and a sequence of :class:`Phase`; a phase is a set of simultaneous
:class:`Move` (one device-to-device copy each, issued on the stream of rank ``by``) and
the :class:`Reduce` passes that follow them, with a barrier (events across the ranks'
streams) between phases. The data is cut into :class:`Piece` (a slice of a buffer: who
holds it first, who must end with it); a move carries one piece, and ``reduce=True``
means the destination combines it with its own copy instead of overwriting it.

The reduction is not a copy: a phase's reduction passes are derived from its reducing
moves (each destination reduces the bytes it received) and are modelled as one pass over
those bytes at the device's local rate (on hardware a device-local copy of that size
stands in). Where HCCL reduces inline in the SDMA write (``HcclReduceAsync`` with
``INLINE_REDUCE_BIT``: A2 and A3 for hccl_test's fp32 sum) there is no pass:
:func:`.reduction.apply` drops them and the collective's ``reduction`` says ``inline``.

Sizes follow hccl_test's convention for each op (:func:`convention`); a size not divisible
by the rank count is cut as HCCL cuts it (:func:`split`). :func:`outcome` runs the moves on
symbolic data, so a test can check that every rank ends with what the op defines.

Example:
    >>> split(1000, 3)
    [384, 384, 232]
    >>> c = convention("all_gather", 1 << 20, 8)
    >>> c.chunk_bytes, c.algbw_bytes
    (131072, 1048576)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..vocab import DST, SRC, THIRD
from .busbw import ALL_GATHER, ALL_TO_ALL, OPERATIONS, REDUCE_SCATTER

#: HCCL's slice alignment (``HCCL_MIN_SLICE_ALIGN = 128``, cann-hccl
#: ``algorithm/base/alg_template/alg_template_base_pub.h:43``).
SLICE_ALIGN = 128
#: hccl_test's default data type, fp32 (``-d``, hicann/oam-tools
#: ``docs/zh/hccl_test/cmdline_options_desc.md``).
DTYPE_BYTES = 4


#: A reduction done as a separate pass on the device after the copies (the ``reduction``
#: column; :mod:`.reduction` says when HCCL does it instead inline in the DMA write).
LOCAL_PASS = "local pass"


class CollectiveError(ValueError):
    """A collective that cannot be built or run as asked: one line saying why."""


def split(nbytes: int, parts: int, align: int = SLICE_ALIGN) -> list[int]:
    """nbytes cut into ``parts`` slices the way HCCL cuts them: each slice
    ceil(nbytes / parts) rounded up to ``align``, the last ones taking what is left
    (possibly 0). cann-hccl ``ExecutorBase::PrepareSliceData``
    (``alg_template_base.cc:632``) and ``MutliSegSlicePrepare`` (``coll_comm_executor.cc:
    1672``).

    Example:
        >>> split(256, 4), split(100, 4, align=1), sum(split(10**6 + 7, 7))
        ([128, 128, 0, 0], [25, 25, 25, 25], 1000007)
    """
    if parts < 1:
        raise CollectiveError(f"cannot split into {parts} parts")
    per = -(-nbytes // parts)
    per = -(-per // align) * align if align > 1 else per
    out, left = [], nbytes
    for _ in range(parts):
        take = min(per, left)
        out.append(take)
        left -= take
    return out


@dataclass(frozen=True)
class Convention:
    """What hccl_test's ``data_size`` means for one op: ``size_bytes`` as printed, the
    per-rank ``chunk_bytes`` the op moves (all-reduce, broadcast: the buffer; all-gather:
    each rank's input; reduce-scatter: each rank's output; all-to-all: one block to one
    peer) and ``algbw_bytes``, the bytes hccl_test divides by the time."""

    operation: str
    size_bytes: int
    ranks: int
    chunk_bytes: int
    algbw_bytes: int
    dtype_bytes: int = DTYPE_BYTES


def convention(
    operation: str, size_bytes: int, ranks: int, dtype_bytes: int = DTYPE_BYTES
) -> Convention:
    """hccl_test's byte convention (hicann/oam-tools ``src/hccl_test``): the element count
    is ceil(size / dtype) (``hccl_opbase_rootinfo_base.cc:51``); all-gather and
    reduce-scatter give each rank ceil(count / p) elements and report count x p bytes
    (``hccl_allgather_rootinfo_test.cc:125,133``, ``hccl_reducescatter_rootinfo_test.cc:
    114,122``); all-to-all rounds the count up to a multiple of p, each peer getting a
    p-th (``hccl_alltoall_rootinfo_test.cc:115,138``; the allocation-granularity
    alignment it adds for large counts is not modelled); all-reduce and broadcast move
    the whole buffer.

    Example:
        >>> convention("reduce_scatter", 1000, 3).chunk_bytes
        336
        >>> convention("all_to_all", 1000, 3).algbw_bytes
        1008
    """
    if operation not in OPERATIONS:
        raise CollectiveError(f"unknown operation {operation!r}; known: {', '.join(OPERATIONS)}")
    if ranks < 2:
        raise CollectiveError(f"a collective needs at least 2 ranks; got {ranks}")
    if size_bytes < 1:
        raise CollectiveError(f"size must be at least 1 byte; got {size_bytes}")
    count = -(-size_bytes // dtype_bytes)
    if operation in (ALL_GATHER, REDUCE_SCATTER):
        per_rank = -(-count // ranks)
        chunk, total = per_rank * dtype_bytes, per_rank * ranks * dtype_bytes
    elif operation == ALL_TO_ALL:
        count = -(-count // ranks) * ranks
        chunk, total = count // ranks * dtype_bytes, count * dtype_bytes
    else:
        chunk = total = count * dtype_bytes
    return Convention(operation, size_bytes, ranks, chunk, total, dtype_bytes)


@dataclass(frozen=True)
class Move:
    """One device-to-device copy of ``piece`` (``nbytes``), issued on the stream of
    device ``by``; ``reduce``: the destination combines it with its own copy."""

    src: int
    dst: int
    nbytes: int
    by: int
    piece: int
    reduce: bool = False

    @property
    def initiator(self) -> str:
        """``dst`` (a read, pull), ``src`` (a write, push) or ``third``."""
        return DST if self.by == self.dst else SRC if self.by == self.src else THIRD

    def __str__(self) -> str:
        return f"{self.src}->{self.dst}" + ("" if self.by == self.dst else f" by {self.by}")


@dataclass(frozen=True)
class Reduce:
    """A reduction pass over ``nbytes`` on ``device``: modelled at the device's local
    rate, run as a device-local copy of that size."""

    device: int
    nbytes: int


@dataclass(frozen=True)
class Phase:
    """Moves that run at once, then the reductions they feed; a barrier follows."""

    moves: tuple[Move, ...]
    reduces: tuple[Reduce, ...] = ()
    label: str = ""

    @classmethod
    def of(cls, moves: Iterable[Move], label: str = "") -> Phase:
        """A phase of moves (empty ones dropped), with one reduction pass per device
        over the bytes its reducing moves bring.

        Example:
            >>> p = Phase.of([Move(1, 0, 8, 1, 0, True), Move(2, 0, 8, 2, 0, True)])
            >>> p.reduces
            (Reduce(device=0, nbytes=16),)
        """
        kept = tuple(m for m in moves if m.nbytes > 0)
        totals: dict[int, int] = defaultdict(int)
        for m in kept:
            if m.reduce:
                totals[m.dst] += m.nbytes
        return cls(kept, tuple(Reduce(d, n) for d, n in sorted(totals.items())), label)

    @property
    def nbytes(self) -> int:
        """The bytes the phase's moves carry."""
        return sum(m.nbytes for m in self.moves)


@dataclass(frozen=True)
class Piece:
    """A slice of the op's data: ``src`` holds it first (None: every rank holds its own
    contribution), ``dst`` must end with it (None: every rank)."""

    nbytes: int
    src: int | None = None
    dst: int | None = None


@dataclass(frozen=True)
class Collective:
    """An operation on ``ranks`` as phases of moves; ``executor`` names the HCCL executor
    the algorithm models, ``root`` the broadcast's root device."""

    operation: str
    ranks: tuple[int, ...]
    algorithm: str
    convention: Convention
    pieces: tuple[Piece, ...]
    phases: tuple[Phase, ...]
    root: int | None = None
    executor: str = ""
    notes: tuple[str, ...] = field(default=(), compare=False)
    #: how its reductions are done: :data:`LOCAL_PASS` (its phases' ``reduces``) or
    #: ``inline`` in the DMA write (:func:`.reduction.apply`: no passes)
    reduction: str = LOCAL_PASS

    @property
    def size_bytes(self) -> int:
        """hccl_test's data_size of the op."""
        return self.convention.size_bytes

    @property
    def moves(self) -> int:
        """How many copies the op issues."""
        return sum(len(p.moves) for p in self.phases)


Holdings = dict[int, dict[int, frozenset[int]]]


def _start(coll: Collective) -> Holdings:
    held: Holdings = {r: {} for r in coll.ranks}
    for k, piece in enumerate(coll.pieces):
        for r in coll.ranks if piece.src is None else (piece.src,):
            held[r][k] = frozenset((r,))
    return held


def outcome(coll: Collective) -> Holdings:
    """What each rank holds at the end: {device: {piece: contributors}}, running every
    phase's moves against the state before the phase (they are simultaneous). A move of
    a piece its source does not hold raises CollectiveError.

    Example:
        >>> pieces = (Piece(4, src=0),)
        >>> c = Collective("broadcast", (0, 1), "x", convention("broadcast", 4, 2), pieces,
        ...                (Phase.of([Move(0, 1, 4, 1, 0)]),), root=0)
        >>> outcome(c)
        {0: {0: frozenset({0})}, 1: {0: frozenset({0})}}
    """
    held = _start(coll)
    for i, phase in enumerate(coll.phases):
        before = {r: dict(h) for r, h in held.items()}
        for m in phase.moves:
            data = before[m.src].get(m.piece)
            if data is None:
                raise CollectiveError(
                    f"phase {i}: {m} moves piece {m.piece}, which device {m.src} does not hold"
                )
            old = held[m.dst].get(m.piece, frozenset()) if m.reduce else frozenset()
            held[m.dst][m.piece] = old | data
    return held


def expected(coll: Collective) -> Holdings:
    """What the op defines each rank must end with (pieces other ranks need are not
    listed; an empty piece, the tail of an uneven split, is nobody's): a piece with
    ``src`` None carries every rank's contribution."""
    everyone = frozenset(coll.ranks)
    out: Holdings = {r: {} for r in coll.ranks}
    for k, piece in enumerate(coll.pieces):
        if piece.nbytes == 0:
            continue
        data = everyone if piece.src is None else frozenset((piece.src,))
        for r in coll.ranks if piece.dst is None else (piece.dst,):
            out[r][k] = data
    return out


def missing(coll: Collective) -> list[str]:
    """Where the outcome falls short of the op's definition (empty: the op is right).

    Example:
        >>> c = Collective("all_gather", (0, 1), "x", convention("all_gather", 8, 2),
        ...                (Piece(4, src=0), Piece(4, src=1)), ())
        >>> missing(c)
        ['device 0 lacks piece 1', 'device 1 lacks piece 0']
    """
    got, want = outcome(coll), expected(coll)
    problems = []
    for r, pieces in want.items():
        for k, data in pieces.items():
            have = got[r].get(k)
            if have is None:
                problems.append(f"device {r} lacks piece {k}")
            elif have != data:
                problems.append(f"device {r} piece {k} has {sorted(have)}, needs {sorted(data)}")
    return problems


def _bytes_by_rank(coll: Collective, end: str) -> dict[int, int]:
    """Bytes each rank moves over all phases, counted at each move's ``end`` (src or dst)."""
    out = dict.fromkeys(coll.ranks, 0)
    for m in (m for p in coll.phases for m in p.moves):
        out[getattr(m, end)] += m.nbytes
    return out


def received_bytes(coll: Collective) -> dict[int, int]:
    """Bytes each rank receives over all phases."""
    return _bytes_by_rank(coll, "dst")


def sent_bytes(coll: Collective) -> dict[int, int]:
    """Bytes each rank sends over all phases."""
    return _bytes_by_rank(coll, "src")


def pairs_used(coll: Collective) -> set[tuple[int, int]]:
    """The ordered device pairs (src, dst) the op copies over."""
    return {(m.src, m.dst) for p in coll.phases for m in p.moves}
