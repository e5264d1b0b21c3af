"""Mutants of ``ascend_p2p_lab/collectives/busbw.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "collectives.busbw.allreduce_factor_halved",
        "collectives/busbw.py",
        '"all_reduce": lambda n: 2 * (n - 1) / n,',
        '"all_reduce": lambda n: (n - 1) / n,',
        "all-reduce busbw with the all-gather factor (n-1)/n",
    ),
    M(
        "collectives.busbw.allgather_factor_one",
        "collectives/busbw.py",
        '"all_gather": lambda n: (n - 1) / n,',
        '"all_gather": lambda n: 1.0,',
        "all-gather busbw = algbw",
    ),
]
