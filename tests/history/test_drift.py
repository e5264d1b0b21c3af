"""ascend_p2p_lab.history.drift: the baseline band and the drift rule."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.check import criteria_from_preset, run_check
from ascend_p2p_lab.history import DriftRule, HistoryStore, check_records, drifting, trends


def _records(values: dict[str, list[float]], verdicts: dict[str, list[str]] | None = None):
    rows = []
    for item, vs in values.items():
        for day, v in enumerate(vs):
            verdict = (verdicts or {}).get(item, ["PASS"] * len(vs))[day]
            rows.append(
                {
                    "host": "h",
                    "item": item,
                    "time": f"2026-01-{day + 1:02d}",
                    "value": v,
                    "verdict": verdict,
                }
            )
    return pd.DataFrame(rows)


def test_the_band_and_the_recent_median() -> None:
    flat = [20.0, 20.2, 19.8, 20.1, 19.9, 20.0, 20.3, 19.7, 20.0, 20.0]
    recs = _records(
        {
            "down": [*flat, 20.0, 18.8, 18.7, 18.6],  # 7 % down: below the 5 % band
            "dip": [*flat, 20.0, 20.1, 12.0, 20.0],  # one bad run: the median of 3 keeps it
            "up": [*flat, 23.0, 23.0, 23.0],
            "few": [20.0, 10.0, 10.0, 10.0],  # no baseline: fewer than 5 values
        }
    )
    t = trends(recs).set_index("item")
    assert t.loc["down", "baseline"]["median"] == 20.0
    assert t.loc["down", "baseline"]["low"] == pytest.approx(19.0)
    assert t.loc["down", "drift"]["direction"] == "down"
    assert t.loc["down", "drift"]["since"] == "2026-01-12"
    assert t.loc["dip", "drift"] is None
    assert t.loc["up", "drift"]["direction"] == "up"
    assert t.loc["few", "baseline"] is None and t.loc["few", "drift"] is None
    assert sorted(drifting(trends(recs))["item"]) == ["down", "up"]


def test_a_failed_run_is_left_out_of_the_baseline_and_noise_widens_the_band() -> None:
    vs = [10.0, 20.0, 20.0, 20.0, 20.0, 20.0, 20.0, 20.0]
    verdicts = ["FAIL", *["PASS"] * 7]
    t = trends(_records({"x": vs}, {"x": verdicts}), DriftRule(baseline=5)).iloc[0]
    assert t["baseline"]["median"] == 20.0 and t["baseline"]["from"] == "2026-01-02"
    noisy = [20.0, 18.0, 22.0, 19.0, 21.0, 20.0, 17.0, 23.0, 20.0, 20.0]
    base = trends(_records({"n": noisy})).iloc[0]["baseline"]
    assert base["high"] - base["median"] > 0.05 * 20.0  # wider than the 5 % floor


#: the devices of the quick test (the benchmark's --devices 2,5)
DEVICES = (2, 5)


def _bench():
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "history_drift.py"
    spec = importlib.util.spec_from_file_location("history_drift", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def _day(bench, seed: int, day: int, drift: bool, criteria, stores) -> list[str]:
    """One day of ``bench.simulate`` (its check, dated, appended to each store), and the
    items the drift rule names in the (first) store so far."""
    f = bench.factor(day, drift)
    faults = [] if f == 1.0 else [{"kind": "degrade", "link": list(bench.LINK), "factor": f}]
    with open_runtime(
        "sim", bench.PRESET, seed=1000 * seed + day, faults=faults, announce=False
    ) as rt:
        result = run_check(rt, criteria, DEVICES)
    when = (pd.Timestamp("2026-01-01", tz="UTC") + pd.Timedelta(days=day)).isoformat()
    for store in stores:
        store.append(
            check_records(result.items),
            run_id=f"s{seed}-d{day}",
            command="check",
            host="a2-01",
            model=bench.PRESET,
            time=when,
        )
    return sorted(drifting(trends(stores[0].read()))["item"])


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_thirty_days_drift_is_named_in_time_and_steady_days_name_nothing(seed, tmp_path):
    """benchmarks/history_drift.py's days, quick (devices 2 and 5, pull items): 30 days
    with drift and 30 without, on seed 0 (seed 1 too under ``-m slow``: ~8 s a seed; the
    benchmark runs ten seeds on all devices). The days before the drift starts are the same check
    with and without it (same seed, no fault), so they are checked once and appended to
    both stores: 50 checks per seed instead of 60."""
    bench = _bench()
    criteria = bench.pull_only(criteria_from_preset(bench.PRESET, devices=DEVICES))
    stores = {d: HistoryStore(tmp_path / f"{d}.db") for d in (True, False)}
    named = {True: {}, False: {}}
    for day in range(bench.DRIFT_START):  # no fault yet: one check for both
        assert bench.factor(day, True) == 1.0
        named[True][day] = named[False][day] = _day(
            bench, seed, day, False, criteria, [stores[True], stores[False]]
        )
    for drift in (True, False):
        for day in range(bench.DRIFT_START, 30):
            named[drift][day] = _day(bench, seed, day, drift, criteria, [stores[drift]])
        met, first, wrong = bench.judge(named[drift], drift)
        assert met, (drift, first, wrong)
        if drift:
            assert bench.crossing_day() - 5 <= first <= bench.crossing_day() + 10
            assert all(bench.on_link(i) for i in named[True][29])


def test_of_run_trends_the_runs_own_items_on_its_own_host_and_marks_it() -> None:
    """Host h's item x over ten days and run r10's value on day 11; host g's x at 99 (of
    another run) and h's y (which r10 did not record) stay out; the mark is r10's time."""
    from ascend_p2p_lab.history import of_run

    recs = _records({"x": [20.0] * 10 + [12.0], "y": [5.0] * 11}).assign(run_id="old")
    recs.loc[recs["time"].eq("2026-01-11") & recs["item"].eq("x"), "run_id"] = "r10"
    other = pd.DataFrame(
        [{"host": "g", "item": "x", "time": "2026-01-11", "value": 99.0, "run_id": "r9"}]
    )
    t = of_run(pd.concat([recs, other], ignore_index=True), "r10")
    assert list(zip(t["host"], t["item"], t["mark"])) == [("h", "x", "2026-01-11")]
    h = t.iloc[0]
    assert [v["value"] for v in h["values"]] == [20.0] * 10 + [12.0]
    assert h["baseline"]["median"] == 20.0
    only = of_run(pd.concat([recs, other], ignore_index=True), "r10", item="y")
    assert only.empty and list(only.columns)[-1] == "mark"
