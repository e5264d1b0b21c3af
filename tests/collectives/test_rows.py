"""Tidy rows of collective timings: the hccl_test import's columns, the prediction beside
a measurement, the bottleneck as a link or a named budget, one row per phase."""

from __future__ import annotations

import pandas as pd
import pytest
from helpers import MIB

from ascend_p2p_lab.collectives import (
    OPERATIONS,
    LinkModel,
    collective,
    phase_rows,
    predict,
    predicted_rows,
)
from ascend_p2p_lab.collectives.rows import PHASE_COLUMNS, ROW_COLUMNS
from ascend_p2p_lab.topology import load_preset


@pytest.fixture(scope="module")
def a2():
    return load_preset("atlas800t-a2")


@pytest.fixture(scope="module")
def a3():
    return load_preset("atlas800t-a3")


def test_columns_and_types(a2) -> None:
    rows = predicted_rows(a2, OPERATIONS, [4096, 64 * MIB])
    assert list(rows.columns) == ROW_COLUMNS and len(rows) == 10
    assert rows["bottleneck_src"].dtype == "Int64" and rows["size_bytes"].dtype == "int64"
    assert set(rows["ranks"]) == {8} and set(rows["devices"]) == {"0,1,2,3,4,5,6,7"}
    assert (rows["predicted_busbw_GBps"] == rows["busbw_GBps"]).all()
    assert set(rows["source"]) == {"predicted"}


def test_reduction_is_said_on_the_rows_that_reduce(a2) -> None:
    rows = predicted_rows(a2, OPERATIONS, [MIB]).set_index("operation")
    assert (
        rows.loc["all_reduce", "reduction"]
        == rows.loc["reduce_scatter", "reduction"]
        == "inline"  # the A2 reduces fp32 sums in the DMA write (collectives.reduction)
    )
    assert rows.loc[["all_gather", "all_to_all", "broadcast"], "reduction"].isna().all()


def test_bottleneck_is_a_link_or_a_named_budget(a2, a3) -> None:
    slow = LinkModel.from_topology(a2).degraded({(2, 5): 0.5})
    link = predicted_rows(a2, ["all_gather"], [256 * MIB], model=slow).iloc[0]
    assert (link["bottleneck_src"], link["bottleneck_dst"]) == (2, 5)
    assert pd.isna(link["bottleneck_budget"]) and link["bottleneck_ties"] == 1
    budget = predicted_rows(a3, ["all_reduce"], [256 * MIB]).iloc[0]
    assert pd.isna(budget["bottleneck_src"]) and pd.isna(budget["bottleneck_dst"])
    assert budget["bottleneck_budget"].startswith("card[")


def test_phase_rows_add_up(a3) -> None:
    model = LinkModel.from_topology(a3)
    timings = [predict(collective(op, 64 * MIB, a3), model) for op in ("all_reduce", "all_to_all")]
    phases = phase_rows(timings)
    assert list(phases.columns) == PHASE_COLUMNS
    assert len(phases) == sum(len(t.phases) for t in timings)
    for t in timings:
        mine = phases[phases["operation"] == t.collective.operation]
        assert mine["time_us"].sum() == pytest.approx(t.time_us)
        parts = mine[["barrier_us", "latency_us", "transfer_us", "reduce_us"]].sum(axis=1)
        assert (parts - mine["time_us"]).abs().max() < 1e-9
    assert set(phases.loc[phases["operation"] == "all_to_all", "label"]) == {"round 1", "round 2"}
