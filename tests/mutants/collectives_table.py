"""Mutants of ``ascend_p2p_lab/collectives/table.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "collectives.table.table_checks_nothing",
        "collectives/table.py",
        ('    return "failed" if "failed" in got else "success" if got == {"success"} else "NULL"'),
        '    return "success"',
        "the table says success whatever the samples' checks",
    ),
    M(
        "collectives.table.disagreement_hidden",
        "collectives/table.py",
        "    if len(set(texts)) < 2:",
        "    if True:",
        "samples that name different bottlenecks are shown as the most named, not varies",
    ),
]
