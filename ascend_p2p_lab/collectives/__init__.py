"""Collectives from links: HCCL's intra-server algorithms as phases of copies, bus
bandwidth the nccl-tests way, and the link (or shared budget) that holds each one back.

Pure Python (imports vocab, units, topology, numpy and pandas only): :mod:`.phases` (a
collective as phases of moves, hccl_test's byte conventions), :mod:`.algorithms` (mesh,
ring, double ring, small-count variants), :mod:`.select` (which one HCCL runs),
:mod:`.rates` (a server's links from a preset or a measured matrix), :mod:`.predict`
(phase times, busbw, bottleneck), :mod:`.rows` (tidy rows), :mod:`.busbw` (the one table
of nccl-tests factors). docs/collectives.md says what comes from which source.

Example:
    >>> from ascend_p2p_lab.topology import load_preset
    >>> a2 = load_preset("atlas800t-a2")
    >>> t = predict(collective("reduce_scatter", 256 << 20, a2), LinkModel.from_topology(a2))
    >>> t.collective.algorithm, t.collective.executor
    ('mesh', 'ReduceScatterMeshDmaEliminationExecutor')
"""

from __future__ import annotations

from .algorithms import ALGORITHMS, build, ring_order
from .busbw import BUS_FACTORS, OPERATIONS, bus_bandwidth, bus_factor
from .phases import (
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
from .predict import Bottleneck, PhaseTime, Timing, measured, phase_time, predict
from .rates import Budget, LinkModel
from .rows import collective_rows, phase_rows, predicted_rows
from .select import Choice, choose, collective, family, plan

__all__ = [
    "ALGORITHMS",
    "BUS_FACTORS",
    "OPERATIONS",
    "Bottleneck",
    "Budget",
    "Choice",
    "Collective",
    "CollectiveError",
    "Convention",
    "LinkModel",
    "Move",
    "Phase",
    "PhaseTime",
    "Piece",
    "Reduce",
    "Timing",
    "build",
    "bus_bandwidth",
    "bus_factor",
    "choose",
    "collective",
    "collective_rows",
    "convention",
    "family",
    "measured",
    "missing",
    "outcome",
    "phase_rows",
    "phase_time",
    "plan",
    "predict",
    "predicted_rows",
    "ring_order",
    "split",
]
