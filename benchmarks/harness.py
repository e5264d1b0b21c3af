"""What every benchmark shares: child processes, the machine, a baseline tree, alternation.

Each measurement runs in a fresh child process (``python -c CODE``) in an empty folder,
with ``PYTHONPATH`` set to this tree or to a baseline tree, and reports one JSON line;
its peak RSS comes from ``os.wait4``. A baseline is a folder holding another
``ascend_p2p_lab`` package, or a git commit of this repository (exported into a temporary
folder with ``git archive``). Before/after pairs run alternately, so that a change in the
machine's load falls on both.

Example:
    >>> report, maxrss_kib = run_child("import json; print(json.dumps({'x': 1}))", [])
    >>> report
    {'x': 1}
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def env(pythonpath: str | None = None) -> dict[str, str]:
    """The children's environment: the package of ``pythonpath``, else of this tree."""
    out = dict(os.environ)
    out["PYTHONPATH"] = pythonpath or str(ROOT)
    out.setdefault("ASCEND_P2P_LAB_BACKEND", "sim")
    out["MPLBACKEND"] = "Agg"
    return out


def run_child(
    code: str,
    args: list[str],
    pythonpath: str | None = None,
    timeout: float = 1800.0,
    cores: set[int] | None = None,
) -> tuple[dict[str, Any], int | None]:
    """Run ``python -c code args`` in an empty folder (so that only this tree's package
    or ``pythonpath`` can be imported); return its last JSON line and its peak RSS in KiB
    (from ``os.wait4``; None where there is no wait4). ``cores``: the CPUs the child and
    its own children may run on (``os.sched_setaffinity``; the toolkit then starts as many
    workers as those cores pay for: one on one core)."""
    with (
        tempfile.TemporaryDirectory() as cwd,
        tempfile.TemporaryFile() as err,
        tempfile.TemporaryFile() as out,
    ):
        proc = subprocess.Popen(
            [sys.executable, "-c", code, *args],
            stdout=out,
            stderr=err,
            env=env(pythonpath),
            cwd=cwd,
            preexec_fn=(lambda: os.sched_setaffinity(0, cores)) if cores else None,
        )
        maxrss = None
        if hasattr(os, "wait4"):
            _pid, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            maxrss = usage.ru_maxrss  # KiB on Linux
        else:
            proc.wait(timeout)
        if proc.returncode:
            err.seek(0)
            raise RuntimeError(
                f"child failed ({proc.returncode}): {err.read().decode(errors='replace')[-2000:]}"
            )
        out.seek(0)
        lines = out.read().decode().strip().splitlines()
    return json.loads(lines[-1]), maxrss


def machine() -> dict[str, Any]:
    """CPU, cores, RAM, OS, Python, numpy/pandas versions and the commit of this tree."""
    info: dict[str, Any] = {
        "cpu": platform.processor() or platform.machine(),
        "cores": os.cpu_count(),
        "ram_gib": None,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["ram_gib"] = round(int(line.split()[1]) / 2**20, 1)
                break
    except OSError:
        pass
    for mod in ("numpy", "pandas", "matplotlib"):
        try:
            info[mod] = __import__(mod).__version__
        except ImportError:
            info[mod] = "not installed"
    info["commit"] = commit_of(ROOT)
    return info


def commit_of(tree: Path) -> str:
    """The short commit of a git tree (with a note when it has uncommitted changes)."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=tree,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(  # the results files this run writes do not count
            [
                "git",
                "status",
                "--porcelain",
                "--untracked-files=no",
                "--",
                ".",
                ":!benchmarks/results.md",
                ":!benchmarks/results.json",
            ],
            cwd=tree,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + (" (with uncommitted changes)" if dirty else "")


def load() -> float:
    """The 1-minute load average (nan where there is none)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def baseline_tree(spec: str, keep: list[tempfile.TemporaryDirectory]) -> tuple[str, str]:
    """(folder, label) of a baseline: an existing folder as it is, else a commit of this
    repository exported with ``git archive`` into a temporary folder (kept alive in
    ``keep``)."""
    if Path(spec).is_dir():
        return str(Path(spec).resolve()), f"the package in {spec}"
    full = subprocess.run(
        ["git", "rev-parse", "--verify", f"{spec}^{{commit}}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if full.returncode:
        raise SystemExit(f"--baseline {spec}: neither a folder nor a commit of this repository")
    tmp = tempfile.TemporaryDirectory(prefix="bench-baseline-")
    keep.append(tmp)
    archive = subprocess.run(
        ["git", "archive", "--format=tar", full.stdout.strip()],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    with tempfile.TemporaryFile() as fh:
        fh.write(archive)
        fh.seek(0)
        with tarfile.open(fileobj=fh) as tar:
            tar.extractall(tmp.name, filter="data")
    return tmp.name, f"commit {spec[:12]}"


def alternate(
    measure: Callable[[str | None], dict[str, Any]],
    repeats: int,
    baseline: str | None,
    key: str = "wall_s",
) -> dict[str, Any]:
    """``measure(pythonpath)`` ``repeats`` times for this tree (None) and, when given, as
    often for the baseline, alternately (before, after, before, ...); the runs, and with
    a baseline the median of the per-round ratios after / before of ``key``."""
    after: list[dict[str, Any]] = []
    before: list[dict[str, Any]] = []
    for _ in range(repeats):
        if baseline:
            before.append(measure(baseline))
        after.append(measure(None))
    out: dict[str, Any] = {"after": after, "before": before}
    if before:
        out["ratio"] = statistics.median(a[key] / b[key] for a, b in zip(after, before))
        if all("cpu_s" in r for r in after + before):  # CPU seconds, the same way
            out["cpu_ratio"] = statistics.median(
                a["cpu_s"] / b["cpu_s"] for a, b in zip(after, before)
            )
    return out


def one_core() -> set[int]:
    """The CPU a one-core measurement runs on: the last this process may use (on a
    shared machine the first is the one most jobs start on)."""
    return {max(os.sched_getaffinity(0))} if hasattr(os, "sched_getaffinity") else set()


def med(runs: list[dict[str, Any]], key: str) -> float:
    """The median of one figure over runs."""
    return statistics.median(r[key] for r in runs)
