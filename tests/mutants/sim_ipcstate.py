"""Mutants of ``ascend_p2p_lab/sim/ipcstate.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.ipcstate.dead_pid_kept",
        "sim/ipcstate.py",
        "for pid in sorted(p for p in pids if not alive(p)):",
        "for pid in sorted(p for p in pids if False):",
        "what a dead process held stays in the shared state",
    ),
]
