"""The first run: ``demo`` on the A2 and the A3, ``report`` of the A2 demo run, and the
dashboard's re-run, each in a fresh process, with the same rows and figures as a baseline.

- demo: ``ascend-p2p-lab demo --preset P --out DIR`` (the README's first command, its
  progress bar on stderr), timed inside the child around ``cli.main`` (imports of the
  package and pandas excluded, matplotlib's included, as a newcomer waits for them), with
  the report step timed apart and the CPU of the child and of any drawing workers;
- report: ``ascend-p2p-lab report RUN --out DIR`` of an A2 demo run;
- dashboard: a ``SweepDashboard`` on the A2 with its default controls: one Run, then the
  timed re-run (what a user waits for after pressing Run again), with its draws counted.

With a baseline, every run alternates with the baseline's, and the rows of each demo
(all columns but ``run_id`` and ``host``) and its PNGs (pixel for pixel) are compared.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from harness import ROOT, alternate, med, run_child

DEMO_CHILD = r"""
import json, resource, sys, time
w, c = time.perf_counter(), time.process_time()
import pandas
from ascend_p2p_lab.cli import main
import importlib
try:  # the demo's report step: cli/runoutput.py (cmd_demo imports it when it runs),
    # cli/cmd_demo.py, or cli/runs.py in older trees (whose package also names a function
    # cmd_demo: the module is imported by its full name)
    where = importlib.import_module("ascend_p2p_lab.cli.runoutput")
    name = "write_report"
    if not hasattr(where, name):
        where = importlib.import_module("ascend_p2p_lab.cli.cmd_demo")
except ImportError:
    where = importlib.import_module("ascend_p2p_lab.cli.runs")
    name = "_write_report"
base = (time.perf_counter(), time.process_time())
report = [0.0]
real = getattr(where, name)
def timed(*a, **k):
    t = time.perf_counter()
    try:
        return real(*a, **k)
    finally:
        report[0] += time.perf_counter() - t
setattr(where, name, timed)
code = main(sys.argv[1:])
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall_s": time.perf_counter() - base[0], "report_s": report[0],
                  "cpu_s": time.process_time() - base[1] + kids.ru_utime + kids.ru_stime,
                  "imports_s": base[0] - w, "exit": code}))
"""

DASH_CHILD = r"""
import json, time, sys
from ascend_p2p_lab.widgets import SweepDashboard
from ascend_p2p_lab.widgets import live
draws = []
real = live.draw
def counted(dash):
    t = time.process_time()
    real(dash)
    draws.append(time.process_time() - t)
live.draw = counted
with SweepDashboard(preset="atlas800t-a2") as dash:
    dash.run()
    draws.clear()
    w, c = time.perf_counter(), time.process_time()
    dash.run()
    wall, cpu = time.perf_counter() - w, time.process_time() - c
    shown = "heatmap" in dash.figures
    print(json.dumps({"wall_s": wall, "cpu_s": cpu, "rows": len(dash.frame),
                      "draws": len(draws), "draw_cpu_s": sum(draws), "heatmap": shown}))
"""

#: Columns that differ between two runs of the same sweep.
VOLATILE = ("run_id", "host")


def _demo(
    preset: str, out: Path, path: str | None, cores: set[int] | None = None
) -> dict[str, Any]:
    args = ["demo", "--preset", preset, "--out", str(out), "--overwrite"]
    report, maxrss = run_child(DEMO_CHILD, args, path, cores=cores)
    return {**report, "maxrss_mib": (maxrss or 0) / 1024, "out": str(out)}


def measure_demo(
    preset: str, repeats: int, baseline: str | None, cores: set[int] | None = None
) -> dict[str, Any]:
    """The demo on a preset, alternately with the baseline; the last outputs compared.
    ``cores``: both trees' demos confined to those CPUs (one: one worker, as a newcomer's
    busy machine gives it), else on every core, with as many workers as idle cores pay."""
    with tempfile.TemporaryDirectory(prefix="bench-demo-") as tmp:
        dirs = {None: Path(tmp) / "after", baseline: Path(tmp) / "before"}
        pair = alternate(lambda path: _demo(preset, dirs[path], path, cores), repeats, baseline)
        out = _figures(preset, pair)
        out["cores"] = sorted(cores) if cores else "all"
        if baseline:
            out["same_rows"] = same_rows(dirs[baseline], dirs[None])
            out["same_figures"] = same_figures(dirs[baseline], dirs[None])
        if preset == "atlas800t-a2":  # the input of the report benchmark: each tree's own
            out["run_dir"] = _keep_run(dirs[None])  # run (an older release may not read a
            if baseline:  # newer run.json: its report would time an exit 2)
                out["baseline_run_dir"] = _keep_run(dirs[baseline])
    return out


def _keep_run(folder: Path) -> str:
    """A copy of a demo's run folder without its figures, kept for the report benchmark."""
    keep = Path(tempfile.mkdtemp(prefix="bench-a2-demo-"))
    for f in folder.iterdir():
        if f.is_file() and f.suffix != ".png":
            (keep / f.name).write_bytes(f.read_bytes())
    return str(keep)


def _figures(label: str, pair: dict[str, Any]) -> dict[str, Any]:
    """Medians of a before/after pair's runs (wall, CPU, report step, peak RSS)."""
    out: dict[str, Any] = {"label": label}
    for side in ("after", "before"):
        runs = pair[side]
        if not runs:
            continue
        fig = {k: med(runs, k) for k in runs[0] if isinstance(runs[0][k], (int, float))}
        fig["walls"] = [r["wall_s"] for r in runs]
        out[side] = fig
    for key in ("ratio", "cpu_ratio"):
        if key in pair:
            out[key] = pair[key]
    return out


def measure_report(
    run_dir: str,
    repeats: int,
    baseline: str | None,
    baseline_run_dir: str | None = None,
    cores: set[int] | None = None,
) -> dict[str, Any]:
    """``report`` of a demo's run folder, alternately with the baseline (which reports
    ``baseline_run_dir``, its own demo's run, when given); a side whose report did not exit
    0 gives no ratio."""
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:

        def once(path: str | None) -> dict[str, Any]:
            out = Path(tmp) / ("before" if path else "after")
            folder = baseline_run_dir if path and baseline_run_dir else run_dir
            args = ["report", folder, "--out", str(out)]
            report, _ = run_child(DEMO_CHILD, args, path, cores=cores)
            return report

        pair = alternate(once, repeats, baseline)
        if any(r.get("exit") for side in ("after", "before") for r in pair.get(side, [])):
            pair.pop("ratio", None)  # a report that failed measures nothing
            pair.pop("cpu_ratio", None)
        out = _figures("report", pair)
        out["cores"] = sorted(cores) if cores else "all"
        if baseline:
            out["same_figures"] = same_figures(Path(tmp) / "before", Path(tmp) / "after")
    return out


def measure_dashboard(repeats: int, baseline: str | None) -> dict[str, Any]:
    """The dashboard's re-run on the A2 with its default controls."""
    pair = alternate(lambda path: run_child(DASH_CHILD, [], path)[0], repeats, baseline)
    return _figures("dashboard", pair)


def same_rows(before: Path, after: Path) -> str:
    """Whether two saved runs hold the same rows (but ``run_id`` and ``host``)."""
    import sys

    sys.path.insert(0, str(ROOT))
    from ascend_p2p_lab.run import Run

    a, b = Run.load(before).samples, Run.load(after).samples
    a = a.drop(columns=[c for c in VOLATILE if c in a.columns])
    b = b.drop(columns=[c for c in VOLATILE if c in b.columns])
    if a.shape != b.shape or list(a.columns) != list(b.columns):
        return f"different: {a.shape} vs {b.shape}"
    diff = [c for c in a.columns if not a[c].equals(b[c])]
    return f"identical ({len(a):,} rows)" if not diff else f"different in {diff}"


def same_figures(before: Path, after: Path) -> str:
    """Whether two folders hold the same PNGs, pixel for pixel."""
    import numpy as np
    from matplotlib.image import imread

    names_a = sorted(p.name for p in before.glob("*.png"))
    names_b = sorted(p.name for p in after.glob("*.png"))
    if names_a != names_b:
        return f"different files: {sorted(set(names_a) ^ set(names_b))}"
    differ = [
        n
        for n in names_a
        if imread(before / n).shape != imread(after / n).shape
        or not np.array_equal(imread(before / n), imread(after / n))
    ]
    return (
        f"identical ({len(names_a)} PNGs, pixel for pixel)"
        if not differ
        else f"{len(differ)} of {len(names_a)} differ: {differ}"
    )


if __name__ == "__main__":  # a quick look: python benchmarks/firstrun.py
    print(json.dumps(measure_dashboard(1, None), indent=1))
