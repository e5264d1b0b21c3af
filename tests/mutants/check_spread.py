"""Mutants of ``ascend_p2p_lab/check/spread.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.spread.never_over_the_bar",
        "check/spread.py",
        "    over = (cv > bar).to_numpy()",
        "    over = (cv > bar * 100).to_numpy()",
        "a spread item passes whatever its samples' CV (the key rule judged away)",
    ),
    M(
        "check.spread.one_sample_passes",
        "check/spread.py",
        "    status = np.where(~judged, SKIP, np.where(over, FAIL, PASS))",
        "    status = np.where(~judged, PASS, np.where(over, FAIL, PASS))",
        "an item with one sample (no spread to judge) passes instead of being skipped",
    ),
    M(
        "check.spread.bar_not_scaled",
        "check/spread.py",
        "    if n == samples or n < 2 or samples < 2:\n        return 1.0",
        "    if True:\n        return 1.0",
        "a bar for 3 samples judges an item of 2 as it is (false failures on a fleet)",
    ),
    M(
        "check.spread.population_sd",
        "check/spread.py",
        "    cv = rate.std(axis=1, ddof=1) / rate.mean(axis=1) * 100",
        "    cv = rate.std(axis=1, ddof=0) / rate.mean(axis=1) * 100",
        "the derived bar takes the population sd of the jitter's samples (too tight a bar)",
    ),
    M(
        "check.spread.pair_bar_by_destination_row",
        "check/spread.py",
        '    on = [*keys, "src", "dst", "direction", "initiator"]\n    if hosts',
        '    on = [*keys, "src", "dst", "direction", "initiator"]\n'
        '    expected = expected.rename(columns={"src": "dst", "dst": "src"})\n    if hosts',
        "a pair's own spread bar is read by destination row (2->5 judged by 5->2's bar)",
    ),
]
