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


# ------------------------------------------ the bottleneck (issue 38 item 2)
def _collective_rows(preset: str, op: str, topology: object = None) -> object:
    from ascend_p2p_lab.measure import sweep
    from ascend_p2p_lab.runtime import open_runtime

    with open_runtime("sim", preset, topology=topology) as rt:
        run = sweep(rt, operations=[op], sizes=[256 << 20], samples=2, warmup=1, progress=False)
    return run.samples[run.samples["operation"].eq(op)]


def test_where_a_budget_is_saturated_no_row_names_a_link() -> None:
    """The A3's double-ring all-reduce at 256 MiB saturates the cards' both-ways budgets
    (the simulator's accounting says so for the copy that ends last in every phase):
    every row, the op's and each phase's, names a card budget and no link; it used to
    name the slowest copy's link in phases (all-reduce: 7->8) where no link binds."""
    rows = _collective_rows("atlas800t-a3", "all_reduce")
    assert set(rows["bottleneck_basis"]) == {"simulator"}
    assert rows["bottleneck_src"].isna().all() and rows["bottleneck_dst"].isna().all()
    assert rows["bottleneck_budget"].str.fullmatch(r"card\[\d+,\d+\]:both").all()


def test_a_slow_link_is_named_from_the_simulators_accounting() -> None:
    """An A2 whose link 2 -> 5 runs at half speed: its mesh all-gather's phase is held
    by that link, in every sample (a link, where no budget binds)."""
    from pathlib import Path

    from ascend_p2p_lab.topology import load_topology_file

    slow = load_topology_file(Path(__file__).resolve().parents[1] / "data" / "a2-slow-2to5.toml")
    rows = _collective_rows("atlas800t-a2", "all_gather", slow)
    assert set(rows["bottleneck_basis"]) == {"simulator"}
    assert set(zip(rows["bottleneck_src"], rows["bottleneck_dst"])) == {(2, 5)}
    assert rows["bottleneck_budget"].isna().all()


def test_without_the_simulators_accounting_the_bottleneck_is_the_predictions() -> None:
    """On hardware (no ``move_limits``) a sample names the prediction's bottleneck of
    each phase, marked ``predicted``, whichever copy ended last."""
    from ascend_p2p_lab.collectives.programs import collective_tests
    from ascend_p2p_lab.measure.phaserows import sample_values
    from ascend_p2p_lab.measure.phasetiming import PhaseSample
    from ascend_p2p_lab.measure.timing import Timing
    from ascend_p2p_lab.topology import load_preset

    (test,) = collective_tests(load_preset("atlas800t-a3"), ["all_gather"], [256 << 20])
    phases = test.program.collective.phases
    move_us = tuple(tuple(float(i) for i in range(len(p.moves))) for p in phases)
    sample = PhaseSample(Timing(1, 1000.0, 1.0), (), (1000.0,) * len(phases), move_us)
    rows = sample_values(test, sample, True)
    pred = test.program.predicted
    assert {r["bottleneck_basis"] for r in rows} == {"predicted"}
    assert rows[0]["bottleneck_budget"] == pred.bottleneck.budget == "card[0,1]:both"
    assert [r["bottleneck_budget"] for r in rows[1:]] == [p.bottleneck.budget for p in pred.phases]
