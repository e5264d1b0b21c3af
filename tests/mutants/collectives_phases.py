"""Mutants of ``ascend_p2p_lab/collectives/phases.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "collectives.phases.reduction_not_derived",
        "collectives/phases.py",
        ("            if m.reduce:\n                totals[m.dst] += m.nbytes"),
        ("            if False:\n                totals[m.dst] += m.nbytes"),
        "a phase's reducing moves give no reduction pass",
    ),
    M(
        "collectives.phases.chunk_rounded_down",
        "collectives/phases.py",
        "per_rank = -(-count // ranks)",
        "per_rank = count // ranks",
        ("hccl_test's per-rank count rounded down (bytes lost on uneven sizes)"),
    ),
    M(
        "collectives.phases.split_unaligned",
        "collectives/phases.py",
        "per = -(-per // align) * align if align > 1 else per",
        "per = per",
        "HCCL's slices not rounded up to 128 B",
    ),
]
