"""Mutants of ``ascend_p2p_lab/results.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "results.fit_sizes_of_summary",
        "results.py",
        '        sizes = timed["size_bytes"].to_numpy(float, na_value=np.nan)\n',
        '        sizes = summary["size_bytes"].to_numpy(float, na_value=np.nan)\n',
        "the fit reads each group's sizes at its rows' places in the summary, not in the timed rows",
        tests=("tests/test_results.py",),
    ),
    M(
        "results.fit_first_nominal",
        "results.py",
        "        nominal = float(nominals.iloc[pos[0]])\n",
        "        nominal = float(nominals.iloc[0])\n",
        "every fitted group gets the first group's nominal bandwidth",
        tests=("tests/test_results.py",),
    ),
    M(
        "results.matrix_drops_initiator",
        "results.py",
        'MATRIX_READS = ("pattern", "direction", "peer", "initiator", "path", "size_bytes", "src", "dst")\n',
        'MATRIX_READS = ("pattern", "direction", "peer", "path", "size_bytes", "src", "dst")\n',
        "the matrix narrows the rows to columns without the initiator it filters on",
        tests=("tests/test_results.py",),
    ),
    M(
        "results.fit_untimed_sizes",
        "results.py",
        'timed = summary[summary["us_per_copy_median"].notna()]',
        "timed = summary",
        "the fit keeps sizes without a time per copy (NaN figures)",
    ),
    M(
        "results.inferred_always",
        "results.py",
        ("if touches is None or bool(touches(frame).fillna(False).any()):"),
        "if True:",
        "every inferred behaviour is said beside every run",
    ),
    M(
        "results.p10_p90_swapped",
        "results.py",
        (
            'out.insert(2, "bandwidth_GBps_p10", '
            "quantiles[0.10].to_numpy())\n"
            '    out.insert(3, "bandwidth_GBps_p90", '
            "quantiles[0.90].to_numpy())"
        ),
        (
            'out.insert(2, "bandwidth_GBps_p10", '
            "quantiles[0.90].to_numpy())\n"
            '    out.insert(3, "bandwidth_GBps_p90", '
            "quantiles[0.10].to_numpy())"
        ),
        "summary p10 and p90 swapped",
    ),
    M(
        "results.median_is_mean",
        "results.py",
        '"bandwidth_GBps_median": grouped["bandwidth_GBps"].median(),',
        '"bandwidth_GBps_median": grouped["bandwidth_GBps"].mean(),',
        "summary 'median' is the mean",
    ),
    M(
        "results.us_per_copy_total",
        "results.py",
        ('df["us_per_copy"] = df["elapsed_us"] / df["copies"].astype("float64")'),
        'df["us_per_copy"] = df["elapsed_us"]',
        "time per copy is the whole sample's time",
    ),
    M(
        "results.host_bound_all",
        "results.py",
        '"host_bound": grouped["host_bound"].any(),',
        '"host_bound": grouped["host_bound"].all(),',
        "a point is host-bound only if every sample is",
    ),
    M(
        "results.verified_max",
        "results.py",
        '"_verified": grouped["_verified"].min(),',
        '"_verified": grouped["_verified"].max(),',
        "a point verifies if any sample did",
    ),
    M(
        "results.samples_count_rows",
        "results.py",
        '"samples": grouped["bandwidth_GBps"].count(),',
        '"samples": grouped["bandwidth_GBps"].size(),',
        "error rows counted as samples",
    ),
    M(
        "results.failures_rows_as_points",
        "results.py",
        "points = bad.drop_duplicates([*POINT_KEYS, *keys])",
        "points = bad",
        "failures() counts samples as points",
    ),
    M(
        "results.failures_include_results",
        "results.py",
        'frame["error_kind"].isin(FAILURE_KINDS)',
        'frame["error_kind"].isin(list(ERROR_KINDS))',
        "refusals and unreachable pairs counted as failures",
    ),
    M(
        "results.matrix_transposed",
        "results.py",
        ('mat = df.groupby(["src", "dst"])[value].agg(stat).unstack()'),
        ('mat = df.groupby(["dst", "src"])[value].agg(stat).unstack()'),
        "matrix rows are destinations",
    ),
    M(
        "results.matrix_smallest_size",
        "results.py",
        '["size_bytes"].transform("max")',
        '["size_bytes"].transform("min")',
        "matrix(size=None) takes the smallest size",
    ),
    M(
        "results.matrix_stat_ignored",
        "results.py",
        "[value].agg(stat).unstack()",
        '[value].agg("median").unstack()',
        "matrix(stat=...) ignored",
    ),
    M(
        "results.fit_unweighted",
        "results.py",
        "w = 1.0 / y",
        "w = np.ones_like(y)",
        "latency fit weights large copies most",
    ),
    M(
        "results.fit_units",
        "results.py",
        "bw = 1.0 / slope / 1e3 if slope > 0",
        "bw = 1.0 / slope / 1.024e3 if slope > 0",
        "fitted bandwidth in binary GB/s",
    ),
    M(
        "results.fit_no_latency",
        "results.py",
        "np.vstack([np.ones_like(x), x])",
        "np.vstack([np.zeros_like(x), x])",
        "fit without a latency term",
    ),
    M(
        "results.efficiency_inverted",
        "results.py",
        '"efficiency": bw / nominal if nominal',
        '"efficiency": nominal / bw if nominal',
        "efficiency is nominal over measured",
    ),
    M(
        "results.matrix_pattern_default_pair",
        "results.py",
        ("pattern = VALUE_PATTERN.get(value, PAIR) if pattern is None else pattern"),
        "pattern = PAIR if pattern is None else pattern",
        ("matrix(run, value='latency_us') is not inferred to the latency pattern"),
    ),
    M(
        "results.matrix_of_nothing",
        "results.py",
        ("        if others:\n            raise ValueError"),
        ("        if False:\n            raise ValueError"),
        ("a matrix of a pattern without the value is all NaN, without a word"),
    ),
    M(
        "results.staged_local_diagonal",
        "results.py",
        "    return path in DEVICE_PATHS",
        "    return True",
        ("the host-staged matrix shows the device-local copy on its diagonal"),
        tests=(
            "tests/plots/test_cells.py::test_the_local_copy_sits_on_the_diagonal_of_device_paths_only",
        ),
    ),
    M(
        "results.summary_error_last",
        "results.py",
        '            "error": grouped["_error"].first(),\n',
        '            "error": grouped["_error"].last(),\n',
        "a point's error is its last failed sample's text, not its first's",
    ),
]
