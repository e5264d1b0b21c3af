"""Rows and figures of this tree against another, to the bit: the demo, a sweep of every
built-in pattern, a test file and the collectives, each run by the command line in a fresh
process of each tree (``PYTHONPATH``), then every ``samples.parquet`` compared on all its
columns but ``run_id`` and ``host`` (the only ones that differ between two runs of the
same sweep: the samples hold no wall-clock time), and every PNG pixel for pixel.

    python benchmarks/same_rows.py --baseline a1665e7       # a commit, or a folder
    python benchmarks/same_rows.py --baseline /tmp/before --only demo,patterns

Exit status 0 when everything is identical, 1 otherwise (each difference printed).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from firstrun import same_figures, same_rows
from harness import ROOT, baseline_tree, env

A2, A3 = "atlas800t-a2", "atlas800t-a3"
EVERY = "pair,latency,local,one_to_all,all_to_one,h2d,d2h,card"
#: name -> the command's arguments (``OUT`` is replaced by its output folder).
RUNS: dict[str, list[str]] = {
    "demo": ["demo", "--out", "OUT", "--no-progress"],
    "patterns": [
        "sweep", "--preset", A2, "--patterns", EVERY, "--direction", "both", "--peer", "both",
        "--sizes", "4KiB:64MiB", "--samples", "2", "--out", "OUT", "--no-progress",
    ],
    "group": [
        "sweep", "--preset", A2, "--patterns", "group", "--groups", "0,1:2,3", "--peer", "both",
        "--sizes", "4KiB:16MiB", "--samples", "2", "--out", "OUT", "--no-progress",
    ],
    "staged_a3": [
        "sweep", "--preset", A3, "--pairs", "0-1,2-9,9-2", "--peer", "off", "--direction",
        "both", "--sizes", "4KiB:1GiB", "--samples", "3", "--out", "OUT", "--no-progress",
    ],
    "host_timing": [
        "sweep", "--preset", A2, "--pairs", "0-1,3-6", "--timing", "host", "--peer", "both",
        "--sizes", "4KiB:64MiB", "--samples", "2", "--out", "OUT", "--no-progress",
    ],
    "testfile": [
        "run", str(ROOT / "examples/tests/three-copies.toml"), "--preset", A2,
        "--out", "OUT", "--no-progress",
    ],
    "collectives": [
        "collectives", "--preset", A2, "--sizes", "1KiB:4MiB", "--samples", "2",
        "--out", "OUT", "--no-progress",
    ],
}  # fmt: skip


def run(tree: str, name: str, out: Path) -> int:
    """One command of :data:`RUNS` in a fresh process importing ``tree``; its exit code."""
    args = [a.replace("OUT", str(out)) for a in RUNS[name]]
    with tempfile.TemporaryDirectory() as cwd:
        proc = subprocess.run(
            [sys.executable, "-m", "ascend_p2p_lab.cli", *args],
            env=env(tree),
            cwd=cwd,
            capture_output=True,
            text=True,
            check=False,
        )
    if proc.returncode not in (0, 1):
        print(proc.stderr[-2000:], file=sys.stderr)
    return proc.returncode


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", required=True, help="a commit of this repository or a tree")
    ap.add_argument("--only", default=",".join(RUNS), help="comma-separated: " + ", ".join(RUNS))
    args = ap.parse_args(argv)
    keep: list[tempfile.TemporaryDirectory] = []
    base, label = baseline_tree(args.baseline, keep)
    bad = 0
    with tempfile.TemporaryDirectory(prefix="same-rows-") as tmp:
        for name in args.only.split(","):
            before, after = Path(tmp, name, "before"), Path(tmp, name, "after")
            codes = (run(base, name, before), run(str(ROOT), name, after))
            rows = same_rows(before, after)
            figures = same_figures(before, after) if any(before.glob("*.png")) else ""
            same = codes[0] == codes[1] and rows.startswith("identical")
            same = same and (not figures or figures.startswith("identical"))
            bad += not same
            print(
                f"{name}: exit {codes[0]}/{codes[1]}, rows {rows}"
                + (f", {figures}" * bool(figures))
            )
    print(f"against {label}: " + ("all identical" if not bad else f"{bad} differ"))
    return 1 if bad else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
