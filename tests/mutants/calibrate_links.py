"""Mutants of ``ascend_p2p_lab/calibrate/links.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "calibrate.links.push_not_fitted",
        "calibrate/links.py",
        ('            "push_efficiency": Fit(min(1.0, ratio), how),'),
        '            "push_efficiency": Fit(1.0, how),',
        ("a twin's writes run at the read rate although the run measured both"),
        tests=("tests/calibrate/test_calibrate.py",),
    ),
    M(
        "calibrate.links.calibrate_outliers_silent",
        "calibrate/links.py",
        ("    far = per_pair[(fraction < OUTLIER_FRACTION) | (fraction > 1 / OUTLIER_FRACTION)]"),
        "    far = per_pair[fraction < 0]",
        "a degraded pair is averaged into its class without a word",
        tests=(
            "tests/calibrate/test_calibrate.py::test_a_degraded_pair_is_named_not_averaged_in_silently",
        ),
    ),
]
