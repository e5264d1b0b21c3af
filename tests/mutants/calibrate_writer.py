"""Mutants of ``ascend_p2p_lab/calibrate/writer.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "calibrate.writer.calibrate_outliers_not_written",
        "calibrate/writer.py",
        "    if cal.outliers:  # the class figures are medians: the pairs far from theirs, named",
        "    if False:",
        "the written preset does not name the outlier pairs",
        tests=(
            "tests/calibrate/test_calibrate.py::test_a_degraded_pair_is_named_not_averaged_in_silently",
        ),
    ),
]
