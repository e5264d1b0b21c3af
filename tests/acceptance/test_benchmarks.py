"""benchmarks/: choosing measurements, the sameness checks, and results.md from numbers."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import firstrun  # noqa: E402
import run  # noqa: E402
import suite  # noqa: E402
import writeup  # noqa: E402
from helpers import BENCH_MACHINE as MACHINE  # noqa: E402


def test_only_picks_names_and_groups_in_order():
    assert run.selected("report,demo") == ["demo_a2", "demo_a3", "report"]
    assert run.selected("sweeps") == ["a2", "a3"]
    assert run.selected(None) == list(run.ALL)
    with pytest.raises(SystemExit, match="unknown measurement 'demos'"):
        run.selected("demos")


def _png(path: Path, value: float) -> None:
    from matplotlib.image import imsave

    img = np.zeros((4, 5, 3))
    img[1, 2] = value
    imsave(path, img)


def test_same_figures_finds_one_changed_pixel(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    for d in (a, b):
        _png(d / "x.png", 0.5)
    _png(a / "y.png", 0.5)
    _png(b / "y.png", 0.6)
    assert firstrun.same_figures(a, b) == "1 of 2 differ: ['y.png']"
    _png(b / "y.png", 0.5)
    assert firstrun.same_figures(a, b).startswith("identical (2 PNGs")
    (b / "z.png").write_bytes((b / "y.png").read_bytes())
    assert "different files" in firstrun.same_figures(a, b)


def test_same_rows_ignores_only_run_id_and_host(tmp_path):
    from ascend_p2p_lab import open_runtime
    from ascend_p2p_lab.measure import sweep
    from ascend_p2p_lab.run import Run

    runs = []
    for _ in range(2):
        with open_runtime("sim", preset="atlas800t-a2", seed=3) as rt:
            runs.append(sweep(rt, pairs="0-1", sizes="4KiB", samples=2, progress=False))
    runs[0].save(tmp_path / "a")
    runs[1].save(tmp_path / "b")
    assert firstrun.same_rows(tmp_path / "a", tmp_path / "b") == "identical (2 rows)"
    other = runs[1].samples.copy()
    other.loc[1, "elapsed_us"] += 1.0
    Run(other, runs[1].meta).save(tmp_path / "c")
    assert firstrun.same_rows(tmp_path / "a", tmp_path / "c") == "different in ['elapsed_us']"


def _first(wall: float, cpu: float) -> dict:
    return {
        "after": {"wall_s": wall, "cpu_s": cpu, "report_s": 1.0},
        "when": "2026-12-01T15:00",
        "commit": "abc",
        "load": (0.1, 0.2),
    }


def test_results_md_puts_each_number_beside_its_target():
    res = {
        "machine": MACHINE,
        "demo_a2": _first(7.5, 7.0),
        "demo_a3": _first(30.0, 29.0),
        "report": {
            **_first(2.0, 1.5),
            "before": {"wall_s": 4.0, "cpu_s": 4.0},
            "ratio": 0.5,
            "same_figures": "identical (13 PNGs, pixel for pixel)",
        },
    }
    text = writeup.render(res)
    rows = {line.split(" | ")[0]: line for line in text.splitlines() if line.startswith("| ")}
    assert rows["| `demo` on the A2 (sweep, report; same rows and figures)"].endswith("PASS |")
    assert rows["| `demo --preset atlas800t-a3`"].endswith("FAIL |")
    assert "30.00 s" in rows["| `demo --preset atlas800t-a3`"]
    assert rows["| Dashboard re-run on the A2, default controls (Python side)"].endswith(
        "not measured | n/a |"
    )
    report = rows["| report"]
    assert "4.00 s (4.00 s)" in report and "| 0.50 |" in report and "identical (13" in report


def test_suite_counts_read_pytests_last_line():
    line = "2 failed, 2817 passed, 4 skipped, 1 deselected, 3 errors in 120.11s (0:02:00)"
    assert suite.counts_of(line) == {
        "failed": 2,
        "passed": 2817,
        "skipped": 4,
        "deselected": 1,
        "errors": 3,
    }


def _fake_suite(monkeypatch, tmp_path, kernels=None):
    """measure_suite with the runs and the kernel probe replaced: the baseline's runs
    take 100 s, this tree's 90 s then 120 s; the order of calls is kept in ``calls``."""
    calls, walls = [], {"before": iter([100.0, 100.0]), "after": iter([90.0, 120.0])}

    def run_once(tree):
        side = "after" if tree == suite.ROOT else "before"
        calls.append(side)
        wall = next(walls[side])
        return {
            "wall_s": wall,
            "cpu_s": wall / 2,
            "returncode": 0,
            "summary": side,
            "counts": {"passed": 3 if side == "after" else 4},
            "load": 1.0,
        }

    monkeypatch.setattr(suite, "run_once", run_once)
    monkeypatch.setattr(suite, "kernel_package", kernels or (lambda tree: str(tree)))
    return calls


def test_suite_alternates_with_the_baseline_and_takes_the_median_ratio(monkeypatch, tmp_path):
    calls = _fake_suite(monkeypatch, tmp_path)
    out = suite.measure_suite(2, str(tmp_path))
    assert calls == ["before", "after", "before", "after"]
    assert out["ratio"] == pytest.approx((0.9 + 1.2) / 2)
    assert out["cpu_ratio"] == pytest.approx((0.9 + 1.2) / 2)
    assert out["wall_s"] == 105.0 and out["before"]["wall_s"] == 100.0
    assert out["counts"] == {"passed": 3} and out["before"]["counts"] == {"passed": 4}
    assert out["kernels_import"] == {"after": str(suite.ROOT), "before": str(tmp_path)}


def test_suite_refuses_a_kernel_that_imports_another_tree(monkeypatch, tmp_path):
    _fake_suite(monkeypatch, tmp_path, kernels=lambda tree: str(suite.ROOT))
    with pytest.raises(RuntimeError, match="imported"):
        suite.measure_suite(1, str(tmp_path))


def test_results_md_gives_the_suites_ratio_and_its_rounds():
    run1 = {
        "wall_s": 100.0,
        "cpu_s": 150.0,
        "returncode": 0,
        "summary": "s",
        "counts": {"passed": 5, "skipped": 1},
        "load": 2.0,
    }
    res = {
        "machine": MACHINE,
        "suite": {
            **_first(0, 0),
            "status": "measured",
            "command": "python -m pytest -q",
            "runs": [{**run1, "wall_s": 110.0}],
            "wall_s": 110.0,
            "returncode": 0,
            "summary": "5 passed",
            "before": {"runs": [run1], "wall_s": 100.0, "returncode": 0},
            "ratio": 1.1,
            "cpu_ratio": 1.0,
            "baseline": "commit 0ed824f",
            "kernels_import": {"after": "/a", "before": "/b"},
        },
    }
    text = writeup.render(res)
    rows = {line.split(" | ")[0]: line for line in text.splitlines() if line.startswith("| ")}
    ratio = rows["| The README's test command, wall after / before (alternating)"]
    assert "1.10, CPU 1.00 (against commit 0ed824f; 110 / 100 s)" in ratio
    assert ratio.endswith("FAIL |")
    assert "| 1 | before | 100.0 s | 150.0 s | 5 | 1 | 0 | 0 | 2.0 |" in text
    assert "| 1 | after | 110.0 s |" in text and "after: `/a`" in text
