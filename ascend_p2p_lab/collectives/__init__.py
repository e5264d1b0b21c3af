"""Collectives from links: HCCL's intra-server algorithms as phases of copies, bus
bandwidth the nccl-tests way, and the link (or shared budget) that holds each one back.

Pure Python (imports vocab, units, topology, numpy and pandas only): :mod:`.model` (a
collective as phases of moves, hccl_test's byte conventions), :mod:`.algorithms` (mesh,
ring, double ring, small-count variants), :mod:`.select` (which one HCCL runs),
:mod:`.busbw` (the one table of nccl-tests factors).

Example:
    >>> from ascend_p2p_lab.topology import load_preset
    >>> c = collective("all_reduce", 256 << 20, load_preset("atlas800t-a3"))
    >>> c.algorithm, c.executor, len(c.phases)
    ('double_ring', 'AllReduceFastDoubleRingFor91093Executor', 30)
"""

from __future__ import annotations

from .algorithms import ALGORITHMS, build, ring_order
from .busbw import BUS_FACTORS, OPERATIONS, bus_bandwidth, bus_factor
from .model import (
    Collective,
    CollectiveError,
    Convention,
    Move,
    Phase,
    Piece,
    Reduce,
    convention,
    missing,
    outcome,
    split,
)
from .select import Choice, choose, collective, family, plan

__all__ = [
    "ALGORITHMS", "BUS_FACTORS", "OPERATIONS", "Choice", "Collective", "CollectiveError",
    "Convention", "Move", "Phase", "Piece", "Reduce", "build", "bus_bandwidth", "bus_factor",
    "choose", "collective", "convention", "family", "missing", "outcome", "plan",
    "ring_order", "split",
]
