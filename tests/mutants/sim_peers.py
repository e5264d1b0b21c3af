"""Mutants of ``ascend_p2p_lab/sim/peers.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.peers.peer_rule_per_process",
        "sim/peers.py",
        ("        return mine | self.others() if shared and self.others is not None else mine"),
        "        return mine",
        ("IPC copies see only the importer's own enables (the per-process rule again)"),
    ),
]
