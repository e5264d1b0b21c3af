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
    M(
        "sim.peers.pair_active_one_way",
        "sim/peers.py",
        "refs.get((a, b), 0) > 0, refs.get((b, a), 0) > 0",
        "refs.get((a, b), 0) > 0, refs.get((a, b), 0) > 0",
        "a link counted as programmed when only one direction is enabled",
        ("tests/sim/test_peers.py",),
    ),
]
