"""Mutants of ``ascend_p2p_lab/comparison.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "comparison.compare_on_every_key",
        "comparison.py",
        ("return [k for k in KEYS if baseline[k].notna().any() == run[k].notna().any()]"),
        "return list(KEYS)",
        ("compare matches on keys the imported run does not record (no point in common)"),
    ),
    M(
        "comparison.silent_point_lost",
        "comparison.py",
        'keep = both[f"{_GBPS}_b"].notna() & ~silent',
        'keep = both[f"{_GBPS}_b"].notna()',
        ("a point the run has without a bandwidth or a failure (DMI's bi total) counted lost"),
    ),
    M(
        "comparison.totals_not_compared",
        "comparison.py",
        ('    for side in ("b", "r"):\n        both.loc[mask'),
        ("    for side in ():\n        both.loc[mask"),
        ("a bidirectional total is not compared (listed as not measured)"),
    ),
    M(
        "comparison.total_against_one_direction",
        "comparison.py",
        ('    for side in ("b", "r"):\n        both.loc[mask'),
        ('    for side in ("r",):\n        both.loc[mask'),
        ("the run's total compared with the baseline's per-direction figure"),
    ),
    M(
        "comparison.value_label_swapped",
        "comparison.py",
        ('out["value"] = np.where(totals, "bidir_total_GBps", "bandwidth_GBps")'),
        ('out["value"] = np.where(totals, "bandwidth_GBps", "bidir_total_GBps")'),
        "the comparison says per-direction where it compared totals",
    ),
    M(
        "comparison.ratio_inverted",
        "comparison.py",
        'out["ratio"] = (out["run_GBps"] / out["baseline_GBps"])',
        'out["ratio"] = (out["baseline_GBps"] / out["run_GBps"])',
        "ratio = baseline / run",
    ),
    M(
        "comparison.below_reversed",
        "comparison.py",
        'out["below"] = (out["ratio"] < threshold) | lost',
        'out["below"] = (out["ratio"] > threshold) | lost',
        "below means above the threshold",
    ),
    M(
        "comparison.lost_not_below",
        "comparison.py",
        'out["below"] = (out["ratio"] < threshold) | lost',
        'out["below"] = out["ratio"] < threshold',
        "a lost point is not counted as below",
        harmless=(
            "a lost point's ratio is 0.0 (LOST_RATIO), below any "
            "threshold > 0 (check_threshold refuses <= 0), so the or is "
            "redundant"
        ),
    ),
    M(
        "comparison.threshold_above_one",
        "comparison.py",
        ("        and 0 < threshold <= MAX_THRESHOLD"),
        "        and 0 < threshold",
        "a threshold above 1 is accepted",
    ),
]
