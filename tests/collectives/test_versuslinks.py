"""Collectives measured against their links (collectives/versuslinks.py): an hccl_test
import's rows are rebuilt on devices 0..n-1 with HCCL's algorithm, the toolkit's on the
devices and algorithm they name; a slow link lowers the prediction and names itself as
the limit; the text marks ratios below the threshold; a run without collectives is
refused."""

from __future__ import annotations

import pandas as pd
import pytest

from ascend_p2p_lab.collectives.phases import CollectiveError
from ascend_p2p_lab.collectives.rates import LinkModel
from ascend_p2p_lab.collectives.versuslinks import compare_collectives, compare_text
from ascend_p2p_lab.topology import load_preset
from ascend_p2p_lab.vocab import COLLECTIVE

A2 = load_preset("atlas800t-a2")


def _rows(**extra: list) -> pd.DataFrame:
    """One all_gather of 256 MiB on 8 ranks, measured at 146.8 GB/s busbw (as imported)."""
    base = {
        "operation": ["all_gather"],
        "ranks": [8],
        "size_bytes": [256 << 20],
        "time_us": [1600.0],
        "algbw_GBps": [167.8],
        "busbw_GBps": [146.8],
    }
    return pd.DataFrame({**base, **extra})


def test_an_import_is_rebuilt_as_hccl_runs_it_on_the_first_ranks() -> None:
    t = compare_collectives(_rows(), A2, LinkModel.from_topology(A2))
    row = t.iloc[0]
    assert bool(row["imported"]) and row["devices"] == "0,1,2,3,4,5,6,7"
    assert row["algorithm"] == "mesh"
    assert row["of_bound"] == pytest.approx(146.8 / row["bound_busbw_GBps"])
    assert row["ratio"] == pytest.approx(146.8 / row["predicted_busbw_GBps"])


def test_a_slow_link_lowers_the_prediction_and_is_named_as_the_limit() -> None:
    healthy = LinkModel.from_topology(A2)
    slow = healthy.degraded({(2, 5): 0.25})
    a = compare_collectives(_rows(), A2, healthy).iloc[0]
    b = compare_collectives(_rows(), A2, slow).iloc[0]
    assert b["predicted_busbw_GBps"] < a["predicted_busbw_GBps"]
    assert b["ratio"] > a["ratio"] and b["limit"] == "2->5"
    assert "2->5" not in str(a["limit"]) or "alike" in str(a["limit"])


def test_the_toolkits_rows_keep_their_devices_and_the_text_marks_low_ratios() -> None:
    own = _rows(
        ranks=[4], devices=["1,3,5,7"], algorithm=["ring"], busbw_GBps=[1.0], pattern=[COLLECTIVE]
    )
    t = compare_collectives(own, A2, LinkModel.from_topology(A2))
    row = t.iloc[0]
    assert not bool(row["imported"]) and row["devices"] == "1,3,5,7"
    assert row["algorithm"] == "ring"
    text = compare_text(t, threshold=0.9)
    assert text.startswith("all_gather on 4 ranks (measured):")
    assert f"{row['ratio']:>5.2f}*|" in text  # 1 GB/s is far below the prediction


def test_a_run_without_collective_rows_is_refused() -> None:
    with pytest.raises(CollectiveError, match="no collective rows"):
        compare_collectives(pd.DataFrame({"src": [0], "dst": [1]}), A2, LinkModel.from_topology(A2))
