"""The sweep, harness-overhead, import and notebook measurements (the test suite:
:mod:`suite`).

Each returns a dict of figures (seconds, MiB, ratios) that :mod:`writeup` puts in
``results.md``; the sweeps run through :func:`harness.alternate`, so a ``--baseline``
gives a before/after pair.
"""

from __future__ import annotations

import glob
import json
import re
import statistics
import subprocess
import sys
import time
from typing import Any

from harness import ROOT, alternate, env, med, run_child

SWEEP_ARGS = dict(sizes="4KiB:1GiB", direction="both", samples=5, progress=False)

# The child that runs one sweep. It reports its own figures as one JSON line.
SWEEP_CHILD = r"""
import json, resource, sys, time
from ascend_p2p_lab.measure.sweep import sweep
from ascend_p2p_lab.runtime import open_runtime
preset, kwargs = sys.argv[1], json.loads(sys.argv[2])
with open_runtime("sim", preset=preset) as rt:
    w, c = time.perf_counter(), time.process_time()
    frame = sweep(rt, **kwargs)
    wall, cpu = time.perf_counter() - w, time.process_time() - c
    sim = getattr(rt.acl, "simulator", None) or rt._sim  # (a baseline before acl.simulator)
    copies = sim.call_counts.get("rt.memcpy_async", 0)
print(json.dumps({
    "wall_s": wall, "cpu_s": cpu, "rows": len(frame), "copies": copies,
    "pairs": int(frame[["src", "dst"]].drop_duplicates().shape[0]),
    "errors": int(frame["error"].notna().sum()),
    "self_maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
}))
"""

IMPORT_CHILD = r"""
import json, sys, time
t = time.perf_counter_ns()
import {module}
t = time.perf_counter_ns() - t
print(json.dumps({{"ns": t, "loaded": [m for m in ("matplotlib", "ipywidgets", "pandas")
                                        if m in sys.modules]}}))
"""


def _sweep_once(preset: str, pythonpath: str | None) -> dict[str, Any]:
    report, maxrss = run_child(SWEEP_CHILD, [preset, json.dumps(SWEEP_ARGS)], pythonpath)
    report["maxrss_mib"] = (maxrss if maxrss is not None else report["self_maxrss_kib"]) / 1024
    return report


def _summary(preset: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    walls = [r["wall_s"] for r in runs]
    return {
        "preset": preset,
        "runs": runs,
        "wall_s": statistics.median(walls),
        "wall_min_s": min(walls),
        "wall_max_s": max(walls),
        "cpu_s": med(runs, "cpu_s"),
        "maxrss_mib": max(r["maxrss_mib"] for r in runs),
        "copies": runs[0]["copies"],
        "rows": runs[0]["rows"],
        "pairs": runs[0]["pairs"],
    }


def measure_sweep(preset: str, repeats: int, baseline: str | None) -> dict[str, Any]:
    """The full sweep of a preset in fresh processes; with a baseline, alternately."""
    pair = alternate(lambda path: _sweep_once(preset, path), repeats, baseline)
    out = _summary(preset, pair["after"])
    if pair["before"]:
        out["before"] = _summary(preset, pair["before"])
        out["ratio"] = pair["ratio"]
    return out


def measure_overhead(copies: int = 20_000, rounds: int = 15) -> dict[str, Any]:
    """Wall ns per copy: Runtime.enqueue_copies vs a bare memcpy_async loop, alternating."""
    sys.path.insert(0, str(ROOT))
    from ascend_p2p_lab.runtime import open_runtime

    with open_runtime("sim", preset="atlas800t-a2") as rt:
        src, dst = rt.device_buffer(0, 1 << 20), rt.device_buffer(1, 1 << 20)
        with rt.peer_links([(0, 1), (1, 0)]):
            stream = rt.stream(0)
            rt.use(0)
            memcpy_async = rt.acl.rt.memcpy_async
            a, b, c, n, k, h = dst.ptr, dst.size, src.ptr, 4096, 3, stream.handle
            clock = time.perf_counter_ns
            rt.enqueue_copies(dst, src, n, stream, 1000)  # warm: plans, caches
            stream.synchronize()
            bare, loop = [], []
            for _ in range(rounds):
                t = clock()
                for _ in range(copies):
                    memcpy_async(a, b, c, n, k, h)
                bare.append((clock() - t) / copies)
                stream.synchronize()
                t = clock()
                rt.enqueue_copies(dst, src, n, stream, copies)
                loop.append((clock() - t) / copies)
                stream.synchronize()
            stream.close()
        src.close()
        dst.close()
    ratios = [x / y for x, y in zip(loop, bare)]
    return {
        "copies": copies,
        "rounds": rounds,
        "bare_ns": statistics.median(bare),
        "loop_ns": statistics.median(loop),
        "bare_min_ns": min(bare),
        "loop_min_ns": min(loop),
        "ratio": statistics.median(ratios),
        "ratio_of_minima": min(loop) / min(bare),
    }


def measure_import(repeats: int = 9) -> dict[str, Any]:
    """``import ascend_p2p_lab`` over ``import pandas`` in fresh interpreters (median)."""
    times: dict[str, list[float]] = {"ascend_p2p_lab": [], "pandas": []}
    loaded: set[str] = set()
    for module in times:  # warm-up: byte-compile, fill the OS file cache
        run_child(IMPORT_CHILD.format(module=module), [])
    for _ in range(repeats):
        for module in times:  # interleaved, so drift hits both
            report, _ = run_child(IMPORT_CHILD.format(module=module), [])
            times[module].append(report["ns"] / 1e6)
            if module == "ascend_p2p_lab":
                loaded.update(report["loaded"])
    lab, pd_ = statistics.median(times["ascend_p2p_lab"]), statistics.median(times["pandas"])
    return {
        "lab_ms": lab,
        "pandas_ms": pd_,
        "ratio": lab / pd_,
        "repeats": repeats,
        "loaded": sorted(loaded),
    }


def _pytest(args: list[str]) -> dict[str, Any]:
    """Run ``python -m pytest ARGS`` in this tree; wall time, exit code, summary line."""
    cmd = [sys.executable, "-m", "pytest", *args]
    t = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env())
    wall = time.perf_counter() - t
    lines = [ln for ln in proc.stdout.strip().splitlines() if ln.strip()]
    summary = lines[-1].strip("= ") if lines else ""
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|skipped|errors?)", summary)}
    return {
        "status": "measured",
        "wall_s": wall,
        "returncode": proc.returncode,
        "summary": summary,
        "counts": counts,
        "command": "python -m pytest " + " ".join(args),
    }


def measure_notebooks() -> dict[str, Any]:
    """The notebooks under nbval (the project's addopts: two workers)."""
    books = sorted(glob.glob(str(ROOT / "notebooks" / "*.ipynb")))
    if not books:
        return {"status": "not yet measured", "reason": "no notebooks/*.ipynb"}
    return {**_pytest(["notebooks/", "-q"]), "notebooks": len(books)}
