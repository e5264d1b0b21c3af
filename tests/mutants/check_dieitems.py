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
    M(
        "check.dieitems.die_link_fields_reordered",
        "check/dieitems.py",
        "    pair: tuple[Whole, Whole] | None = None  # the fields in the order written (criteria.Table)\n"
        '    initiator: Literal[PAIR_INITIATORS] = "dst"  # type: ignore[valid-type]\n',
        '    initiator: Literal[PAIR_INITIATORS] = "dst"  # type: ignore[valid-type]\n'
        "    pair: tuple[Whole, Whole] | None = None  # the fields in the order written (criteria.Table)\n",
        "a [[die_link]] entry is written initiator before pair (not as before)",
        ("tests/check/test_criteria.py",),
    ),
]
