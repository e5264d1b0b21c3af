"""Collectives in the dashboard (an op choice) and the collectives benchmark (its child
and its line in results.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import collectives as bench  # noqa: E402
import writeup  # noqa: E402
from helpers import BENCH_MACHINE as MACHINE  # noqa: E402


def test_the_dashboard_runs_the_collective_chosen() -> None:
    pytest.importorskip("ipywidgets")
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab.runtime import open_runtime
    from ascend_p2p_lab.widgets import SweepDashboard

    with open_runtime("sim", "atlas800t-a2") as rt:
        dash = SweepDashboard(rt)
        assert "all_to_all" in dash.collective.options
        dash.collective.value = "reduce_scatter"
        dash.sizes.value = (1 << 20, 4 << 20)
        dash.samples.value = 2
        frame = dash.run()
        message = dash.message
        dash.close()
    assert frame is not None and message.startswith("done")
    ops = frame[frame["phase"].isna()]
    assert set(ops["operation"]) == {"reduce_scatter"}
    assert sorted(ops["size_bytes"].unique()) == [1 << 20, 2 << 20, 4 << 20]
    assert list(dash.figures) == ["collectives"]
    caption = dash.out.outputs[-1]["data"]["text/plain"]
    assert caption.startswith("reduce_scatter on 8 ranks") and "predicted_busbw" in caption


def test_the_benchmark_child_reports_each_preset() -> None:
    from harness import run_child

    report, _ = run_child(
        bench.CHILD,
        ["all_gather", "4KiB", "atlas800t-a2", json.dumps({**bench.OPTIONS, "workers": 1})],
    )
    a2 = report["atlas800t-a2"]
    assert a2["points"] == 1 and a2["verified"] and a2["errors"] == 0
    assert 0.8 < a2["ratio_min"] <= a2["ratio_max"] < 1.2
    assert report["wall_s"] == pytest.approx(a2["wall_s"])


def test_results_md_has_the_collectives_line() -> None:
    preset = {
        "wall_s": 1.0,
        "cpu_s": 1.0,
        "points": 40,
        "verified": True,
        "errors": 0,
        "ratio_min": 0.97,
        "ratio_max": 1.01,
        "host_bound": 0,
    }
    res = {
        "machine": MACHINE,
        "collectives": {
            "wall_s": 12.5,
            "cpu_s": 20.0,
            "presets": {"atlas800t-a2": preset, "atlas800t-a3": {**preset, "wall_s": 11.0}},
        },
    }
    line = next(ln for ln in writeup.render(res).splitlines() if ln.startswith("| Collectives"))
    assert "12.50 s" in line and "0.970-1.010" in line and line.endswith("PASS |")
    res["collectives"]["wall_s"] = 15.5
    line = next(ln for ln in writeup.render(res).splitlines() if ln.startswith("| Collectives"))
    assert line.endswith("FAIL |")
