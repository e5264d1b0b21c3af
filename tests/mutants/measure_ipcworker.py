"""Mutants of ``ascend_p2p_lab/measure/ipcworker.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.ipcworker.pull_unverified",
        "measure/ipcworker.py",
        'if role == "pull" and self.spec.verify else None',
        "if False else None",
        "a pull across processes is never verified",
    ),
]
