"""The report's CPU on one core, and the command line's start (issue 42 items 3 and 4).

- report_cpu: ``ascend-p2p-lab report RUN --out DIR`` of an A2 demo run in a fresh
  process pinned to one core (``sched_setaffinity`` before anything is imported, so the
  report draws with one worker): the CPU seconds of the whole command (imports included,
  as a user pays them) and its wall time; with a baseline, alternately, the median of the
  per-round ratios of CPU, and the PNGs compared pixel for pixel;
- cli_start: ``python -m ascend_p2p_lab.cli --help`` and every command's ``--help``
  against a bare ``python -c "import argparse"``, interleaved, median wall per command;
  the ratio of the top-level help and of the slowest command's help to argparse's.

Example:
    python benchmarks/run.py --only report_cpu,cli_start --baseline a1665e7
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from firstrun import _figures, same_figures
from harness import alternate, env, run_child

REPORT_CHILD = r"""
import json, os, resource, sys, time
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core: one drawing worker
w, c = time.perf_counter(), time.process_time()
from ascend_p2p_lab.cli import main
code = main(sys.argv[1:])
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall_s": time.perf_counter() - w, "exit": code,
                  "cpu_s": time.process_time() - c + kids.ru_utime + kids.ru_stime}))
"""


def measure_report_cpu(run_dir: str, repeats: int, baseline: str | None) -> dict[str, Any]:
    """``report`` of run_dir on one core, alternately with the baseline (ratio of CPU)."""
    with tempfile.TemporaryDirectory(prefix="bench-report-cpu-") as tmp:

        def once(path: str | None) -> dict[str, Any]:
            out = Path(tmp) / ("before" if path else "after")
            return run_child(REPORT_CHILD, ["report", run_dir, "--out", str(out)], path)[0]

        pair = alternate(once, repeats, baseline, key="cpu_s")
        if any(r.get("exit") for side in ("after", "before") for r in pair.get(side, [])):
            pair.pop("ratio", None)  # a report that failed measures nothing
        out = _figures("report_cpu", pair)
        if baseline:
            out["same_figures"] = same_figures(Path(tmp) / "before", Path(tmp) / "after")
    return out


#: The children's folder: empty, so that ``-m`` finds the package of PYTHONPATH only.
_CWD = tempfile.mkdtemp(prefix="bench-startup-")


def _commands(pythonpath: str | None) -> list[str]:
    """The command names of a tree's parser (each ``cmd_*.py``'s NAME)."""
    code = (
        "from ascend_p2p_lab.cli.parser import COMMANDS\nprint(' '.join(c.NAME for c in COMMANDS))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env(pythonpath),
        capture_output=True,
        text=True,
        cwd=_CWD,
    )
    if done.returncode == 0:
        return done.stdout.split()
    # an older tree (no parser.COMMANDS): the choices its --help lists, {a,b,...}
    shown = subprocess.run(
        [sys.executable, "-m", "ascend_p2p_lab.cli", "--help"],
        env=env(pythonpath),
        capture_output=True,
        text=True,
        cwd=_CWD,
    )
    found = re.search(r"\{([\w,-]+)\}", shown.stdout)
    return found.group(1).split(",") if found else []


def _wall(argv: list[str], pythonpath: str | None) -> float:
    t = time.perf_counter()
    subprocess.run(argv, env=env(pythonpath), stdout=subprocess.DEVNULL, check=True, cwd=_CWD)
    return time.perf_counter() - t


def _help_times(pythonpath: str | None, repeats: int) -> dict[str, Any]:
    """Median wall of each help and of ``import argparse``, interleaved round by round."""
    helps = [[], *[[name] for name in _commands(pythonpath)]]
    times: dict[str, list[float]] = {"argparse": []}
    for _ in range(repeats):
        times["argparse"].append(_wall([sys.executable, "-c", "import argparse"], pythonpath))
        for h in helps:
            key = " ".join([*h, "--help"])
            cmd = [sys.executable, "-m", "ascend_p2p_lab.cli", *h, "--help"]
            times.setdefault(key, []).append(_wall(cmd, pythonpath))
    med = {k: statistics.median(v) for k, v in times.items()}
    base = med.pop("argparse")
    slowest = max((k for k in med if k != "--help"), key=med.__getitem__, default="--help")
    return {
        "argparse_s": base,
        "help_s": med["--help"],
        "ratio": med["--help"] / base,
        "slowest": slowest,
        "slowest_ratio": med[slowest] / base,
        "helps_s": med,
    }


def measure_cli_start(repeats: int, baseline: str | None) -> dict[str, Any]:
    """``--help`` and every command's ``--help`` over ``import argparse``: this tree, and
    the baseline's when given."""
    out: dict[str, Any] = {"after": _help_times(None, max(repeats, 5))}
    if baseline:
        out["before"] = _help_times(baseline, max(repeats, 5))
    return out


if __name__ == "__main__":  # a quick look: python benchmarks/startup.py
    import json

    print(json.dumps(measure_cli_start(3, None), indent=1))
