"""Mutants of ``ascend_p2p_lab/deliver/kubernetes.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "deliver.kubernetes.remove_any_taint_of_the_key",
        "deliver/kubernetes.py",
        "    elif any(ours(t) for t in taints):",
        '    elif any(t.get("key") == TAINT_KEY for t in taints):',
        "a PASS removes an admin's taint of the same key",
    ),
    M(
        "deliver.kubernetes.warn_unhealthy",
        "deliver/kubernetes.py",
        '_STATUS = {PASS: "True", WARN: "True", FAIL: "False"}',
        '_STATUS = {PASS: "True", WARN: "False", FAIL: "False"}',
        "a WARN marks the node unhealthy",
    ),
]
