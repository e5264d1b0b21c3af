"""Mutants of ``ascend_p2p_lab/measure/diechoice.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.diechoice.pairs_not_checked",
        "measure/diechoice.py",
        "    for a, b in pairs:\n        if not topo.twin_dies(a, b):",
        "    for a, b in pairs:\n        if False:",
        "a pair of two cards given --die-link is measured over SIO's default path",
    ),
    M(
        "measure.diechoice.one_split",
        "measure/diechoice.py",
        "out.extend(over_die_link(test, DIE_BOTH, s) for s in splits or (None,))",
        "out.extend(over_die_link(test, DIE_BOTH, s) for s in (splits or (None,))[:1])",
        "a sweep over the split measures its first share only",
    ),
]
