"""The README's test command, ``python -m pytest``, in this tree and alternately in a baseline.

Each run is the command exactly as the README gives it, started in the tree's own folder
(its ``pyproject.toml`` addopts, its ``conftest.py``, its tests and notebooks) with
``PYTHONPATH`` set to that folder, so that the test processes and the notebooks' kernels
import that tree's package (the editable install in the environment points elsewhere; it
comes after ``PYTHONPATH``). Before the runs, a one-cell notebook is run under nbval the
same way for each tree and writes the folder its kernel imported ``ascend_p2p_lab`` from;
a kernel importing another tree stops the measurement.

With a baseline the trees alternate (before, after, before, ...), and after / before is
the median of the per-round ratios of wall time (and of CPU seconds: the pytest process
and every process it and its workers waited for, kernels included).
"""

from __future__ import annotations

import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import ROOT, alternate, env

COMMAND = ["-m", "pytest", "-q"]
COUNTED = ("passed", "failed", "skipped", "errors", "error", "xfailed", "xpassed", "deselected")

PROBE_CELL = (
    "import os\n"
    "import ascend_p2p_lab\n"
    "with open(os.environ['ASCEND_P2P_BENCH_PROBE'], 'w') as fh:\n"
    "    fh.write(os.path.dirname(os.path.dirname(os.path.abspath(ascend_p2p_lab.__file__))))"
)


def suite_env(tree: Path) -> dict[str, str]:
    """The environment of a run: the tree's package first; no MPLBACKEND unless the user
    set one (the README's command exports none: the kernels draw inline)."""
    out = env(str(tree))
    if "MPLBACKEND" not in os.environ:
        out.pop("MPLBACKEND", None)
    return out


def kernel_package(tree: Path) -> str:
    """The folder a notebook kernel started by this tree's nbval imports the package from
    (a one-cell notebook run under the tree's pytest configuration, in one process)."""
    with tempfile.TemporaryDirectory(prefix="bench-probe-") as tmp:
        book, out = Path(tmp) / "probe.ipynb", Path(tmp) / "imported"
        cell = {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": []}
        nb = {"cells": [{**cell, "source": PROBE_CELL}], "metadata": {}, "nbformat": 4}
        book.write_text(json.dumps({**nb, "nbformat_minor": 5}))
        config = ["-c", str(tree / "pyproject.toml"), "--rootdir", str(tree)]
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-n", "0", *config, str(book)],
            cwd=tree,
            env={**suite_env(tree), "ASCEND_P2P_BENCH_PROBE": str(out)},
            capture_output=True,
            text=True,
        )
        if proc.returncode or not out.exists():
            raise RuntimeError(f"the kernel probe failed in {tree}:\n{proc.stdout[-2000:]}")
        return out.read_text()


def counts_of(summary: str) -> dict[str, int]:
    """``{"passed": 2817, "skipped": 4}`` from pytest's last line."""
    words = "|".join(COUNTED)
    return {k: int(v) for v, k in re.findall(rf"(\d+) ({words})\b", summary)}


def run_once(tree: Path) -> dict[str, Any]:
    """One run of the README's command in ``tree``: wall, CPU, exit code, counts."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, *COMMAND], cwd=tree, env=suite_env(tree), capture_output=True, text=True
    )
    wall = time.perf_counter() - t
    done = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = done.ru_utime + done.ru_stime - kids.ru_utime - kids.ru_stime
    lines = [ln for ln in proc.stdout.strip().splitlines() if ln.strip()]
    summary = lines[-1].strip("= ") if lines else ""
    return {
        "wall_s": wall,
        "cpu_s": cpu,
        "returncode": proc.returncode,
        "summary": summary,
        "counts": counts_of(summary),
        "load": os.getloadavg()[0],
    }


def _medians(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One tree's rounds: each, the median wall and CPU, the worst exit, the last counts."""
    return {
        "runs": runs,
        "wall_s": statistics.median(r["wall_s"] for r in runs),
        "cpu_s": statistics.median(r["cpu_s"] for r in runs),
        "returncode": max(r["returncode"] for r in runs),
        "summary": runs[-1]["summary"],
        "counts": runs[-1]["counts"],
    }


def measure_suite(repeats: int = 1, baseline: str | None = None) -> dict[str, Any]:
    """The README's ``python -m pytest``, ``repeats`` times; with a baseline tree,
    alternately with it (the same number of runs each)."""
    trees = {"after": ROOT, **({"before": Path(baseline)} if baseline else {})}
    imported = {}
    for side, tree in trees.items():
        imported[side] = kernel_package(tree)
        if Path(imported[side]).resolve() != tree.resolve():
            raise RuntimeError(f"a kernel started in {tree} imported {imported[side]}")
    pair = alternate(lambda path: run_once(Path(path) if path else ROOT), repeats, baseline)
    a = pair["after"]
    out: dict[str, Any] = {
        "status": "measured",
        "command": "python " + " ".join(COMMAND),
        **_medians(a),
        "kernels_import": imported,
    }
    if b := pair["before"]:
        out["before"] = _medians(b)
        out["ratio"], out["cpu_ratio"] = pair["ratio"], pair["cpu_ratio"]
    return out
