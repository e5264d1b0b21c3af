"""HCCL's intra-server algorithms as phases of moves: mesh, ring, double ring and the
small-count variants (reduce-broadcast, recursive doubling).

Sources (cann-hccl, ``src/domain/collective_communication/algorithm/``, as stored at
gitee ``ascend/cann-hccl`` fe401bf8 in HongminTan/ACNC2025-HCCL b971402; the cost model
in hicann/hccl ``docs/zh/user_guide/coll_algo_intro/`` Mesh.md, Ring.md):

- **mesh**: one phase per half, every peer at once on its own stream.
  All-gather reads: each rank copies from the peer's buffer into its own
  (``temp_all_gather/all_gather_mesh_direct.cc:159``). Reduce-scatter writes with inline
  reduction into the peer (``temp_reduce_scatter/reduce_scatter_mesh_atomic_opbase.cc:
  138-142``). All-reduce is that reduce-scatter then that all-gather
  (``temp_all_reduce/all_reduce_mesh_opbase.cc:206-210, 261``). Broadcast is a scatter
  then an all-gather (Mesh.md); the scatter is modelled as each rank reading its slice
  from the root (*inferred*: ``scatter_mesh.cc`` pairs the root's TxAsync with each
  receiver's RxAsync; who drives the copy is not settled there). All-to-all is the
  direct full mesh (``RunAlltoAllDirectFullmesh``): at most 8 copies at once
  (``ALLTOALLV_DIRECT_FULLMESH_SDMA_CONCURRENT_SIZE``, ``alltoall_utils_pub.h:63``), round
  k reading from the peers at distances +-(4k+1 .. 4k+4)
  (``temp_alltoallv/alltoallv_direct_fullmesh.cc:343-360``): ceil(floor(p / 2) / 4)
  rounds, each peer once (the source counts ceil(p / 8) rounds, the rank itself
  included, ``:922``; the same for every p but 9, where its second round would only
  repeat peers: one round here).
- **ring**: p-1 steps of neighbour moves per half, each rank reading from its
  predecessor (``aligned_all_gather_double_ring.cc:282-296``; reduce-scatter reduces
  what it reads, ``aligned_reduce_scatter_double_ring_with_serial_local_copy.cc:230``).
  Broadcast is a ring scatter (the root's slices pipelined down the ring) then a ring
  all-gather (Ring.md; ``coll_broadcast_ring_for_910_93_executor.cc``).
- **double_ring**: the ring over the devices in order and the same ring reversed, at
  once, each carrying half of every slice (``GetRingsOrderByTopoType``,
  ``topo_info_extractor.cc:1298-1306``: ring 1 is ``nicList[0]`` then ``nicList`` reversed;
  ``PrepareMultiRingSlice`` sorts the device list, ``coll_comm_executor.cc:1759``).
- **reduce_bcast** (A2 all-reduce up to 256 KB): every rank writes its whole buffer
  into rank 0 with inline reduction, then reads the result back
  (``temp_all_reduce/all_reduce_reduce_broadcast.cc:195-262``).
- **hd** (A3 all-reduce up to 512 KB x p): recursive doubling on the whole buffer:
  ranks beyond the largest power of two first reduce into a partner, log2 steps of
  exchange with rank xor 2^k, then the partners read the result back
  (``temp_all_reduce/all_reduce_hd_optim.cc:106-122``); every step is modelled as a read
  (*inferred*: the power-of-two case writes its first step).

Not modelled (*inferred* simplifications): the staging copies between the user buffers
and HCCL's CCL buffers, and the loops HCCL cuts an op into when it exceeds the CCL
buffer (``HCCL_BUFFSIZE``, 200 MB by default): one loop.

Example:
    >>> from ascend_p2p_lab.collectives.phases import convention
    >>> c = build("all_gather", "mesh", convention("all_gather", 1 << 20, 4), (0, 1, 2, 3))
    >>> len(c.phases), c.moves, str(c.phases[0].moves[0])
    (1, 12, '1->0')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..topology import Topology
from ..vocab import DOUBLE_RING, HD, MESH, REDUCE_BCAST, RING
from .busbw import ALL_GATHER, ALL_REDUCE, ALL_TO_ALL, BROADCAST, REDUCE_SCATTER
from .phases import Collective, CollectiveError, Convention, Move, Phase, Piece, split

#: Copies the direct full-mesh all-to-all runs at once (alltoall_utils_pub.h:63).
ALLTOALL_CONCURRENCY = 8

Steps = list[list[Move]]
Ranks = Sequence[int]
#: What each algorithm builds: the op's pieces and its phases.
Built = tuple[tuple[Piece, ...], list[Phase]]


def ring_order(topology: Topology, devices: Sequence[int]) -> tuple[int, ...]:
    """A ring over ``devices`` that takes the fastest links: from the lowest device, each
    next hop the fastest link class to a device not yet on the ring (lowest id on ties).
    On the A2 and A3 presets this is the devices in order, HCCL's own ring (the sorted
    device list): on the A3 every second hop is the SIO between the two dies of a card.

    Example:
        >>> from ascend_p2p_lab.topology import load_preset
        >>> ring_order(load_preset("atlas800t-a3"), [3, 0, 2, 1])
        (0, 1, 2, 3)
    """
    left = sorted(set(devices))
    ring = [left.pop(0)]
    while left:
        here = ring[-1]

        def speed(d: int, here: int = here) -> tuple[float, int]:
            lc = topology.link_class(here, d)
            return (-(lc.bandwidth_GBps if lc is not None else 0.0), d)

        nxt = min(left, key=speed)
        left.remove(nxt)
        ring.append(nxt)
    return tuple(ring)


def _reversed_ring(order: Sequence[int]) -> tuple[int, ...]:
    """The same ring the other way round, from the same first device."""
    return (order[0], *reversed(order[1:]))


def _ring_steps(
    order: Sequence[int], piece_at: Sequence[int], size: Sequence[int], reduce: bool = False
) -> Steps:
    """Ring all-gather: at step s position j passes position (j - s)'s piece to j + 1,
    which reads it. Ring reduce-scatter (``reduce``): position j passes its partial sum
    of position (j - s - 1)'s piece to j + 1, which reads and reduces it; position j ends
    with its own piece complete."""
    p, lag = len(order), 1 if reduce else 0
    return [
        [
            Move(
                order[j],
                order[(j + 1) % p],
                size[piece_at[(j - s - lag) % p]],
                order[(j + 1) % p],
                piece_at[(j - s - lag) % p],
                reduce,
            )
            for j in range(p)
        ]
        for s in range(p - 1)
    ]


def _scatter_steps(order: Sequence[int], piece_at: Sequence[int], size: Sequence[int]) -> Steps:
    """Ring scatter from position 0: the farthest position's piece leaves first; at step
    s the pieces on their way each advance one hop."""
    p = len(order)
    steps = []
    for s in range(p - 1):
        moves = []
        for k in range(p - 1 - s, p):
            h = s - (p - 1) + k
            moves.append(Move(order[h], order[h + 1], size[piece_at[k]], order[h + 1], piece_at[k]))
        steps.append(moves)
    return steps


def _together(label: str, *rings: Steps) -> list[Phase]:
    """Step s of every ring in one phase."""
    return [
        Phase.of([m for ring in rings for m in ring[s]], f"{label} step {s + 1}")
        for s in range(len(rings[0]))
    ]


def _pieces(
    conv: Convention, ranks: Sequence[int], halves: int, root: int | None
) -> tuple[tuple[Piece, ...], list[list[int]]]:
    """The op's pieces for ``halves`` rings and, per rank index, the piece of each half:
    all-reduce and broadcast cut the buffer in p slices (HCCL's split), all-gather and
    reduce-scatter give each rank a chunk; each slice is cut again per ring."""
    p, op = len(ranks), conv.operation
    slices = split(conv.chunk_bytes, p) if op in (ALL_REDUCE, BROADCAST) else [conv.chunk_bytes] * p
    pieces: list[Piece] = []
    index: list[list[int]] = []
    for i, r in enumerate(ranks):
        src = r if op == ALL_GATHER else root if op == BROADCAST else None
        dst = r if op == REDUCE_SCATTER else None
        index.append([])
        for part in split(slices[i], halves):
            index[i].append(len(pieces))
            pieces.append(Piece(part, src, dst))
    return tuple(pieces), index


def _ring_family(
    conv: Convention, ranks: Sequence[int], orders: Sequence[Sequence[int]], root: int | None
) -> Built:
    """Phases of the op over rings (one: ring; two: double ring), ring h carrying half h."""
    op = conv.operation
    pieces, index = _pieces(conv, ranks, len(orders), root)
    size = [pc.nbytes for pc in pieces]
    pos = {r: i for i, r in enumerate(ranks)}
    at = [[index[pos[d]][h] for d in order] for h, order in enumerate(orders)]
    rings = list(zip(orders, at))
    if op == ALL_GATHER:
        return pieces, _together("all-gather", *[_ring_steps(o, a, size) for o, a in rings])
    if op == REDUCE_SCATTER:
        return pieces, _together(
            "reduce-scatter", *[_ring_steps(o, a, size, True) for o, a in rings]
        )
    if op == ALL_REDUCE:
        return pieces, (
            _together("reduce-scatter", *[_ring_steps(o, a, size, True) for o, a in rings])
            + _together("all-gather", *[_ring_steps(o, a, size) for o, a in rings])
        )
    if op == BROADCAST:
        return pieces, (
            _together("scatter", *[_scatter_steps(o, a, size) for o, a in rings])
            + _together("all-gather", *[_ring_steps(o, a, size) for o, a in rings])
        )
    raise CollectiveError(
        f"{op} has no ring algorithm inside a server (HCCL runs it on the full mesh)"
    )


def _rooted(order: Sequence[int], root: int | None) -> tuple[int, ...]:
    """The ring started at the root (a broadcast's rings leave from it)."""
    if root is None or root not in order:
        return tuple(order)
    k = list(order).index(root)
    return (*order[k:], *order[:k])


def ring(
    conv: Convention, ranks: Ranks, root: int | None = None, order: Ranks | None = None
) -> Built:
    """One ring over ``order`` (default: the ranks as given)."""
    return _ring_family(conv, ranks, [_rooted(order or ranks, root)], root)


def double_ring(
    conv: Convention, ranks: Ranks, root: int | None = None, order: Ranks | None = None
) -> Built:
    """The ring over ``order`` and its reverse at once, each with half of every slice."""
    first = _rooted(order or ranks, root)
    return _ring_family(conv, ranks, [first, _reversed_ring(first)], root)


def _mesh_all_to_all(conv: Convention, ranks: Ranks) -> Built:
    p, blk = len(ranks), conv.chunk_bytes
    pieces, key = [], {}
    for s in ranks:
        for d in ranks:
            if s != d:
                key[(s, d)] = len(pieces)
                pieces.append(Piece(blk, s, d))
    per_round = ALLTOALL_CONCURRENCY // 2
    distances = list(range(1, p // 2 + 1))
    phases = []
    for k in range(0, len(distances), per_round):
        moves = []
        for i, d in enumerate(ranks):
            peers = dict.fromkeys(
                ranks[(i + sign * dist) % p]
                for dist in distances[k : k + per_round]
                for sign in (-1, 1)
            )
            moves += [Move(s, d, blk, d, key[(s, d)]) for s in peers]
        phases.append(Phase.of(moves, f"round {k // per_round + 1}"))
    return tuple(pieces), phases


def mesh(
    conv: Convention, ranks: Ranks, root: int | None = None, order: Ranks | None = None
) -> Built:
    """Every peer at once: one phase per half (all-to-all: rounds of 8 copies)."""
    op = conv.operation
    if op == ALL_TO_ALL:
        return _mesh_all_to_all(conv, ranks)
    pieces, index = _pieces(conv, ranks, 1, root)
    size = [pc.nbytes for pc in pieces]
    own = {r: index[i][0] for i, r in enumerate(ranks)}
    pull = [Move(s, d, size[own[s]], d, own[s]) for d in ranks for s in ranks if s != d]
    push = [Move(s, d, size[own[d]], s, own[d], True) for s in ranks for d in ranks if s != d]
    if op == ALL_GATHER:
        return pieces, [Phase.of(pull, "all-gather")]
    if op == REDUCE_SCATTER:
        return pieces, [Phase.of(push, "reduce-scatter")]
    if op == ALL_REDUCE:
        return pieces, [Phase.of(push, "reduce-scatter"), Phase.of(pull, "all-gather")]
    assert root is not None
    scatter = [Move(root, d, size[own[d]], d, own[d]) for d in ranks if d != root]
    # the all-gather runs on every rank, the root too (it receives what it has)
    return pieces, [Phase.of(scatter, "scatter"), Phase.of(pull, "all-gather")]


def reduce_bcast(
    conv: Convention, ranks: Ranks, root: int | None = None, order: Ranks | None = None
) -> Built:
    """All-reduce through rank 0: every rank writes its buffer into it, reducing; then
    every rank reads the result."""
    hub, n = ranks[0], conv.chunk_bytes
    reduce = [Move(r, hub, n, r, 0, True) for r in ranks[1:]]
    bcast = [Move(hub, r, n, r, 0) for r in ranks[1:]]
    return (Piece(n),), [Phase.of(reduce, "reduce"), Phase.of(bcast, "broadcast")]


def hd(
    conv: Convention, ranks: Ranks, root: int | None = None, order: Ranks | None = None
) -> Built:
    """All-reduce by recursive doubling on the whole buffer (see the module doc)."""
    p, n = len(ranks), conv.chunk_bytes
    steps = p.bit_length() - 1
    top = 1 << steps
    phases = []
    if top != p:
        phases.append(
            Phase.of(
                [Move(ranks[i], ranks[i - top], n, ranks[i], 0, True) for i in range(top, p)],
                "fold in",
            )
        )
    for k in range(steps):
        phases.append(
            Phase.of(
                [Move(ranks[i ^ (1 << k)], ranks[i], n, ranks[i], 0, True) for i in range(top)],
                f"exchange {k + 1}",
            )
        )
    if top != p:
        phases.append(
            Phase.of(
                [Move(ranks[i - top], ranks[i], n, ranks[i], 0) for i in range(top, p)], "fold out"
            )
        )
    return (Piece(n),), phases


Builder = Callable[..., Built]
#: Every algorithm and the operations it builds.
ALGORITHMS: dict[str, tuple[Builder, tuple[str, ...]]] = {
    MESH: (mesh, (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, ALL_TO_ALL, BROADCAST)),
    RING: (ring, (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, BROADCAST)),
    DOUBLE_RING: (double_ring, (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, BROADCAST)),
    REDUCE_BCAST: (reduce_bcast, (ALL_REDUCE,)),
    HD: (hd, (ALL_REDUCE,)),
}


def build(
    operation: str,
    algorithm: str,
    conv: Convention,
    ranks: Sequence[int],
    *,
    root: int | None = None,
    order: Sequence[int] | None = None,
    executor: str = "",
    notes: tuple[str, ...] = (),
) -> Collective:
    """The collective ``operation`` on ``ranks`` by ``algorithm`` (``order``: the ring's
    order for ring and double ring; ``root``: the broadcast's root, default the first
    rank).

    Example:
        >>> from ascend_p2p_lab.collectives.phases import convention
        >>> c = build("all_reduce", "ring", convention("all_reduce", 4096, 4), (0, 1, 2, 3))
        >>> [p.label for p in c.phases][:2], len(c.phases)
        (['reduce-scatter step 1', 'reduce-scatter step 2'], 6)
    """
    if algorithm not in ALGORITHMS:
        raise CollectiveError(f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
    builder, ops = ALGORITHMS[algorithm]
    if operation not in ops:
        raise CollectiveError(f"{algorithm} does not build {operation}; it builds {', '.join(ops)}")
    ranks = tuple(ranks)
    if len(set(ranks)) != len(ranks) or len(ranks) != conv.ranks:
        raise CollectiveError(f"ranks {ranks} must be {conv.ranks} distinct devices")
    if order is not None and sorted(order) != sorted(ranks):
        raise CollectiveError(f"ring order {tuple(order)} must hold each rank once")
    if operation == BROADCAST:
        root = ranks[0] if root is None else root
        if root not in ranks:
            raise CollectiveError(f"root {root} is not one of the ranks {ranks}")
    else:
        root = None
    pieces, phases = builder(conv, ranks, root=root, order=order)
    kept = tuple(p for p in phases if p.moves)  # a tiny size leaves some slices empty
    return Collective(operation, ranks, algorithm, conv, pieces, kept, root, executor, notes)
