"""Severity, action and criteria source (``check/severity.py``): a failing warn item is
WARN and the verdict WARN, a fail item still fails the check; an entry's severity beats
its table's; every item names the FILE:LINE of its bar; actions name the item's own
devices (2 -> 5, not 5 -> 2)."""

from __future__ import annotations

import pandas as pd
import pytest

from ascend_p2p_lab.check import run_check
from ascend_p2p_lab.check.attempts import settle
from ascend_p2p_lab.check.criteria import CriteriaError, criteria_from_text
from ascend_p2p_lab.check.severity import action_of, grade, verdict_of
from ascend_p2p_lab.check.verdict import evaluate
from ascend_p2p_lab.runtime import open_runtime

TWO = """schema_version = 1
[topology]
links = [["X", "HCCS"],
         ["HCCS", "X"]]
peer_access = [["X", 1],
               [1, "X"]]
basis = "doc"
"""


def _items(**over):
    row = {
        "kind": "bandwidth",
        "status": "FAIL",
        "src": 2,
        "dst": 5,
        "device": None,
        "link": "HCCS",
        "severity": None,
        "action": None,
        "file": "a.toml",
        "line": 9,
    }
    return pd.DataFrame([{**row, **over}])


def test_a_failing_warn_item_warns_and_a_fail_item_fails():
    warned = grade(_items(severity="warn"), severity={}, source="m")
    failed = grade(_items(), severity={}, source="m")
    passed = grade(_items(severity="warn", status="PASS"), severity={}, source="m")
    assert warned["status"].tolist() == ["WARN"] and verdict_of(warned) == "WARN"
    assert failed["status"].tolist() == ["FAIL"] and verdict_of(failed) == "FAIL"
    assert passed["status"].tolist() == ["PASS"] and verdict_of(passed) == "PASS"
    assert verdict_of(pd.concat([warned, failed])) == "FAIL"


def test_the_table_severity_holds_unless_the_entry_says_otherwise():
    both = pd.concat([_items(), _items(severity="fail", line=12)], ignore_index=True)
    out = grade(both, severity={"bandwidth": "warn"}, source="m")
    assert out["status"].tolist() == ["WARN", "FAIL"]
    assert out["severity"].tolist() == ["warn", "fail"]


def test_a_warn_verdict_still_fails_on_a_lost_sample_or_nothing_judged():
    warned = grade(_items(severity="warn"), severity={}, source="m")
    assert verdict_of(warned, points_lost=1) == "FAIL"
    assert verdict_of(warned, failed="device lost") == "FAIL"
    assert verdict_of(warned.assign(status="SKIP")) == "FAIL"


def test_the_action_names_the_items_own_pair_and_device():
    text = action_of({"kind": "bandwidth", "src": 2, "dst": 5, "link": "HCCS", "size_bytes": 4096})
    assert "-ds 2 -dd 5 -s 4096" in text and "HCCS link 2->5" in text
    host = action_of({"kind": "host", "device": 3, "direction": "h2d", "size_bytes": 64})
    assert "-t h2d -d 3" in host
    assert "device 6" in action_of({"kind": "verification", "device": 6})
    assert "--attempts 3" in action_of({"kind": "spread", "src": 1, "dst": 0})


def test_an_entrys_own_action_replaces_the_default():
    out = grade(_items(action="call the vendor: riser 7"), severity={}, source="m")
    assert out["action"].tolist() == ["call the vendor: riser 7"]


def test_every_item_names_the_line_of_its_bar():
    text = (
        TWO
        + """[severity]
latency = "warn"
peer_access = "warn"
[[latency]]
pair = [1, 0]
max_us = 5
basis = "doc"
severity = "fail"
[[latency]]
link = "HCCS"
max_us = 5
basis = "doc"
"""
    )
    c = criteria_from_text(text, "c.toml")
    peer = pd.DataFrame(
        {"src": [0, 1], "dst": [1, 0], "link": ["HCCS"] * 2, "peer_ok": [True, False]}
    ).assign(reason=None)
    rows = pd.DataFrame(
        {
            "pattern": ["latency", "latency"],
            "src": [0, 1],
            "dst": [1, 0],
            "size_bytes": [4, 4],
            "latency_us": [9.0, 9.0],
            "error_kind": [None, None],
            "error_code": [None, None],
            "error_call": [None, None],
            "senders": [None, None],
            "receivers": [None, None],
        }
    )
    items = evaluate(c, peer, rows).set_index("id")
    src = items["criteria_source"].to_dict()
    assert src["peer_access 0->1"] == "c.toml:5" and src["peer_access 1->0"] == "c.toml:6"
    assert src["link_class 1->0"] == "c.toml:4"
    assert src["latency 1->0"] == "c.toml:11" and src["latency 0->1"] == "c.toml:16"
    assert items.loc["latency 1->0", "status"] == "FAIL"  # its entry: fail
    assert items.loc["latency 0->1", "status"] == "WARN"  # its table: warn
    assert items.loc["peer_access 1->0", "status"] == "WARN"
    assert items.loc["verification pair 0->1", "criteria_source"] == "c.toml (default)"


@pytest.mark.parametrize(
    "extra, field",
    [
        ('[severity]\nlatency = "drain"\n', "severity.latency"),
        ('[severity]\nspeed = "warn"\n', "severity.speed"),
    ],
)
def test_a_bad_severity_is_refused_at_its_line(extra, field):
    with pytest.raises(CriteriaError, match=rf"c.toml:9: field '{field}'"):
        criteria_from_text(TWO + extra, "c.toml")


def test_n_of_m_measures_a_warned_item_again_and_it_stays_a_warning():
    first = pd.DataFrame(
        {
            "id": ["a", "b"],
            "kind": ["bandwidth"] * 2,
            "status": ["WARN", "FAIL"],
            "measured": [10.0, 10.0],
            "reason": [None, None],
            "severity": ["warn", "fail"],
        }
    )
    seen = []

    def again(open_):
        seen.append(sorted(open_["id"]))
        return open_.assign(status=open_["status"])  # fails again, each as it did

    out = settle(first, 3, 2, again)
    assert seen == [["a", "b"]]
    assert out["status"].tolist() == ["WARN", "FAIL"] and out["attempts"].tolist() == [2, 2]


def test_a_check_of_a_slow_link_with_warn_severity_warns():
    topo = """name = "pair"
soc_name = "Ascend910B3"
memory_GiB = 64
local_copy_GBps = 620
links = ["X HCCS", "HCCS X"]
[link.HCCS]
bandwidth_GBps = 26.2
nominal_GBps = 28.0
latency_us = 8.0
p2p = true
[[fault]]
kind = "degrade"
link = [0, 1]
factor = 0.5
"""
    c = criteria_from_text(
        TWO
        + """[[bandwidth]]
link = "HCCS"
direction = "uni"
initiator = "dst"
min_GBps = 20
basis = "doc"
severity = "warn"
""",
        "c.toml",
    )
    from ascend_p2p_lab.topology import topology_from_toml_text

    with open_runtime("sim", topology=topology_from_toml_text(topo)) as rt:
        result = run_check(rt, c)
    by_id = result.items.set_index("id")["status"]
    assert by_id["bandwidth uni pull 0->1"] == "WARN"
    assert by_id["bandwidth uni pull 1->0"] == "PASS"
    assert result.status == "WARN"
