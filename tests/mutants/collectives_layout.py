"""Mutants of ``ascend_p2p_lab/collectives/layout.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "collectives.layout.reduction_too_small",
        "collectives/layout.py",
        ("            passes[(k, red.device)] = (first[red.device], red.nbytes)"),
        ("            passes[(k, red.device)] = (first[red.device], red.nbytes // 8)"),
        "the reduction pass copies an eighth of what it reduces",
    ),
    M(
        "collectives.layout.reduce_overwrites",
        "collectives/layout.py",
        (
            "                if m.reduce:\n"
            "                    slot[(k, j)] = before[(m.src, m.piece)]\n"
            "                else:"
        ),
        (
            "                if False:\n"
            "                    slot[(k, j)] = before[(m.src, m.piece)]\n"
            "                else:"
        ),
        ("the expected bytes treat a reducing copy as one that overwrites"),
    ),
]
