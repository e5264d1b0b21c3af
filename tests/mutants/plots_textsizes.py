"""Mutants of ``ascend_p2p_lab/plots/textsizes.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.textsizes.never_reused",
        "plots/textsizes.py",
        "    hit = _layouts.get(key)",
        "    hit = None",
        "every text measured again in every layout pass (the report's CPU as before)",
    ),
    M(
        "plots.textsizes.size_not_keyed",
        "plots/textsizes.py",
        "        p.get_size_in_points(),\n",
        "",
        "texts that differ only in their font size share one measure: titles and labels "
        "placed for another size",
    ),
    M(
        "plots.textsizes.left_installed",
        "plots/textsizes.py",
        "            Text._get_layout = _original  # type: ignore[method-assign]",
        "            pass",
        "matplotlib keeps the cache after the report: every later figure of the process "
        "(a notebook's) measured through it",
    ),
]
