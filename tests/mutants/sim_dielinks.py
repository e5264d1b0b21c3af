"""Mutants of ``ascend_p2p_lab/sim/dielinks.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.dielinks.any_pair_twins",
        "sim/dielinks.py",
        "        if not topo.twin_dies(dev, owner):",
        "        if False:",
        "a mapping between dies of two cards is accepted",
    ),
    M(
        "sim.dielinks.links_swapped",
        "sim/dielinks.py",
        "LINK_IDX = dict(enumerate(DIE_LINKS))",
        "LINK_IDX = dict(enumerate(reversed(DIE_LINKS)))",
        "ACL_RT_MEM_LINK_IDX_0 taken for HCCS and _1 for SIO",
    ),
]
