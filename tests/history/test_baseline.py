"""ascend_p2p_lab.history.baseline: the last healthy runs, median and tolerance."""

from __future__ import annotations

import pandas as pd
import pytest

from ascend_p2p_lab.history.baseline import baseline_criteria, healthy_runs


def _records() -> pd.DataFrame:
    rows = []
    values = [20.0, 20.0, 20.0, 30.0, 10.0]  # run r3 failed an item; r4 is the newest
    for k, v in enumerate(values):
        for item, src, dst, val in (
            ("bandwidth uni pull 0->1", 0, 1, v),
            ("bandwidth uni pull 1->0", 1, 0, 25.0 + k),
        ):
            rows.append(
                {
                    "run_id": f"r{k}",
                    "time": f"2026-01-0{k + 1}",
                    "kind": "bandwidth",
                    "item": item,
                    "src": src,
                    "dst": dst,
                    "direction": "uni",
                    "initiator": "dst",
                    "value": val,
                    "unit": "GB/s",
                    "verdict": "FAIL" if k == 3 and src == 1 else "PASS",
                }
            )
    return pd.DataFrame(rows)


def test_healthy_runs_are_the_last_without_a_failed_item() -> None:
    assert healthy_runs(_records(), 10) == ["r0", "r1", "r2", "r4"]
    assert healthy_runs(_records(), 2) == ["r2", "r4"]


def test_the_bar_is_the_median_less_the_larger_of_tolerance_and_spreads() -> None:
    crit, ids = baseline_criteria(_records(), "atlas800t-a2", "host h", runs=3)
    assert ids == ["r1", "r2", "r4"]
    t = crit.table.set_index(["src", "dst"])
    # 0 -> 1: 20, 20, 10: median 20, MAD 0: the tolerance, 5 %
    assert t.loc[(0, 1), "value"] == pytest.approx(19.0)
    # 1 -> 0: 26, 27, 29: median 27, MAD 1, spread 1.4826/27 = 5.5 %: 4 spreads
    assert t.loc[(1, 0), "value"] == pytest.approx(27 * (1 - 4 * 1.4826 / 27), abs=1e-3)
    assert "median 27 GB/s of 3 healthy runs" in t.loc[(1, 0), "basis"]
    assert crit.links[0][1] == "HCCS" and crit.fraction is None


def test_no_healthy_run_is_refused() -> None:
    recs = _records().assign(verdict="FAIL")
    with pytest.raises(ValueError, match="host h: no healthy run"):
        baseline_criteria(recs, "atlas800t-a2", "host h")
