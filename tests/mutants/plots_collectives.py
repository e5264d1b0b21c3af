"""Mutants of ``ascend_p2p_lab/plots/collectives.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.collectives.busbw_drawn_as_algbw",
        "plots/collectives.py",
        ('        (bus,) = ax.plot(\n            g["size_bytes"],\n            g["busbw_GBps"],'),
        ('        (bus,) = ax.plot(\n            g["size_bytes"],\n            g["algbw_GBps"],'),
        "the busbw line draws algbw",
    ),
    M(
        "plots.collectives.prediction_without_markers",
        "plots/collectives.py",
        '                marker="D",\n',
        "",
        "the prediction is a line without markers: invisible at one size",
    ),
    M(
        "plots.collectives.one_size_as_lines",
        "plots/collectives.py",
        '    if st["size_bytes"].nunique() == 1:\n        _bandwidth_bars(ax, st)',
        "    if False:\n        _bandwidth_bars(ax, st)",
        "one size drawn as points of lines on one x, on top of each other",
    ),
]
