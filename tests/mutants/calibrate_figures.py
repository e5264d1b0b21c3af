"""Mutants of ``ascend_p2p_lab/calibrate/figures.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "calibrate.figures.jitter_mixes_points",
        "calibrate/figures.py",
        ('    keys = [rows[k].astype("string").fillna("-") for k in POINT_KEYS]  # one point each'),
        (
            "    keys = [\n"
            '        rows[k].astype("string").fillna("-") for k in ("pattern", "src", "dst")\n'
            "    ]  # one point each"
        ),
        ("the jitter fit pools samples of different points (initiators, sizes)"),
        tests=("tests/calibrate/test_calibrate.py",),
    ),
]
