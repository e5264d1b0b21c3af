"""The collectives benchmark: the five operations at eight sizes on the simulated A2 (8
ranks) and A3 (16 ranks), each op and size one collective test of the one executor, in a
fresh process; wall and CPU time, and how close each op came to its prediction.

    python benchmarks/collectives.py        # prints one JSON line
    python benchmarks/run.py --only collectives

Each point is calibrated once (one untimed run, which also sizes the gate) and sampled
once (``samples=1``), with its bytes verified; the ops and sizes of a preset are spread
over two forked processes (``sweep(workers=2)``: the machine's two cores).
"""

from __future__ import annotations

import json
import statistics
import sys
from typing import Any

from harness import ROOT, med, run_child

OPS = "all_reduce,all_gather,reduce_scatter,all_to_all,broadcast"
SIZES = "1KiB,8KiB,64KiB,512KiB,4MiB,16MiB,64MiB,256MiB"
PRESETS = ("atlas800t-a2", "atlas800t-a3")
OPTIONS = {"samples": 1, "warmup": 1, "max_copies": 1, "progress": False, "workers": 2}

CHILD = r"""
import json, os, sys, time
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.runtime import open_runtime
ops, sizes, presets, options = sys.argv[1], sys.argv[2], sys.argv[3].split(","), \
    json.loads(sys.argv[4])
out = {}
for preset in presets:
    with open_runtime("sim", preset=preset) as rt:
        w, c, kids = time.perf_counter(), time.process_time(), os.times()
        run = sweep(rt, operations=ops, sizes=sizes, **options)
        after = os.times()
        wall = time.perf_counter() - w
        cpu = (time.process_time() - c) + (after.children_user - kids.children_user) \
            + (after.children_system - kids.children_system)
    op = run.samples[run.samples["phase"].isna()]
    ratio = (op["busbw_GBps"] / op["predicted_busbw_GBps"]).dropna()
    out[preset] = {"wall_s": wall, "cpu_s": cpu, "points": int(len(op)),
                   "verified": bool(op["verified"].all()),
                   "errors": int(op["error"].notna().sum()),
                   "ratio_min": float(ratio.min()), "ratio_max": float(ratio.max()),
                   "host_bound": int(op["host_bound"].fillna(False).sum())}
out["wall_s"] = sum(out[p]["wall_s"] for p in presets)
print(json.dumps(out))
"""


def measure_collectives(repeats: int = 1) -> dict[str, Any]:
    """The benchmark, ``repeats`` times in fresh processes: the median wall time and the
    last run's figures per preset."""
    runs = []
    for _ in range(max(1, repeats)):
        report, _rss = run_child(CHILD, [OPS, SIZES, ",".join(PRESETS), json.dumps(OPTIONS)])
        runs.append(report)
    last = runs[-1]
    return {
        "wall_s": med(runs, "wall_s"),
        "cpu_s": statistics.median(sum(r[p]["cpu_s"] for p in PRESETS) for r in runs),
        "presets": {p: last[p] for p in PRESETS},
        "ops": OPS,
        "sizes": SIZES,
        "options": OPTIONS,
        "runs": runs,
    }


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    print(json.dumps(measure_collectives(int(sys.argv[1]) if len(sys.argv) > 1 else 1)))
