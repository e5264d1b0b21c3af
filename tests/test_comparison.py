"""compare (comparison.py): run-against-baseline bandwidth ratios and the points below a
threshold.

The degraded run halves one direction only (0 -> 1; 1 -> 0 stays clean), so a comparison
or a ratio grid that swaps source and destination cannot pass.

- A point is below when its ratio is strictly less than the threshold. A point lost in
  the run (a failed copy, or a row with an error kind such as a failed verification) is
  below, at LOST_RATIO. A point the baseline lacks, or that is in one run only, is listed
  by unmatched() with its reason, not compared.
- A threshold that is not a number in (0, 1] is refused in one line, by compare too.
- ratio_grid rows are sources; the JSON has the documented keys and null for NaN.
- A bidirectional total is compared only with a total.
- A sweep_processes run splits into IPC against in-process (about equal on A3); a run
  with one process mode cannot be split.
- compare gives a Comparison value; using it as a frame still works and warns.
- Runs are matched only on the keys both record (an imported run has no initiators)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from helpers import (
    SIZE,
    saved_compare_runs,
)

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.comparison import (
    DEFAULT_THRESHOLD,
    LOST_RATIO,
    check_threshold,
    compare,
    match_keys,
    ratio_grid,
    split_process_modes,
    to_dict,
    to_json,
    unmatched,
)
from ascend_p2p_lab.measure.processes import sweep_processes
from ascend_p2p_lab.run import Run
from ascend_p2p_lab.schema import to_frame


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[pd.DataFrame, Path]]:
    """clean, clean2, degraded, failing, corrupt, other, wider (helpers.saved_compare_runs)."""
    return saved_compare_runs(tmp_path_factory.mktemp("runs"))


# ----------------------------------------------------------------------- the library
def test_compare_names_exactly_the_degraded_direction(runs) -> None:
    cmp = compare(runs["clean"][0], runs["degraded"][0])
    assert len(cmp) == 2
    below = cmp.points[cmp.points["below"]]
    assert list(zip(below["src"], below["dst"])) == [(0, 1)]
    by_pair = cmp.points.set_index(["src", "dst"])["ratio"]
    assert by_pair[(0, 1)] == pytest.approx(0.5, abs=0.05)
    assert by_pair[(1, 0)] == pytest.approx(1.0, abs=0.05)
    assert not cmp.points.set_index(["src", "dst"]).loc[(1, 0), "below"]
    row = cmp.points.set_index(["src", "dst"]).loc[(0, 1)]
    assert row["ratio"] == pytest.approx(row["run_GBps"] / row["baseline_GBps"])


def test_clean_against_clean_has_nothing_below(runs) -> None:
    cmp = compare(runs["clean"][0], runs["clean2"][0])
    assert len(cmp) == 2 and not cmp.points["below"].any()
    assert cmp.points["ratio"].to_numpy() == pytest.approx([1.0, 1.0], abs=0.05)


def test_below_is_strictly_less_than_the_threshold(runs) -> None:
    same = compare(runs["clean"][0], runs["clean"][0], threshold=1.0)
    assert (same.points["ratio"] == 1.0).all() and not same.points["below"].any()
    strict = compare(runs["clean"][0], runs["degraded"][0], threshold=0.3)
    assert not strict.points["below"].any()


def test_a_point_lost_in_the_run_counts_as_below(runs) -> None:
    cmp = compare(runs["clean"][0], runs["failing"][0]).points.set_index(["src", "dst"])
    lost = cmp.loc[(0, 1)]
    assert lost["below"] and lost["ratio"] == LOST_RATIO and math.isnan(lost["run_GBps"])
    assert lost["run_error_kind"] == "runtime"
    assert not cmp.loc[(1, 0), "below"]
    # the other way round (the baseline failed) is no regression: listed, not compared
    back = compare(runs["failing"][0], runs["clean"][0])
    assert list(zip(back.points["src"], back.points["dst"])) == [(1, 0)]
    missing = unmatched(runs["failing"][0], runs["clean"][0])
    assert missing[["src", "dst", "reason"]].values.tolist() == [[0, 1, "not_measured_in_baseline"]]


def test_rows_with_an_error_kind_are_not_measurements(runs) -> None:
    corrupt = runs["corrupt"][0]
    assert (
        corrupt.samples[corrupt.samples["src"] == 0]["bandwidth_GBps"].notna().all()
    )  # fast, but wrong
    cmp = compare(runs["clean"][0], corrupt).points.set_index(["src", "dst"])
    assert cmp.loc[(0, 1), "below"] and cmp.loc[(0, 1), "ratio"] == LOST_RATIO
    assert cmp.loc[(0, 1), "run_error_kind"] == "verification"
    assert not cmp.loc[(1, 0), "below"]


def test_points_in_one_run_only_are_listed_not_dropped(runs) -> None:
    cmp = compare(runs["clean"][0], runs["wider"][0])
    assert len(cmp) == 2
    missing = unmatched(runs["clean"][0], runs["wider"][0])
    assert missing[["src", "dst", "reason"]].values.tolist() == [[2, 3, "only_in_run"]]
    missing = unmatched(runs["wider"][0], runs["clean"][0])
    assert missing[["src", "dst", "reason"]].values.tolist() == [[2, 3, "only_in_baseline"]]
    assert compare(runs["clean"][0], runs["other"][0]).points.empty


@pytest.mark.parametrize("bad", [0, -0.5, 1.0001, 2, math.nan, math.inf, "0.9", True, None])
def test_threshold_outside_zero_to_one_is_refused(bad) -> None:
    with pytest.raises(ValueError, match="threshold") as info:
        check_threshold(bad)
    assert "\n" not in str(info.value)


def test_threshold_is_checked_by_compare(runs) -> None:
    with pytest.raises(ValueError, match="threshold"):
        compare(runs["clean"][0], runs["clean"][0], threshold=0)


def test_ratio_grid_rows_are_sources(runs) -> None:
    grid = ratio_grid(compare(runs["clean"][0], runs["degraded"][0]))
    assert grid.ratios.shape == (8, 8) and grid.size == SIZE and grid.path == "p2p"
    assert grid.ratios.loc[0, 1] == pytest.approx(0.5, abs=0.05)
    assert grid.ratios.loc[1, 0] == pytest.approx(1.0, abs=0.05)
    assert grid.below.to_numpy().sum() == 1 and grid.below.loc[0, 1]
    assert math.isnan(grid.ratios.loc[2, 3])


def test_json_has_the_documented_keys_and_null_for_nan(runs) -> None:
    cmp = compare(runs["clean"][0], runs["failing"][0])
    text = to_json(cmp, unmatched(runs["clean"][0], runs["failing"][0]))
    data = json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in JSON"))
    assert {"below", "pairs_compared", "threshold", "baseline_run_id", "run_id"} <= set(data)
    assert data["threshold"] == DEFAULT_THRESHOLD and data["pairs_compared"] == 2
    assert data["baseline_run_id"] == runs["clean"][0].meta.run_id
    assert data["run_id"] == runs["failing"][0].meta.run_id
    (point,) = data["below"]
    assert {"src", "dst", "direction", "peer", "size_bytes", "ratio"} <= set(point)
    assert (point["src"], point["dst"], point["size_bytes"]) == (0, 1, SIZE)
    assert point["ratio"] == 0.0 and point["run_GBps"] is None
    assert to_dict(compare(runs["clean"][0], runs["clean2"][0]))["below"] == []


def _bi(src: int, dst: int, gbps: float | None, total: float | None) -> dict:
    return {
        "src": src,
        "dst": dst,
        "pattern": "pair",
        "direction": "bi",
        "peer": "on",
        "path": "p2p",
        "size_bytes": 1 << 28,
        "bandwidth_GBps": gbps,
        "bidir_total_GBps": total,
    }


def test_a_total_is_compared_only_with_a_total():
    """Run side gives only totals (DMI): with the baseline's totals they are compared (the
    ratio of totals, 0 -> 1 lowered, not 1 -> 0); a baseline without totals leaves them
    unmatched, neither compared with a per-direction figure nor counted lost."""
    from ascend_p2p_lab.comparison import compare, unmatched
    from ascend_p2p_lab.schema import to_frame

    run = to_frame([_bi(0, 1, None, 40.0), _bi(1, 0, None, 50.0)])
    base = to_frame([_bi(0, 1, 25.0, 50.0), _bi(1, 0, 25.0, 50.0)])
    got = compare(base, run)
    assert got.points[["src", "dst", "ratio", "below", "value"]].values.tolist() == [
        [0, 1, 0.8, True, "bidir_total_GBps"],
        [1, 0, 1.0, False, "bidir_total_GBps"],
    ]
    assert unmatched(base, run).empty
    per_direction = to_frame([_bi(0, 1, 25.0, None), _bi(1, 0, 25.0, None)])
    assert compare(per_direction, run).points.empty
    assert set(unmatched(per_direction, run)["reason"]) == {"not_measured_in_run"}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    out = tmp_path_factory.mktemp("proc") / "run"
    with open_runtime("sim", "atlas800t-a3") as rt:
        Run.of(sweep_processes(rt, pairs=[(0, 1), (0, 2)], sizes="1MiB,8MiB", samples=2)).save(out)
    return Run.load(out).frame()


def test_compare_sets_ipc_against_in_process(run: pd.DataFrame) -> None:
    cmp = compare(*split_process_modes(run))
    # both links of the A3 die pair (SIO) and across cards (HCCS_SW), pulled and pushed
    assert len(cmp) == 2 * 2 * 2
    assert ((cmp.points["ratio"] - 1).abs() < 0.05).all() and not cmp.points["below"].any()


def test_a_run_with_one_mode_cannot_be_split(run: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="both process modes"):
        split_process_modes(run[run["process_mode"] == "in_process"])


def test_compare_gives_a_comparison_value_whose_frame_use_warns() -> None:
    """issue 41 item 2: the metadata typed on a Comparison, not in attrs["comparison"]."""
    from ascend_p2p_lab.comparison import Comparison
    from ascend_p2p_lab.run import Run, RunMeta
    from ascend_p2p_lab.schema import to_frame

    def row(src: int, dst: int, gbps: float) -> dict:
        return {"src": src, "dst": dst, "link": "HCCS", "pattern": "pair", "direction": "uni",
                "peer": "on", "path": "p2p", "initiator": "src", "size_bytes": 1 << 24,
                "bandwidth_GBps": gbps}  # fmt: skip

    base = Run(to_frame([row(0, 1, 25.0), row(1, 0, 20.0)]), RunMeta(run_id="base"))
    new = Run(to_frame([row(0, 1, 12.5), row(1, 0, 20.0)]), RunMeta(run_id="new"))
    cmp = compare(base, new, threshold=0.8)
    assert isinstance(cmp, Comparison) and not cmp.points.attrs
    assert (cmp.threshold, cmp.baseline_run_id, cmp.run_id) == (0.8, "base", "new")
    assert cmp.points[["src", "dst", "ratio"]].values.tolist() == [[0, 1, 0.5], [1, 0, 1.0]]
    assert to_dict(cmp)["run_id"] == "new" and len(cmp) == 2
    with pytest.warns(DeprecationWarning, match=r"comparison\.points"):
        assert list(cmp["below"]) == [True, False]
    with pytest.warns(DeprecationWarning, match=r"comparison\.points"):
        assert cmp.attrs["comparison"]["baseline_run_id"] == "base"
    assert "Comparison(" in repr(cmp) and "<table" in cmp._repr_html_()


def test_runs_are_matched_only_on_the_keys_both_record() -> None:
    """An imported run without initiators is matched without them (else no point would
    be in common); two runs that both record them are matched on them."""
    ours = to_frame([{"src": 0, "dst": 1, "initiator": "dst", "size_bytes": 4}])
    imported = to_frame([{"src": 0, "dst": 1, "size_bytes": 4}])
    assert "initiator" not in match_keys(ours, imported)
    assert "initiator" in match_keys(ours, ours)
