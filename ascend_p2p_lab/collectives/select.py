"""Which algorithm HCCL would run for an op, a size and a server, and the collective it
makes; or the one asked for (``algorithm="ring"``).

HCCL picks the intra-server algorithm from the hardware, with no user setting
(hicann/hccl ``docs/zh/user_guide/coll_algo_intro/algo_intro.md``: Mesh, Ring,
Double-Ring and Star "selected automatically by hardware topology"; ``HCCL_ALGO`` sets
only the levels between servers). The rules below are the single-operator-mode (how
hccl_test runs) branches of cann-hccl's selectors
(``algorithm/impl/operator/*_operator.cc``, gitee ``ascend/cann-hccl`` fe401bf8 as stored
in HongminTan/ACNC2025-HCCL b971402), with the AIV modes (opt-in) and deterministic
modes left out; sizes are HCCL's ``count x unit`` (hccl_test's buffer, or each rank's
chunk for all-gather and reduce-scatter):

======  ==============  ===========================================  =====================
server  op              rule                                         source
======  ==============  ===========================================  =====================
A2      all_reduce      <= 256 KiB: reduce_bcast                     all_reduce_operator.cc
                        (AllReduceMeshSmallCountExecutor), else      :470-481
                        mesh (AllReduceMeshOpbaseLoopExecutor)
A2      all_gather      mesh (AllGatherMeshOpbaseExecutor)           all_gather_operator.cc:199
A2      reduce_scatter  mesh (ReduceScatterMeshDmaElimination)       reduce_scatter_operator.cc:253
A2, A3  all_to_all      mesh (RunAlltoAllDirectFullmesh)             alltoall_operator.cc:246
A2      broadcast       mesh: scatter + all-gather                   broadcast_operator.cc:148
A3      all_reduce      p > 2 and <= 512 KiB x p: hd                 all_reduce_operator.cc
                        (AllReduceMeshSmallCountExecutor), else      :546-588
                        double_ring (AllReduceFastDoubleRingFor91093)
A3      all_gather      p > 2 and chunk <= 512 KiB: mesh*            all_gather_operator.cc
                        (AllGatherSmallCount), else double_ring      :275-327
A3      reduce_scatter  p > 2 and chunk <= 512 KiB: mesh*            reduce_scatter_operator.cc
                        (ReduceScatterDeterExecutor), else           :346-398
                        double_ring (ReduceScatterFastDoubleRing...)
A3      broadcast       p > 2 and <= 512 KiB x p: mesh*              broadcast_operator.cc
                        (BroadCastSmallCountExecutor), else          :177-196
                        double_ring (BroadCastRingFor91093Executor)
other   any             every pair one peer-to-peer class: mesh,     *inferred*
                        else a ring over the fastest links
======  ==============  ===========================================  =====================

\\* *inferred*: those small-count executors run half-stage templates (HD stage, local
reduce) over a mesh plane; they are modelled as the mesh. A2 is a 910B soc whose chosen
devices are all joined by HCCS; A3 a 910_93 soc whose devices are joined by SIO or
HCCS_SW (the topology HCCL calls a double ring).

Example:
    >>> from ascend_p2p_lab.topology import load_preset
    >>> a3 = load_preset("atlas800t-a3")
    >>> choose("all_reduce", 256 << 20, a3, range(16)).algorithm
    'double_ring'
    >>> choose("all_reduce", 64 << 10, a3, range(16)).algorithm
    'hd'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..topology import Topology
from ..vocab import HCCS, HCCS_SW, SIO
from . import reduction
from .algorithms import DOUBLE_RING, HD, MESH, REDUCE_BCAST, RING, build, ring_order
from .busbw import ALL_GATHER, ALL_REDUCE, ALL_TO_ALL, BROADCAST, OPERATIONS, REDUCE_SCATTER
from .phases import DTYPE_BYTES, Collective, CollectiveError, Convention, convention, pairs_used
from .reduction import DTYPE, OP

A2, A3, OTHER = "A2", "A3", "other"
#: HCCL_SMALL_COUNT_256_KB (cann-hccl algorithm/pub_inc/common.h:159).
A2_SMALL_ALL_REDUCE = 256 * 1024
#: HCCL_SMALL_COUNT_512_KB (common.h:163): per rank on A3.
A3_SMALL = 512 * 1024


@dataclass(frozen=True)
class Choice:
    """An algorithm, the HCCL executor it models ("" when forced) and why."""

    algorithm: str
    executor: str
    basis: str


def family(topology: Topology, devices: Sequence[int]) -> str:
    """``A2``, ``A3`` or ``other``: which of HCCL's rule sets the devices fall under.

    Example:
        >>> from ascend_p2p_lab.topology import load_preset
        >>> family(load_preset("atlas800t-a2"), [0, 5])
        'A2'
        >>> family(load_preset("atlas800-9000"), [0, 1])
        'other'
    """
    classes = {topology.link(a, b) for a in devices for b in devices if a != b}
    if topology.soc_name.startswith("Ascend910B") and classes <= {HCCS}:
        return A2
    if topology.soc_name.startswith("Ascend910_93") and classes <= {SIO, HCCS_SW}:
        return A3
    return OTHER


def _a2(op: str, conv: Convention) -> Choice:
    if op == ALL_REDUCE and conv.chunk_bytes <= A2_SMALL_ALL_REDUCE:
        return Choice(
            REDUCE_BCAST,
            "AllReduceMeshSmallCountExecutor",
            "A2 all-reduce <= 256 KiB (all_reduce_operator.cc:476-478)",
        )
    executor = {
        ALL_REDUCE: "AllReduceMeshOpbaseLoopExecutor",
        ALL_GATHER: "AllGatherMeshOpbaseExecutor",
        REDUCE_SCATTER: "ReduceScatterMeshDmaEliminationExecutor",
        ALL_TO_ALL: "RunAlltoAllDirectFullmesh",
        BROADCAST: "BroadCastMeshExecutor",
    }[op]
    return Choice(MESH, executor, "A2: HCCS full mesh (910B selectors)")


def _a3(op: str, conv: Convention) -> Choice:
    p = conv.ranks
    if op == ALL_TO_ALL:
        return Choice(MESH, "RunAlltoAllDirectFullmesh", "alltoall_operator.cc:246")
    small = p > 2 and (
        conv.chunk_bytes <= A3_SMALL * p
        if op in (ALL_REDUCE, BROADCAST)
        else conv.chunk_bytes <= A3_SMALL
    )
    if small:
        algorithm = HD if op == ALL_REDUCE else MESH
        executor = {
            ALL_REDUCE: "AllReduceMeshSmallCountExecutor",
            ALL_GATHER: "AllGatherSmallCount",
            REDUCE_SCATTER: "ReduceScatterDeterExecutor",
            BROADCAST: "BroadCastSmallCountExecutor",
        }[op]
        limit = "512 KiB x p" if op in (ALL_REDUCE, BROADCAST) else "512 KiB per rank"
        return Choice(algorithm, executor, f"A3 small count <= {limit} (910_93 selectors)")
    executor = {
        ALL_REDUCE: "AllReduceFastDoubleRingFor91093Executor",
        ALL_GATHER: "AlignedAllGatherDoubleRingFor91093Executor",
        REDUCE_SCATTER: "ReduceScatterFastDoubleRingFor91093Executor",
        BROADCAST: "BroadCastRingFor91093Executor",
    }[op]
    return Choice(DOUBLE_RING, executor, "A3: double ring over the dies in order")


def _other(op: str, topology: Topology, devices: Sequence[int]) -> Choice:
    pairs = [(a, b) for a in devices for b in devices if a != b]
    classes = {topology.link(a, b) for a, b in pairs}
    if len(classes) == 1 and all(topology.can_access_peer(a, b) for a, b in pairs):
        return Choice(MESH, "", f"inferred: every pair {classes.pop()}, a full mesh")
    if op == ALL_TO_ALL:
        return Choice(MESH, "", "inferred: all-to-all runs on the full mesh")
    return Choice(RING, "", "inferred: mixed links, a ring over the fastest ones")


def choose(
    operation: str,
    size_bytes: int,
    topology: Topology,
    devices: Iterable[int],
    dtype_bytes: int = DTYPE_BYTES,
) -> Choice:
    """The algorithm HCCL would run (see the module doc for the rules and sources)."""
    devs = tuple(devices)
    conv = convention(operation, size_bytes, len(devs), dtype_bytes)
    kind = family(topology, devs)
    if kind == A2:
        return _a2(operation, conv)
    if kind == A3:
        return _a3(operation, conv)
    return _other(operation, topology, devs)


def _devices(topology: Topology, devices: Iterable[int] | None) -> tuple[int, ...]:
    devs = tuple(range(topology.device_count)) if devices is None else tuple(devices)
    bad = [d for d in devs if not 0 <= d < topology.device_count]
    if bad:
        raise CollectiveError(
            f"unknown device {bad[0]}: {topology.name} has devices 0..{topology.device_count - 1}"
        )
    if len(set(devs)) != len(devs) or len(devs) < 2:
        raise CollectiveError(f"a collective needs at least 2 distinct devices; got {devs}")
    return devs


def collective(
    operation: str,
    size_bytes: int,
    topology: Topology,
    devices: Iterable[int] | None = None,
    *,
    algorithm: str | None = None,
    root: int | None = None,
    order: Sequence[int] | None = None,
    dtype_bytes: int = DTYPE_BYTES,
    dtype: str = DTYPE,
    reduce_op: str = OP,
) -> Collective:
    """The collective HCCL would run (or ``algorithm``'s) on ``devices`` (default: all),
    at hccl_test's ``size_bytes``; rings go over ``order`` (default :func:`ring_order`);
    its reductions inline in the DMA write where HCCL's rule says so for the server's SoC,
    ``dtype`` and ``reduce_op`` (:mod:`.reduction`; hccl_test's fp32 sum by default).

    Example:
        >>> from ascend_p2p_lab.topology import load_preset
        >>> c = collective("all_gather", 1 << 20, load_preset("atlas800t-a3"), range(4),
        ...                algorithm="ring")
        >>> sorted({(m.src, m.dst) for p in c.phases for m in p.moves})
        [(0, 1), (1, 2), (2, 3), (3, 0)]
    """
    devs = _devices(topology, devices)
    if operation not in OPERATIONS:
        raise CollectiveError(f"unknown operation {operation!r}; known: {', '.join(OPERATIONS)}")
    conv = convention(operation, size_bytes, len(devs), dtype_bytes)
    choice = (
        choose(operation, size_bytes, topology, devs, dtype_bytes)
        if algorithm is None
        else Choice(algorithm, "", f"{algorithm} asked for")
    )
    if order is None and choice.algorithm in (RING, DOUBLE_RING):
        order = ring_order(topology, devs)
    coll = build(
        operation,
        choice.algorithm,
        conv,
        devs,
        root=root,
        order=order,
        executor=choice.executor,
        notes=(choice.basis,),
    )
    blocked = sorted(pr for pr in pairs_used(coll) if not topology.can_access_peer(*pr))
    if blocked:
        a, b = blocked[0]
        raise CollectiveError(
            f"{operation} by {choice.algorithm} copies {a}->{b}, which {topology.name} cannot "
            f"reach peer to peer ({topology.link(a, b)})"
        )
    return reduction.apply(coll, topology.soc_name, dtype, reduce_op)


def plan(
    topology: Topology,
    operations: Iterable[str],
    sizes: Iterable[int],
    devices: Iterable[int] | None = None,
    algorithm: str | None = None,
) -> list[Collective]:
    """One collective per operation and size (operations outer)."""
    devs = _devices(topology, devices)
    sizes = list(sizes)
    return [
        collective(op, s, topology, devs, algorithm=algorithm) for op in operations for s in sizes
    ]
