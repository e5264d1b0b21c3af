"""ascend_p2p_lab.measure.phaserows: the values of a collective's rows (hccl_test's
time, algbw and busbw)."""

from __future__ import annotations

import math

import pytest

from ascend_p2p_lab.measure.phaserows import CHECK_WORDS, op_values


def test_algbw_is_the_conventions_bytes_over_the_time_and_busbw_scales_it() -> None:
    v = op_values(8 << 20, 8 << 20, "all_reduce", 8, 100.0)
    assert v["time_us"] == 100.0
    assert v["algbw_GBps"] == pytest.approx((8 << 20) / 100e3)
    assert v["busbw_GBps"] == pytest.approx(v["algbw_GBps"] * 2 * 7 / 8)
    gather = op_values(4 << 20, 16 << 20, "all_gather", 4, 50.0)
    assert gather["algbw_GBps"] == pytest.approx((16 << 20) / 50e3)
    assert gather["busbw_GBps"] == pytest.approx(gather["algbw_GBps"] * 3 / 4)


def test_no_time_is_no_bandwidth() -> None:
    v = op_values(1024, 1024, "all_reduce", 2, 0.0)
    assert math.isnan(v["algbw_GBps"]) and math.isnan(v["busbw_GBps"])


def test_verification_in_hccl_tests_words() -> None:
    assert CHECK_WORDS == {True: "success", False: "failed", None: "NULL"}
