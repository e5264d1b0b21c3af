"""Tests that kill the mutants of tools/mutants.py the rest of the suite let live.

Each test pins a number, a label or an orientation a user sees, on an asymmetric
fixture (a degraded link, a pair reachable one way only, samples of unequal value), so
that swapping src and dst, two quantiles or two directions cannot pass unnoticed.
See docs/testing.md."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import MIB, _row

from ascend_p2p_lab.results import (
    failures,
    fit_latency_bandwidth,
    matrix,
    summarize,
    to_frame,
)


def _samples(bws: list[float], **values: Any) -> list[dict[str, Any]]:
    size = values.get("size_bytes", MIB)
    return [
        _row(
            sample=i,
            bandwidth_GBps=bw,
            elapsed_us=size * 10 / (bw * 1e3),
            host_bound=i == 0,
            verified=i != 1,
            **values,
        )
        for i, bw in enumerate(bws)
    ]


def test_summary_statistics_of_skewed_samples() -> None:
    bws = [10.0, 20.0, 21.0, 22.0, 100.0]
    frame = to_frame([*_samples(bws), _row(dst=2, error="refused", error_kind="refused")])
    s = summarize(frame).set_index("dst")
    point = s.loc[1]
    assert point["samples"] == 5
    assert point["bandwidth_GBps_median"] == pytest.approx(21.0)
    assert point["bandwidth_GBps_p10"] == pytest.approx(np.quantile(bws, 0.1))
    assert point["bandwidth_GBps_p90"] == pytest.approx(np.quantile(bws, 0.9))
    assert point["us_per_copy_median"] == pytest.approx(MIB / (21.0 * 1e3))
    assert bool(point["host_bound"]) is True  # one host-bound sample flags the point
    assert bool(point["verified"]) is False  # one failed sample fails the point
    assert s.loc[2, "samples"] == 0  # a refusal is a result, not a sample


def test_matrix_statistic_and_size() -> None:
    frame = to_frame([*_samples([10.0, 20.0, 60.0]), *_samples([1.0, 2.0], size_bytes=4096)])
    assert matrix(frame, device_count=2).loc[0, 1] == pytest.approx(20.0)
    assert matrix(frame, stat="max", device_count=2).loc[0, 1] == pytest.approx(60.0)
    assert matrix(frame, stat="mean", device_count=2).loc[0, 1] == pytest.approx(30.0)


def test_fit_recovers_latency_bandwidth_and_efficiency() -> None:
    """Exact data t = 5 us + size / 20 GB/s; then noisy data against numpy's own
    1/t-weighted fit."""
    sizes = [4096 << k for k in range(10)]
    exact = [
        _row(size_bytes=s, sample=0, elapsed_us=(5.0 + s / 20e3) * 10, bandwidth_GBps=1.0)
        for s in sizes
    ]
    fit = fit_latency_bandwidth(to_frame(exact)).iloc[0]
    assert fit["latency_us"] == pytest.approx(5.0, rel=1e-6)
    assert fit["bandwidth_GBps"] == pytest.approx(20.0, rel=1e-6)
    assert fit["efficiency"] == pytest.approx(0.8, rel=1e-6)
    noise = [1.0, 1.3, 0.8, 1.1, 0.9, 1.0, 1.2, 0.95, 1.05, 1.15]
    t = np.array([(5.0 + s / 20e3) * f for s, f in zip(sizes, noise)])
    noisy = [
        _row(size_bytes=s, sample=0, elapsed_us=ti * 10, bandwidth_GBps=1.0)
        for s, ti in zip(sizes, t)
    ]
    fit = fit_latency_bandwidth(to_frame(noisy)).iloc[0]
    slope, lat = np.polyfit(np.array(sizes, float), t, 1, w=1.0 / t)
    assert fit["latency_us"] == pytest.approx(lat, rel=1e-6)
    assert fit["bandwidth_GBps"] == pytest.approx(1.0 / slope / 1e3, rel=1e-6)


def test_failures_count_points_and_leave_results_out() -> None:
    bad = {
        "error": "boom",
        "error_kind": "runtime",
        "error_code": 507013,
        "error_call": "acl.rt.memcpy_async",
    }
    rows = [_row(sample=i, **bad) for i in range(3)]
    rows += [_row(dst=2, sample=i, error="no", error_kind="refused") for i in range(3)]
    rows += [_row(dst=3, error="no", error_kind="unreachable")]
    table = failures(to_frame(rows))
    assert table[["kind", "code", "rows", "points"]].values.tolist() == [["runtime", 507013, 3, 1]]


def test_each_group_of_a_group_pattern_is_its_own_point() -> None:
    """Two groups of one window (no src, no dst) differ only by their group label."""
    frame = to_frame(
        [
            *_samples([10.0, 12.0], pattern="group", src=None, dst=None, group="0->1"),
            *_samples([30.0, 32.0], pattern="group", src=None, dst=None, group="1->0"),
        ]
    )
    s = summarize(frame).set_index("group")
    assert s["bandwidth_GBps_median"].to_dict() == pytest.approx({"0->1": 11.0, "1->0": 31.0})
