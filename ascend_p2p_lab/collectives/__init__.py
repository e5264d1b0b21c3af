"""Collectives from links: HCCL's intra-server algorithms as phases of copies, bus
bandwidth the nccl-tests way, and the link (or shared budget) that holds each one back.

Pure Python (imports vocab, units, topology, numpy and pandas only): :mod:`.model` (a
collective as phases of moves, hccl_test's byte conventions), :mod:`.algorithms` (mesh,
ring, double ring, small-count variants), :mod:`.busbw` (the one table of nccl-tests
factors).

Example:
    >>> c = build("all_gather", "ring", convention("all_gather", 4096, 4), (0, 1, 2, 3))
    >>> len(c.phases), missing(c)
    (3, [])
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

__all__ = [
    "ALGORITHMS", "BUS_FACTORS", "OPERATIONS", "Collective", "CollectiveError", "Convention",
    "Move", "Phase", "Piece", "Reduce", "build", "bus_bandwidth", "bus_factor", "convention",
    "missing", "outcome", "ring_order", "split",
]
