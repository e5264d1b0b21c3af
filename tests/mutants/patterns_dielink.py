"""Mutants of ``ascend_p2p_lab/patterns/dielink.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "patterns.dielink.parts_overlap",
        "patterns/dielink.py",
        "        tuple(sum(parts[:k]) for k in range(len(parts)))\n        if test.die_link == DIE_BOTH",
        "        tuple(0 for k in range(len(parts)))\n        if test.die_link == DIE_BOTH",
        "both parts of a dual-path copy land at the start of the buffer",
    ),
    M(
        "patterns.dielink.split_for_hccs",
        "patterns/dielink.py",
        "    return (sio, size - sio)",
        "    return (size - sio, sio)",
        "the split's share goes to HCCS, not SIO",
    ),
]
