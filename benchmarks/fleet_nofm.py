"""n-of-m on a simulated fleet: transient dips forgiven, truly slow links still failed.

    python benchmarks/fleet_nofm.py [--hosts 64] [--seeds 50] [--workers 2] [--full]
                                    [--out FILE]

Per seed, 64 simulated ``atlas800t-a2`` hosts (host ``i`` runs seed ``1000 s + i``) are
checked as ``fleet --criteria FILE --attempts 3 --fail-at 2`` does it
(``fleet.task.survey_host`` with ``check.attempts.host_attempts``, the items judged on
the client with ``check.fleetitems``), on one local Dask cluster of ``--workers``
processes kept for all the seeds (the tasks are not pinned: the hosts are simulated).

The fleet's check plan (the criteria file a fleet would give ``--criteria``): the
preset's model x 0.9 cut by ``check.preflight.preflight``, i.e. the link items: one
bandwidth item per ordered pair (the one-way pull, 56 on an A2) at 64 MiB, the topology
items (peer access, link class) and the verification of the bytes copied; 2 samples per
point after 1 warm-up (``--samples 2 --warmup 1``). ``--full`` takes the whole model
instead (both directions, both initiators, host copies, fan-outs; 3 samples, 2 warm-ups:
about 8 times the CPU).

Every host carries a transient fault: each link dips to 0.6 of its rate in 5 % of the
points, in their first pass only (``kind = "transient"``, ``share = 0.05``, ``nth = 1``:
the simulator draws it per point and pass); hosts 7 and 41 also have one truly degraded
link at 0.5 (3 -> 6, and 5 -> 1).

Counted per seed: healthy hosts that FAIL and degraded hosts that FAIL with n-of-m
(2-of-3), and healthy hosts that FAIL with one attempt (the same first pass judged
alone: what ``--attempts 1`` measures, since every draw is seeded). Met when, over the
seeds, no healthy host FAILs with n-of-m and both degraded hosts FAIL in at least 98 %
of the seeds (49 of 50). Prints a Markdown section (``--out``: also writes it).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

from ascend_p2p_lab.check import criteria_from_preset
from ascend_p2p_lab.check.attempts import host_attempts, merge_attempts
from ascend_p2p_lab.check.criteria import Criteria
from ascend_p2p_lab.check.fleetitems import failing_by_host, fleet_items, fleet_options
from ascend_p2p_lab.check.plan import needs_of
from ascend_p2p_lab.check.preflight import preflight
from ascend_p2p_lab.fleet.hosts import HostResult, HostTarget
from ascend_p2p_lab.fleet.task import survey_host
from ascend_p2p_lab.run import Run

PRESET = "atlas800t-a2"
ATTEMPTS, FAIL_AT = 3, 2
TRANSIENT = {"kind": "transient", "factor": 0.6, "share": 0.05, "nth": 1}
DEGRADED = {
    7: {"kind": "degrade", "link": [3, 6], "factor": 0.5},
    41: {"kind": "degrade", "link": [5, 1], "factor": 0.5},
}
#: share of the seeds in which both degraded hosts must FAIL (49 of 50)
CAUGHT_SHARE = 0.98


def plan(full: bool = False) -> tuple[Criteria, dict[str, Any]]:
    """The fleet's criteria and each host's sweep options: the link items (the
    preflight's cut of the model) or, with ``full``, the whole model."""
    model = criteria_from_preset(PRESET)
    if full:
        return model, {**fleet_options(model, "64MiB"), "samples": 3}
    cut = preflight(model)
    sampling = {"samples": cut.samples, "warmup": needs_of(cut).warmup}
    return cut, {**fleet_options(cut, cut.size_bytes), **sampling}


def targets(hosts: int, seed: int) -> list[HostTarget]:
    """The seed's hosts: a transient fault on each, a degraded link on two."""
    return [
        HostTarget(
            f"h{i:02d}",
            backend="sim",
            preset=PRESET,
            seed=1000 * seed + i,
            faults=(TRANSIENT, *([DEGRADED[i]] if i in DEGRADED else [])),
        )
        for i in range(hosts)
    ]


def degraded(hosts: int) -> set[str]:
    """The names of the hosts with a truly degraded link."""
    return {f"h{i:02d}" for i in DEGRADED if i < hosts}


def after(criteria: Criteria, options: dict[str, Any]) -> Any:
    """What each host's task runs after its sweep: n-of-m in its own runtime."""
    return partial(
        host_attempts, criteria=criteria, attempts=ATTEMPTS, fail_at=FAIL_AT, options=options
    )


def verdicts(criteria: Criteria, results: list[HostResult]) -> dict[str, set[str]]:
    """The hosts that FAIL with one attempt (the first pass) and with n-of-m, judged as
    ``fleet --criteria`` judges them."""
    runs = [r.run for r in results if r.run is not None]
    items = fleet_items(criteria, Run.concat(runs), {r.host: r.probe for r in results})
    again = merge_attempts(items, {r.host: r.attempts for r in results})
    failed = {r.host for r in results if r.status == "failed"}
    return {
        "one": set(failing_by_host(items)) | failed,
        "nofm": set(failing_by_host(again)) | failed,
    }


def one_seed(client: Any, hosts: int, seed: int, criteria: Criteria, options: dict) -> dict:
    """One seed's fleet on the cluster: the failing hosts, and the host tasks' CPU."""
    futures = client.map(
        survey_host,
        targets(hosts, seed),
        options=options,
        after=after(criteria, options),
        pure=False,
    )
    results = client.gather(futures)
    return {**verdicts(criteria, results), "cpu_s": sum(r.cpu_s or 0.0 for r in results)}


def met(false_nofm: int, caught: int, seeds: int) -> bool:
    """The measure: no healthy host FAILs with n-of-m, both degraded hosts FAIL in at
    least 98 % of the seeds."""
    return false_nofm == 0 and caught >= math.ceil(CAUGHT_SHARE * seeds)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hosts", type=int, default=64)
    p.add_argument("--seeds", type=int, default=50)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--full", action="store_true", help="the whole model, not the link items")
    p.add_argument("--out", type=Path, default=None, help="also write the section here")
    args = p.parse_args(argv)
    from distributed import Client, LocalCluster

    criteria, options = plan(args.full)
    bad = degraded(args.hosts)
    healthy = args.hosts - len(bad)
    start = time.perf_counter()
    rows, loads, false_nofm, false_one, caught, cpu = [], [os.getloadavg()[0]], 0, 0, 0, 0.0
    with (
        LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
            processes=True,
        ) as cluster,
        Client(cluster) as client,
    ):
        for seed in range(args.seeds):
            t0 = time.perf_counter()
            got = one_seed(client, args.hosts, seed, criteria, options)
            f_nofm, f_one = len(got["nofm"] - bad), len(got["one"] - bad)
            both = bad <= got["nofm"]
            false_nofm, false_one, caught = false_nofm + f_nofm, false_one + f_one, caught + both
            cpu += got["cpu_s"]
            loads.append(os.getloadavg()[0])
            rows.append(
                f"| {seed} | {f_nofm} | {'both' if both else 'NOT both'} | {f_one} of "
                f"{healthy} | {time.perf_counter() - t0:.1f} | {loads[-1]:.2f} |"
            )
            print(rows[-1], f"{time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    wall = time.perf_counter() - start
    ok = met(false_nofm, caught, args.seeds)
    text = section(args, criteria, options, rows, wall, cpu, loads)
    text += (
        f"\nHealthy hosts that FAIL: **{false_nofm} with {FAIL_AT}-of-{ATTEMPTS}**, "
        f"**{false_one} with one attempt** (of {healthy * args.seeds} healthy host checks); "
        f"both degraded hosts FAIL with {FAIL_AT}-of-{ATTEMPTS} in **{caught} of "
        f"{args.seeds}** seeds. **{'Met' if ok else 'NOT met'}.**\n"
    )
    print(text)
    if args.out is not None:
        args.out.write_text(text)
    return 0 if ok else 1


def section(args, criteria, options, rows, wall, cpu, loads) -> str:
    """The Markdown section: the plan, the time and load, a row per seed."""
    from ascend_p2p_lab import __version__

    plan_ = "the whole model" if args.full else "the link items (preflight cut)"
    return "\n".join(
        [
            f"## fleet n-of-m: {args.hosts} simulated A2 hosts, {args.seeds} seeds\n",
            f"Taken {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, package "
            f"{__version__}, {os.cpu_count()} cores shared. Plan: {plan_}, "
            f"criteria `{criteria.name}`; sweep options "
            f"`{options}`. Transient dips: each link at 0.6 in 5 % of the points, first pass "
            f"only; degraded {sorted(degraded(args.hosts))} at 0.5; --attempts {ATTEMPTS} "
            f"--fail-at {FAIL_AT}. {args.workers} Dask workers (one cluster for all seeds).\n",
            f"Wall **{wall:.0f} s** ({wall / max(1, args.seeds):.1f} s per seed), host "
            f"tasks' CPU {cpu:.0f} s; load average (1 min) {min(loads):.2f} to "
            f"{max(loads):.2f}, mean {sum(loads) / len(loads):.2f}.\n",
            "| seed | healthy FAIL (2-of-3) | degraded FAIL (2-of-3) | healthy FAIL (one "
            "attempt) | wall s | load |",
            "|---|---|---|---|---|---|",
            *rows,
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
