"""Mutants of ``ascend_p2p_lab/sim/contexts.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.contexts.context_not_current",
        "sim/contexts.py",
        ("        devices.tls.context = handle  # tls.device stays the device the thread set"),
        "        pass",
        "a created context does not become the thread's current one",
    ),
    M(
        "sim.contexts.default_context_destroyable",
        "sim/contexts.py",
        ("        held = devices.explicit.get(ctx)\n        if held is None:\n            what"),
        (
            "        held = devices.explicit.get(ctx) or (0, None)\n"
            "        if held is None:\n"
            "            what"
        ),
        "destroying a default context is not refused",
    ),
]
