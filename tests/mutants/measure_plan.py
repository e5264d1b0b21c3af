"""Mutants of ``ascend_p2p_lab/measure/plan.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.plan.probe_failure_not_kept",
        "measure/plan.py",
        "ServerView(rt, ask_all=True, failure_of=_probe_failure)",
        "ServerView(rt, ask_all=True)",
        "a failed aclrtDeviceCanAccessPeer stops the sweep instead of costing its pair",
    ),
]
