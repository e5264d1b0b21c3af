"""Bus bandwidth the nccl-tests way: the one table of busbw / algbw per operation.

nccl-tests (``NVIDIA/nccl-tests`` ``doc/PERFORMANCE.md``) defines ``busbw = algbw x
factor(n)`` so that a collective's figure compares with the rate of the slowest link
whatever the rank count: all-reduce 2(n-1)/n; all-gather, reduce-scatter and all-to-all
(n-1)/n; broadcast, reduce and scatter 1. hccl_test (``hicann/oam-tools``
``src/hccl_test``) prints only the algorithm bandwidth, with the same byte counts as
nccl-tests (see :mod:`.phases`, ``convention``), so the same factors apply to it.
``imports/hccl_test.py`` takes its factors from here: one table.

Example:
    >>> bus_factor("all_reduce", 8)
    1.75
    >>> bus_factor("all_gather", 8)
    0.875
    >>> OPERATIONS
    ('all_reduce', 'all_gather', 'reduce_scatter', 'all_to_all', 'broadcast')
"""

from __future__ import annotations

from collections.abc import Callable

from ..vocab import (
    ALL_GATHER,
    ALL_REDUCE,
    ALL_TO_ALL,
    BROADCAST,
    COLLECTIVE_OPERATIONS,
    REDUCE_SCATTER,
)

__all__ = [
    "ALL_GATHER",
    "ALL_REDUCE",
    "ALL_TO_ALL",
    "BROADCAST",
    "BUS_FACTORS",
    "OPERATIONS",
    "REDUCE_SCATTER",
    "REDUCING",
    "bus_bandwidth",
    "bus_factor",
]

#: The collectives this package builds from copies, in the order of ``--ops`` help.
OPERATIONS: tuple[str, ...] = COLLECTIVE_OPERATIONS
#: Operations that combine data (a reduction pass follows the copies that bring it).
REDUCING: tuple[str, ...] = (ALL_REDUCE, REDUCE_SCATTER)

#: What hccl_test's ``data_size`` counts for each operation (hicann/oam-tools
#: ``src/hccl_test``, the ``*_rootinfo_test.cc`` files; :func:`.phases.convention`): the
#: per-rank buffer, or for all-gather and reduce-scatter the total of the ranks' chunks.
DATA_SIZE: dict[str, str] = {
    ALL_REDUCE: "per-rank buffer",
    ALL_GATHER: "total output: chunk x ranks",
    REDUCE_SCATTER: "total input per rank: chunk x ranks",
    ALL_TO_ALL: "per-rank send buffer",
    BROADCAST: "the root's buffer",
}

#: busbw / algbw per operation, for n ranks (nccl-tests doc/PERFORMANCE.md).
BUS_FACTORS: dict[str, Callable[[int], float]] = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "all_to_all": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
    "scatter": lambda n: 1.0,
}


def bus_factor(operation: str, ranks: int) -> float:
    """busbw / algbw of ``operation`` on ``ranks`` ranks (nccl-tests' factors).

    Example:
        >>> bus_factor("broadcast", 16), bus_factor("all_to_all", 4)
        (1.0, 0.75)
    """
    if operation not in BUS_FACTORS:
        raise ValueError(
            f"no bus-bandwidth factor for {operation!r}; known: {', '.join(BUS_FACTORS)}"
        )
    if ranks < 1:
        raise ValueError(f"ranks must be at least 1; got {ranks}")
    return BUS_FACTORS[operation](ranks)


def bus_bandwidth(algbw_GBps: float, operation: str, ranks: int) -> float:
    """The bus bandwidth of an algorithm bandwidth.

    Example:
        >>> bus_bandwidth(100.0, "all_reduce", 4)
        150.0
    """
    return algbw_GBps * bus_factor(operation, ranks)
