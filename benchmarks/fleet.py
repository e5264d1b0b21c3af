"""Measure the fleet survey against its target: 16 simulated A2 servers in <= 60 s wall.

    python benchmarks/fleet.py

starts a simulated fleet of 16 ``atlas800t-a2`` hosts (a LocalCluster of 16 worker
processes, one thread each), runs ``survey`` with the default sweep (``sweep()``'s own
defaults: 4 KiB to 1 GiB, 56 ordered pairs, unidirectional, peer on, 5 samples), closes
the cluster, and then checks every host's rows against the same host swept alone in this
process with the same seed (all columns but ``run_id`` and ``host``). It writes the
"Fleet survey" section of ``benchmarks/results.md`` (replacing an earlier one, leaving
the rest of the file as ``run.py`` wrote it).

The machine may be shared: the load average at the start and the end is recorded, and
each host's CPU time (the task's thread) next to its wall time, so that a slow run on a
busy machine can be told from a slow program.

Options: ``--hosts N`` (default 16), ``--out FILE``, ``--no-identity`` (skip the solo
sweeps), ``--no-write``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this tree's package, not whichever one is installed
os.environ["PYTHONPATH"] = os.pathsep.join(  # and the workers' too
    [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
)
TARGET_S = 60.0
PRESET = "atlas800t-a2"
BEGIN, END = "<!-- fleet benchmark: begin -->", "<!-- fleet benchmark: end -->"


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return out + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def measure(n: int) -> dict[str, Any]:
    """Start, survey, close; the times and the result."""
    from ascend_p2p_lab.fleet import analyse, simulated_fleet, survey

    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    fleet = simulated_fleet(n, preset=PRESET)
    t1 = time.perf_counter()
    try:
        result = survey(fleet.client, fleet.targets, progress=False)
        t2 = time.perf_counter()
        worker_cpu = sum(fleet.client.run(_process_cpu).values())
    finally:
        fleet.close()
    t3 = time.perf_counter()
    return {
        "start_s": t1 - t0,
        "survey_s": t2 - t1,
        "close_s": t3 - t2,
        "total_s": t3 - t0,
        "worker_cpu_s": worker_cpu,
        "result": result,
        "verdict": analyse(result).verdict,
        "load0": load0,
        "load1": os.getloadavg()[0],
    }


def _process_cpu() -> float:
    """User + system CPU seconds of this process (run on each worker)."""
    times = os.times()
    return times.user + times.system


def identity(result: Any) -> tuple[int, list[str]]:
    """Each host's rows against the host swept alone with its seed: (rows, differing)."""
    import pandas as pd

    from ascend_p2p_lab import open_runtime
    from ascend_p2p_lab.measure import sweep

    differ, rows = [], 0
    drop = ["run_id", "host"]
    for host, r in result.results.items():
        seed = r.meta.get("seed")
        with open_runtime("sim", PRESET, seed=seed) as rt:
            alone = sweep(rt, progress=False)
        rows += len(alone)
        try:
            pd.testing.assert_frame_equal(
                r.frame.drop(columns=drop).reset_index(drop=True),
                alone.drop(columns=drop).reset_index(drop=True),
            )
        except (AssertionError, AttributeError):
            differ.append(host)
    return rows, differ


def section(m: dict[str, Any], ident: tuple[int, list[str]] | None) -> str:
    import pandas as pd

    res = m["result"]
    walls = [r.wall_s for r in res.results.values() if r.wall_s is not None]
    cpus = [r.cpu_s for r in res.results.values() if r.cpu_s is not None]
    rows = sum(len(r.frame) for r in res.results.values() if r.frame is not None)
    ok = m["total_s"] <= TARGET_S
    if ident is None:
        same = "not checked (--no-identity)"
    else:
        same = (
            f"identical for all {len(res.results)} hosts ({ident[0]:,} rows)"
            if not ident[1]
            else f"DIFFERENT for {', '.join(ident[1])}"
        )
    v = m["verdict"]
    return "\n".join(
        [
            BEGIN,
            "## Fleet survey",
            "",
            f"Written by `python benchmarks/fleet.py` on "
            f"{_dt.datetime.now(_dt.timezone.utc).isoformat(timespec='seconds')}, commit "
            f"{_commit()}; see `benchmarks/README.md`.",
            "",
            f"Machine: {_cpu_name()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"pandas {pd.__version__}, distributed {_version('distributed')}. Load average (1 min)"
            f" at start / end: {m['load0']:.2f} / {m['load1']:.2f}.",
            "",
            "| What | Target | Measured | |",
            "|---|---|---|---|",
            f"| {len(res.results)} simulated {PRESET} hosts, default sweep (4 KiB-1 GiB, 56 "
            f"pairs, uni, peer on, 5 samples): start the LocalCluster, survey, close | <= "
            f"{TARGET_S:.0f} s wall | {m['total_s']:.1f} s | {'PASS' if ok else 'FAIL'} |",
            f"| Per-host rows vs the host swept alone with the same seed | identical | {same} | "
            f"{'PASS' if ident is not None and not ident[1] else '-'} |",
            "",
            f"Split: cluster start {m['start_s']:.1f} s ({len(res.results)} worker processes, "
            f"forkserver), survey {m['survey_s']:.1f} s, close {m['close_s']:.1f} s. Per host: "
            f"wall {statistics.median(walls):.1f} s median ({min(walls):.1f}-{max(walls):.1f}), "
            f"CPU of the task {statistics.median(cpus):.2f} s median, {sum(cpus):.1f} s in all "
            f"(on {os.cpu_count()} cores the survey cannot take less than "
            f"{sum(cpus) / (os.cpu_count() or 1):.1f} s); the {len(res.results)} worker "
            f"processes used {m['worker_cpu_s']:.1f} s of CPU in all, start-up and Dask's own "
            f"work included. Rows gathered: {rows:,}. Verdict: "
            f"{len(v['outliers'])} outliers, {len(v['failed_hosts'])} failed hosts, exit "
            f"{v['exit_status']}.",
            END,
            "",
        ]
    )


def _version(name: str) -> str:
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:
        return "?"


def write(text: str, out: Path) -> None:
    old = out.read_text() if out.exists() else "# Benchmark results\n"
    if BEGIN in old and END in old:
        head, _, rest = old.partition(BEGIN)
        _, _, tail = rest.partition(END)
        new = head + text.rstrip("\n") + tail
    else:
        new = old.rstrip("\n") + "\n\n" + text
    out.write_text(new)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hosts", type=int, default=16)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results.md"))
    ap.add_argument("--no-identity", action="store_true")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    m = measure(args.hosts)
    print(
        f"total {m['total_s']:.1f} s (start {m['start_s']:.1f}, survey {m['survey_s']:.1f},"
        f" close {m['close_s']:.1f}); load {m['load0']:.2f} -> {m['load1']:.2f}",
        flush=True,
    )
    ident = None if args.no_identity else identity(m["result"])
    text = section(m, ident)
    print(text)
    if not args.no_write:
        write(text, Path(args.out))
    return 0 if m["total_s"] <= TARGET_S and (ident is None or not ident[1]) else 1


if __name__ == "__main__":
    sys.exit(main())
