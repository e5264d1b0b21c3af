"""Collectives from links: HCCL's intra-server algorithms as phases of copies, bus
bandwidth the nccl-tests way, and the link (or shared budget) that holds each one back.

Pure Python (imports vocab, units, topology, numpy and pandas only). This step holds
:mod:`.busbw`, the one table of nccl-tests factors.

Example:
    >>> bus_factor("all_reduce", 4)
    1.5
"""

from __future__ import annotations

from .busbw import BUS_FACTORS, OPERATIONS, bus_bandwidth, bus_factor

__all__ = ["BUS_FACTORS", "OPERATIONS", "bus_bandwidth", "bus_factor"]
