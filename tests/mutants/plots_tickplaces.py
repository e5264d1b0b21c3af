"""Mutants of ``ascend_p2p_lab/plots/tickplaces.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.tickplaces.size_not_keyed",
        "plots/tickplaces.py",
        "        axis.axes.bbox.bounds,\n",
        "",
        "an axis's ticks and label boxes kept across layout passes that move and resize it: "
        "the figure laid out around the first pass's label boxes",
    ),
    M(
        "plots.tickplaces.never_reused",
        "plots/tickplaces.py",
        "    hit = _placed.get(_key(self))",
        "    hit = None",
        "every axis's ticks placed again on every ask (the report's CPU as before)",
    ),
]
