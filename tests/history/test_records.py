"""ascend_p2p_lab.history.records: a check's items and a run's points as records."""

from __future__ import annotations

import pandas as pd

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.history import check_records, run_records
from ascend_p2p_lab.measure import sweep


def test_a_runs_points_are_medians_named_by_point() -> None:
    faults = [{"kind": "degrade", "link": [1, 0], "factor": 0.5}]
    with open_runtime("sim", "atlas800t-a2", faults=faults, announce=False) as rt:
        run = sweep(
            rt,
            pairs="0-1,1-0",
            sizes="1MiB",
            samples=3,
            progress=False,
            patterns=["pair", "latency"],
        )
    recs = run_records(run).set_index("item")
    rows = run.samples
    slow = rows[(rows["src"] == 1) & (rows["pattern"] == "pair")]["bandwidth_GBps"].median()
    assert recs.loc["pair uni on pull 1->0 1 MiB", "value"] == slow
    assert (
        recs.loc["pair uni on pull 1->0 1 MiB", "value"]
        < 0.6 * recs.loc["pair uni on pull 0->1 1 MiB", "value"]
    )
    assert recs.loc["latency uni on pull 0->1 1 MiB", "unit"] == "us"
    assert recs["verdict"].isna().all() if "verdict" in recs else True


def test_a_checks_items_keep_what_they_judge() -> None:
    items = pd.DataFrame(
        {
            "host": ["a"],
            "id": ["aggregate one_to_all device 2"],
            "kind": ["aggregate"],
            "pattern": ["one_to_all"],
            "status": ["PASS"],
            "measured": [90.5],
            "device": [2],
            "group": [None],
        }
    )
    rec = check_records(items).iloc[0]
    assert (rec["host"], rec["item"], rec["value"], rec["verdict"], rec["device"]) == (
        "a",
        "aggregate one_to_all device 2",
        90.5,
        "PASS",
        2,
    )
