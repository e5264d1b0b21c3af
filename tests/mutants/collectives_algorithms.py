"""Mutants of ``ascend_p2p_lab/collectives/algorithms.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "collectives.algorithms.ring_step_swapped",
        "collectives/algorithms.py",
        (
            "                order[j],\n"
            "                order[(j + 1) % p],\n"
            "                size[piece_at[(j - s - lag) % p]],"
        ),
        (
            "                order[(j + 1) % p],\n"
            "                order[j],\n"
            "                size[piece_at[(j - s - lag) % p]],"
        ),
        "a ring step copies backwards (src and dst swapped)",
    ),
    M(
        "collectives.algorithms.ring_rs_piece_off_by_one",
        "collectives/algorithms.py",
        "p, lag = len(order), 1 if reduce else 0",
        "p, lag = len(order), 0",
        "a ring reduce-scatter step passes on the wrong partial sum",
    ),
    M(
        "collectives.algorithms.mesh_all_reduce_drops_a_phase",
        "collectives/algorithms.py",
        ('return pieces, [Phase.of(push, "reduce-scatter"), Phase.of(pull, "all-gather")]'),
        'return pieces, [Phase.of(pull, "all-gather")]',
        "the mesh all-reduce without its reduce-scatter phase",
    ),
    M(
        "collectives.algorithms.double_ring_one_direction",
        "collectives/algorithms.py",
        ("return _ring_family(conv, ranks, [first, _reversed_ring(first)], root)"),
        "return _ring_family(conv, ranks, [first, first], root)",
        "the double ring's second ring runs the same way as the first",
    ),
    M(
        "collectives.algorithms.alltoall_sixteen_at_once",
        "collectives/algorithms.py",
        "per_round = ALLTOALL_CONCURRENCY // 2",
        "per_round = ALLTOALL_CONCURRENCY",
        ("the full-mesh all-to-all copies into a rank 16 at a time, not 8"),
    ),
    M(
        "collectives.algorithms.reduce_bcast_copies",
        "collectives/algorithms.py",
        "reduce = [Move(r, hub, n, r, 0, True) for r in ranks[1:]]",
        "reduce = [Move(r, hub, n, r, 0) for r in ranks[1:]]",
        ("reduce-broadcast overwrites rank 0's buffer instead of reducing into it"),
    ),
    M(
        "collectives.algorithms.hd_always_the_same_partner",
        "collectives/algorithms.py",
        (
            "                [Move(ranks[i ^ (1 << k)], ranks[i], n, ranks[i], 0, True) for i in range(top)],"
        ),
        "                [Move(ranks[i ^ 1], ranks[i], n, ranks[i], 0, True) for i in range(top)],",
        ("recursive doubling exchanges with the same partner at every step"),
    ),
    M(
        "collectives.algorithms.ring_order_slowest_first",
        "collectives/algorithms.py",
        "return (-(lc.bandwidth_GBps if lc is not None else 0.0), d)",
        "return ((lc.bandwidth_GBps if lc is not None else 0.0), d)",
        "the ring takes the slowest link to the next device",
    ),
]
