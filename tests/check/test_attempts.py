"""ascend_p2p_lab.check.attempts: n-of-m, a failing item measured again before it fails."""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import pandas as pd
import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.check import criteria_from_preset, run_check
from ascend_p2p_lab.check.attempts import (
    check_attempts,
    host_attempts,
    merge_attempts,
    retry_work,
    settle,
)
from ascend_p2p_lab.check.fleetitems import fleet_items, fleet_options
from ascend_p2p_lab.check.plan import Work
from ascend_p2p_lab.fleet.hosts import HostTarget
from ascend_p2p_lab.fleet.task import survey_host
from ascend_p2p_lab.measure import SweepSpec

FIRST = pd.DataFrame(
    {
        "id": ["a", "b", "c", "d", "e"],
        "kind": ["bandwidth", "bandwidth", "latency", "link_class", "aggregate"],
        "status": ["PASS", "FAIL", "FAIL", "FAIL", "FAIL"],
        "measured": [20.0, 10.0, 9.0, None, 5.0],
        "reason": [None, None, None, "reported PIX", None],
    }
)


def _scripted(outcomes: dict[str, list[str]]):
    """``again`` answering each item's attempts from a script; ``calls`` what it saw."""
    calls: list[list[str]] = []

    def again(open_items: pd.DataFrame) -> pd.DataFrame:
        calls.append(list(open_items["id"]))
        rows = [
            {"id": i, "status": outcomes[i].pop(0), "measured": 30.0 + k, "reason": None}
            for k, i in enumerate(open_items["id"])
            if outcomes.get(i)
        ]
        return pd.DataFrame(rows, columns=["id", "status", "measured", "reason"])

    return again, calls


def test_two_of_three_settles_each_item_by_its_own_attempts() -> None:
    # b: fails, then passes twice (PASS); c: fails twice (FAIL); e: not measured again
    again, calls = _scripted({"b": ["PASS", "PASS"], "c": ["FAIL"]})
    out = settle(FIRST, 3, 2, again).set_index("id")
    got = out[["status", "attempts", "failures"]].to_dict("index")
    assert got == {
        "a": {"status": "PASS", "attempts": 1, "failures": 0},
        "b": {"status": "PASS", "attempts": 3, "failures": 1},
        "c": {"status": "FAIL", "attempts": 2, "failures": 2},
        "d": {"status": "FAIL", "attempts": 1, "failures": 1},  # a fact: judged once
        "e": {"status": "FAIL", "attempts": 2, "failures": 2},
    }
    assert calls == [["b", "c", "e"], ["b"]]  # only the open items, each time
    assert out.loc["e", "reason"] == "not measured again; 2 of 2 attempts failed"
    assert out.loc["b", "reason"] == "1 of 3 attempts failed"
    assert out.loc["b", "measured"] == 30.0 and out.loc["a", "measured"] == 20.0
    assert out.loc["d", "reason"] == "reported PIX"


def test_one_pass_measures_nothing_again() -> None:
    again, calls = _scripted({"b": ["PASS"]})
    out = settle(FIRST, 1, 1, again)
    assert calls == [] and out["status"].tolist() == FIRST["status"].tolist()
    assert out["attempts"].tolist() == [1] * 5 and out["failures"].tolist() == [0, 1, 1, 1, 1]
    again, calls = _scripted({"b": ["PASS", "PASS", "PASS"]})
    assert settle(FIRST, 3, 1, again)["status"].tolist() == FIRST["status"].tolist()
    assert calls == []  # fail at the first failure: nothing to try again


@pytest.mark.parametrize(("n", "k"), [(0, 1), (2, 0), (2, 3)])
def test_a_rule_that_cannot_be_met_is_refused(n: int, k: int) -> None:
    with pytest.raises(ValueError, match="need 1 <= --fail-at <= --attempts"):
        check_attempts(n, k)


def test_the_sweeps_again_are_cut_to_the_open_items() -> None:
    spec = SweepSpec(sizes=(1 << 20,), samples=3)
    work = [
        Work("pair pull", replace(spec, initiator="dst")),
        Work("pair push", replace(spec, initiator="src")),
        Work("latency", replace(spec, patterns=("latency",))),
        Work("host and aggregates", replace(spec, patterns=("h2d", "d2h", "one_to_all"))),
        Work("collectives", replace(spec, patterns=("collective",), operations=("all_reduce",))),
    ]
    open_items = pd.DataFrame(
        {
            "kind": ["bandwidth", "bandwidth", "aggregate"],
            "pattern": ["pair", "pair", "one_to_all"],
            "initiator": ["dst", "dst", None],
            "src": [5, 2, None],
            "dst": [2, 7, None],
        }
    )
    got = [
        (w.label, w.spec.pairs, w.spec.patterns, w.spec.samples)
        for w in retry_work(work, open_items)
    ]
    assert got == [
        ("pair pull", ((2, 7), (5, 2)), ("pair",), 3),
        ("host and aggregates", None, ("one_to_all",), 3),
    ]


def test_a_check_measures_a_flapping_link_again_and_a_slow_one_fails() -> None:
    faults = [
        {"kind": "transient", "link": [2, 5], "factor": 0.6, "nth": 1},  # one attempt
        {"kind": "degrade", "link": [0, 1], "factor": 0.5},  # every attempt
    ]
    criteria = criteria_from_preset("atlas800t-a2", devices=(0, 1, 2, 5))
    results = {}
    for rule in ((1, 1), (3, 2)):
        with open_runtime("sim", "atlas800t-a2", faults=faults, announce=False) as rt:
            result = run_check(rt, criteria, (0, 1, 2, 5), attempts=rule[0], fail_at=rule[1])
        items = result.items.set_index("id")
        results[rule] = items
    one, two_of_three = results[(1, 1)], results[(3, 2)]
    flapping, slow, healthy = (
        "bandwidth uni pull 2->5",
        "bandwidth uni pull 0->1",
        "bandwidth uni pull 5->2",
    )
    assert one.loc[flapping, "status"] == "FAIL" and one.loc[slow, "status"] == "FAIL"
    assert two_of_three.loc[flapping, ["status", "attempts", "failures"]].tolist() == ["PASS", 3, 1]
    assert two_of_three.loc[slow, ["status", "attempts", "failures"]].tolist() == ["FAIL", 2, 2]
    assert two_of_three.loc[healthy, ["status", "attempts", "failures"]].tolist() == ["PASS", 1, 0]
    assert (two_of_three.loc[two_of_three["failures"] == 0, "attempts"] == 1).all()


def test_a_fleet_host_measures_its_flapping_link_again_in_its_own_runtime() -> None:
    """survey_host with n-of-m (what fleet --attempts sends each worker), without Dask:
    2 -> 5 dips in its first pass only and passes 2-of-3; 0 -> 1 is slow and fails."""
    criteria = criteria_from_preset("atlas800t-a2")
    options = {**fleet_options(criteria, "64MiB"), "samples": 2, "pairs": "0-1,2-5,5-2"}
    faults = (
        {"kind": "transient", "link": [2, 5], "factor": 0.6, "nth": 1},
        {"kind": "degrade", "link": [0, 1], "factor": 0.5},
    )
    after = partial(host_attempts, criteria=criteria, attempts=3, fail_at=2, options=options)
    target = HostTarget("h", backend="sim", preset="atlas800t-a2", seed=0, faults=faults)
    result = survey_host(target, options, after)
    again = result.attempts.set_index("id")[["status", "attempts", "failures"]]
    assert again.loc["bandwidth uni pull 2->5"].tolist() == ["PASS", 3, 1]
    assert again.loc["bandwidth uni pull 0->1"].tolist() == ["FAIL", 2, 2]
    assert "bandwidth uni pull 5->2" not in again.index  # passed at once: not measured again
    items = merge_attempts(
        fleet_items(criteria, result.run, {"h": result.probe}), {"h": result.attempts}
    ).set_index("id")
    assert items.loc["bandwidth uni pull 2->5", ["status", "attempts"]].tolist() == ["PASS", 3]
    assert items.loc["bandwidth uni pull 5->2", ["status", "attempts"]].tolist() == ["PASS", 1]
    assert items.loc["bandwidth uni pull 0->1", ["status", "failures"]].tolist() == ["FAIL", 2]


def test_merge_attempts_replaces_only_its_own_hosts_items() -> None:
    items = pd.DataFrame(
        {
            "host": ["a", "a", "b", "b"],
            "id": ["x", "y", "x", "y"],
            "status": ["FAIL", "PASS", "FAIL", "FAIL"],
            "measured": [1.0, 2.0, 3.0, 4.0],
            "reason": [None] * 4,
        }
    )
    again = {
        "b": pd.DataFrame(
            {
                "id": ["x"],
                "status": ["PASS"],
                "measured": [9.0],
                "reason": ["1 of 3 attempts failed"],
                "attempts": [3],
                "failures": [1],
            }
        )
    }
    out = merge_attempts(items, again)
    assert out[["status", "measured", "attempts", "failures"]].values.tolist() == [
        ["FAIL", 1.0, 1, 1],
        ["PASS", 2.0, 1, 0],
        ["PASS", 9.0, 3, 1],
        ["FAIL", 4.0, 1, 1],
    ]
