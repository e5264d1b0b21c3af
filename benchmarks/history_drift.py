"""Thirty simulated days of one A2 server in a history store, and ``history --drift``.

    python benchmarks/history_drift.py [--seeds 10] [--days 30] [--devices all]

Each day (seed ``1000 * seed + day``), ``check`` of a simulated ``atlas800t-a2`` against
the preset's model x 0.9, its items appended to a history store (SQLite) dated that
day. With drift, the directed link 2 -> 5 loses 1 % of its rate a day from day
``DRIFT_START`` on (a ``degrade`` fault of factor ``1 - 0.01 (d - DRIFT_START + 1)``),
so it is 10 % below its baseline on day ``DRIFT_START + 9``. Each day the drift rule
(``history.drift``, defaults) runs on the store so far. Asserted, per seed:

- with drift: an item of link 2 -> 5 is named within 10 days of the day the link is 10 %
  below its baseline, and nothing that is not on 2 -> 5 (or a fan-out through device 2
  or 5) is named;
- without drift: nothing is named on any day.

Prints a Markdown section for ``benchmarks/results.md``; writes only a scratch store.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.check import criteria_from_preset, run_check
from ascend_p2p_lab.history import HistoryStore, check_records, drifting, trends

PRESET = "atlas800t-a2"
LINK = (2, 5)
#: the first day the link is below its healthy rate (days count from 0)
DRIFT_START = 10
#: how long after crossing 10 % the rule must name the link, days
WITHIN_DAYS = 10


def factor(day: int, drift: bool) -> float:
    """The link's rate factor on ``day``: 1 %/day from DRIFT_START, 1.0 without drift."""
    return 1.0 - 0.01 * (day - DRIFT_START + 1) if drift and day >= DRIFT_START else 1.0


def crossing_day() -> int:
    """The first day the drifting link is at least 10 % below its baseline."""
    return next(d for d in range(100) if factor(d, True) <= 0.9 + 1e-9)


def on_link(item: str) -> bool:
    """Whether an item is the link's own, or a fan-out that crosses it."""
    a, b = LINK
    return f" {a}->{b}" in item or bool(
        re.search(rf"(one_to_all device {a}|all_to_one device {b})$", item)
    )


def pull_only(criteria: Any) -> Any:
    """The criteria cut to the pull bandwidth items (what the quick test checks)."""
    t = criteria.table
    keep = t["kind"].eq("bandwidth") & t["initiator"].eq("dst")
    return dataclasses.replace(criteria, table=t[keep].reset_index(drop=True))


def simulate(
    seed: int,
    drift: bool,
    days: int,
    store: HistoryStore,
    devices: tuple[int, ...] | None,
    quick: bool = False,
) -> dict[int, list[str]]:
    """The days, each: check, append, the drifting items named so far (``quick``: the
    pull bandwidth items only)."""
    criteria = criteria_from_preset(PRESET, devices=devices)
    if quick:
        criteria = pull_only(criteria)
    named: dict[int, list[str]] = {}
    for day in range(days):
        f = factor(day, drift)
        faults = [] if f == 1.0 else [{"kind": "degrade", "link": list(LINK), "factor": f}]
        with open_runtime(
            "sim", PRESET, seed=1000 * seed + day, faults=faults, announce=False
        ) as rt:
            result = run_check(rt, criteria, devices)
        when = (pd.Timestamp("2026-01-01", tz="UTC") + pd.Timedelta(days=day)).isoformat()
        store.append(
            check_records(result.items),
            run_id=f"s{seed}-d{day}",
            command="check",
            host="a2-01",
            model=PRESET,
            time=when,
        )
        named[day] = sorted(drifting(trends(store.read()))["item"])
    return named


def judge(named: dict[int, list[str]], drift: bool) -> tuple[bool, int | None, list[str]]:
    """(met, the first day the link is named, items named that are not the link's)."""
    first = next((d for d, items in sorted(named.items()) if any(map(on_link, items))), None)
    wrong = sorted({i for items in named.values() for i in items if not (drift and on_link(i))})
    if not drift:
        return not wrong and first is None, first, wrong
    met = first is not None and first - crossing_day() <= WITHIN_DAYS and not wrong
    return met, first, wrong


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--days", type=int, default=30)
    p.add_argument("--devices", default="all", help="all, or e.g. 0,2,5")
    args = p.parse_args(argv)
    devices = None if args.devices == "all" else tuple(int(d) for d in args.devices.split(","))
    start = time.perf_counter()
    lines, ok = [], True
    with tempfile.TemporaryDirectory() as scratch:
        for drift in (True, False):
            for seed in range(args.seeds):
                store = HistoryStore(Path(scratch) / f"{drift}-{seed}.db")
                named = simulate(seed, drift, args.days, store, devices)
                met, first, wrong = judge(named, drift)
                ok &= met
                print(
                    f"drift={drift} seed={seed} first={first} wrong={wrong} met={met} "
                    f"{time.perf_counter() - start:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
                lines.append(
                    f"| {'1 %/day' if drift else 'none'} | {seed} | "
                    f"{'-' if first is None else first} | {', '.join(wrong) or '-'} | "
                    f"{'met' if met else 'NOT met'} |"
                )
    wall = time.perf_counter() - start
    where = "all devices" if devices is None else f"devices {args.devices}"
    print(
        f"## history --drift: {args.days} simulated days of one A2 ({where}), {args.seeds} seeds\n"
    )
    print(
        f"Link {LINK[0]} -> {LINK[1]} drifts 1 %/day from day {DRIFT_START}; 10 % below "
        f"its baseline on day {crossing_day()}; must be named by day "
        f"{crossing_day() + WITHIN_DAYS}. Wall {wall:.0f} s.\n"
    )
    print("| drift | seed | first day named | other items named | |")
    print("|---|---|---|---|---|")
    print("\n".join(lines))
    print(f"\n**{'met' if ok else 'NOT met'}**")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
