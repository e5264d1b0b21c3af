"""Mutants of ``ascend_p2p_lab/plots/fleetmaps.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.fleetmaps.fleet_title_unwrapped",
        "plots/fleetmaps.py",
        (
            "    fig.suptitle(\n"
            "        textwrap.fill(text, max(20, int(width_in * 72 / (TITLE_POINTS * 0.6)))),\n"
            "        fontsize=TITLE_POINTS,\n"
            "    )"
        ),
        "    fig.suptitle(text, fontsize=TITLE_POINTS)",
        "the fleet figure's title is cut off for two hosts",
    ),
]
