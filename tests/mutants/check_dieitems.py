"""Mutants of ``ascend_p2p_lab/check/dieitems.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.dieitems.links_pooled",
        "check/dieitems.py",
        'on = [*keys, "src", "dst", "die_link", "initiator"]',
        'on = [*keys, "src", "dst", "initiator"]',
        "an item's value pools its pair's sio and hccs rows",
    ),
]
