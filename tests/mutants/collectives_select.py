"""Mutants of ``ascend_p2p_lab/collectives/select.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "collectives.select.a2_threshold_exclusive",
        "collectives/select.py",
        ("if op == ALL_REDUCE and conv.chunk_bytes <= A2_SMALL_ALL_REDUCE:"),
        ("if op == ALL_REDUCE and conv.chunk_bytes < A2_SMALL_ALL_REDUCE:"),
        ("A2's small-count all-reduce stops below 256 KiB instead of at it"),
    ),
    M(
        "collectives.select.a3_threshold_not_per_rank",
        "collectives/select.py",
        ("        conv.chunk_bytes <= A3_SMALL * p"),
        ("        conv.chunk_bytes <= A3_SMALL"),
        ("A3's small-count all-reduce limit not scaled by the rank count"),
    ),
]
