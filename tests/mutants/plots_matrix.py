"""Mutants of ``ascend_p2p_lab/plots/matrix.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.matrix.image_transposed",
        "plots/matrix.py",
        "np.ma.masked_invalid(frame.to_numpy(dtype=float))",
        "np.ma.masked_invalid(frame.to_numpy(dtype=float).T)",
        "matrix colours drawn transposed (texts stay put)",
    ),
    M(
        "plots.matrix.text_xy_swapped",
        "plots/matrix.py",
        ("                    j,\n                    i,"),
        ("                    i,\n                    j,"),
        "cell texts written at (row, column) instead of (column, row)",
    ),
    M(
        "plots.matrix.xticks_reversed",
        "plots/matrix.py",
        "labels=[str(c) for c in frame.columns]",
        "labels=[str(c) for c in frame.columns[::-1]]",
        "column tick labels not the frame's columns (reversed)",
    ),
    M(
        "plots.matrix.yticks_reversed",
        "plots/matrix.py",
        "labels=[str(r) for r in frame.index]",
        "labels=[str(r) for r in frame.index[::-1]]",
        "row tick labels not the frame's index (reversed)",
    ),
]
