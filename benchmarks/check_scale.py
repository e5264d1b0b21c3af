"""Scale of the fleet analysis and the check summaries: 1,024 hosts in <= 10 s, <= 2 GiB.

    python benchmarks/check_scale.py [--hosts 1024] [--degraded 8] [--seed 0]

Runs ONE default sweep of a simulated ``atlas800t-a2`` (``sweep()``'s defaults: 4 KiB to
1 GiB, 56 ordered pairs, unidirectional pull, peer on, 5 samples: 5,320 rows) and makes
each synthetic host's rows from it by resampling: every row's sample is drawn with
replacement from the 5 samples of its point (bandwidth, elapsed time, host-bound flag
and enqueue time move together), so hosts differ as repeated runs do. ``--degraded``
hosts get one directed link (host k: link ``k mod 8 -> (k + 3) mod 8``) at half speed.

Then, timed separately (wall clock and CPU of this process):

- the fleet analysis (``fleet.analysis``): link fractions against each class's fleet
  median, the host table (points lost, host-bound share per host), the outliers;
- the check summaries (``check.fleetitems.fleet_items``): every host judged against the
  criteria of the preset's model x 0.9 (one row per host and item), the failing items
  per host.

Both must find exactly the degraded links (asserted). Peak memory is the process's
maximum resident set size (``ru_maxrss``: the synthetic rows included). The machine may
be shared: the load average before and after is printed. Prints a Markdown section for
``benchmarks/results.md``; writes nothing.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this tree's package, not whichever one is installed

TARGET_S = 10.0
TARGET_BYTES = 2 << 30
PRESET = "atlas800t-a2"
DEVICES = 8
SLOW = 0.5


def one_run(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The default sweep of the simulated preset, and its probe table."""
    from ascend_p2p_lab import open_runtime
    from ascend_p2p_lab.measure import probe, sweep

    with open_runtime("sim", preset=PRESET, seed=seed) as rt:
        return sweep(rt, progress=False).frame(), probe(rt).frame()


def degraded_link(k: int) -> tuple[int, int]:
    """The directed link degraded on the k-th degraded host."""
    return k % DEVICES, (k + 3) % DEVICES


def synthesize(
    base: pd.DataFrame, hosts: int, degraded: int, seed: int
) -> tuple[pd.DataFrame, dict[str, tuple[int, int]]]:
    """``hosts`` hosts' rows, each resampled from ``base`` (see the module docstring)."""
    rng = np.random.default_rng(seed)
    base = base.reset_index(drop=True)
    keys = ["src", "dst", "size_bytes", "pattern", "direction", "peer", "path"]
    point = base.groupby(keys, sort=False, dropna=False).ngroup().to_numpy()
    order = np.argsort(point, kind="stable")
    starts = np.searchsorted(point[order], point)  # each row's point's first row in order
    counts = np.bincount(point)[point]
    base = base.astype(
        {
            c: "category"
            for c in base.columns
            if base[c].dtype == object or str(base[c].dtype) in ("string", "str")
        }
    )
    n = len(base)
    pick = starts + (rng.random((hosts, n)) * counts).astype(np.int64)
    source = order[pick].ravel()  # the base row each synthetic row copies its sample from
    frame = base.iloc[np.tile(np.arange(n), hosts)].reset_index(drop=True)
    for col in ("bandwidth_GBps", "elapsed_us", "host_bound", "host_enqueue_us"):
        frame[col] = base[col].to_numpy()[source]
    names = [f"host-{i:04d}" for i in range(hosts)]
    frame["host"] = pd.Categorical.from_codes(np.repeat(np.arange(hosts), n), names)
    bad: dict[str, tuple[int, int]] = {}
    for k in range(degraded):
        name = names[(k * hosts) // max(degraded, 1)]
        src, dst = degraded_link(k)
        bad[name] = (src, dst)
        hit = ((frame["host"] == name) & (frame["src"] == src) & (frame["dst"] == dst)).to_numpy()
        frame.loc[hit, "bandwidth_GBps"] *= SLOW
        frame.loc[hit, "elapsed_us"] /= SLOW
    return frame, bad


def _timed(fn: Any) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def analyse(frame: pd.DataFrame, probe: pd.DataFrame, criteria: Any) -> dict[str, Any]:
    """Time the fleet analysis and the check summaries; their findings."""
    from ascend_p2p_lab.check.fleetitems import failing_by_host, fleet_items
    from ascend_p2p_lab.fleet.analysis import host_table, link_fractions, outliers

    def fleet() -> pd.DataFrame:
        fractions = link_fractions(frame)
        statuses = [{"host": h, "status": "ok"} for h in frame["host"].cat.categories]
        hosts = host_table(frame, fractions, statuses)
        assert len(hosts) == len(statuses)
        return outliers(fractions)

    def check() -> tuple[pd.DataFrame, dict[str, list[str]]]:
        probes = {h: probe for h in frame["host"].cat.categories}
        items = fleet_items(criteria, frame, probes)
        return items, failing_by_host(items)

    found, fleet_s, fleet_cpu = _timed(fleet)
    (items, failing), check_s, check_cpu = _timed(check)
    return {
        "outliers": found,
        "items": items,
        "failing": failing,
        "fleet_s": fleet_s,
        "fleet_cpu_s": fleet_cpu,
        "check_s": check_s,
        "check_cpu_s": check_cpu,
    }


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=1024)
    parser.add_argument("--degraded", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from ascend_p2p_lab.check import criteria_from_preset

    load_before = _load()
    (base, probe), run_s, _ = _timed(lambda: one_run(args.seed))
    criteria = criteria_from_preset(PRESET, fraction=0.9)
    (frame, bad), synth_s, _ = _timed(
        lambda: synthesize(base, args.hosts, args.degraded, args.seed)
    )
    result = analyse(frame, probe, criteria)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    found = {(r.host, r.src, r.dst) for r in result["outliers"].itertuples()}
    assert found == {(h, s, d) for h, (s, d) in bad.items()}, found
    assert set(result["failing"]) == set(bad), result["failing"]
    for host, (s, d) in bad.items():
        assert f"bandwidth uni pull {s}->{d}" in result["failing"][host]
    total = result["fleet_s"] + result["check_s"]
    ok = total <= TARGET_S and peak <= TARGET_BYTES
    items = result["items"]
    print(f"""## Check and fleet analysis at scale (benchmarks/check_scale.py)

{_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC, Python {platform.python_version()},
pandas {pd.__version__}, {os.cpu_count()} cores; load average before {load_before}, after
{_load()} (the machine is shared).

- input: {args.hosts} synthetic hosts x {len(base):,} rows (one default {PRESET} sweep,
  {run_s:.1f} s, resampled per point; {synth_s:.1f} s to make) = {len(frame):,} rows;
  {len(bad)} hosts with one link at {SLOW}
- fleet analysis (link fractions, host table, outliers): {result["fleet_s"]:.2f} s wall,
  {result["fleet_cpu_s"]:.2f} s CPU; {len(result["outliers"])} outliers, the degraded links
- check summaries (criteria of the preset's model x 0.9): {result["check_s"]:.2f} s wall,
  {result["check_cpu_s"]:.2f} s CPU; {len(items):,} items ({args.hosts} hosts x
  {len(items) // max(args.hosts, 1)}), {int((items["status"] == "FAIL").sum())} failing, on the
  degraded hosts only
- together {total:.2f} s (target {TARGET_S:.0f} s); peak RSS {peak / 2**30:.2f} GiB
  (target {TARGET_BYTES / 2**30:.0f} GiB, the synthetic rows included):
  **{"met" if ok else "NOT met"}**
""")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
