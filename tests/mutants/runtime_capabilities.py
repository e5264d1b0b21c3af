"""Mutants of ``ascend_p2p_lab/runtime/capabilities.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "runtime.capabilities.unknown_ignored",
        "runtime/capabilities.py",
        "            needs = CAPABILITIES[name]\n",
        "            needs = CAPABILITIES.get(name, ())\n",
        "an unknown capability asks for no call instead of being refused",
    ),
]
