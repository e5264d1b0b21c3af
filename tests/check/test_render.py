"""The verdict alone, on hand-made rows: bounds (at least / at most, equality passes),
a pair's own criterion before its class's, asymmetric peer matrices, skips and losses,
and rendering (lines, JSON, JUnit)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from helpers import CRITERIA, judge, peer, row

from ascend_p2p_lab.check.render import junit_xml, summary_line, to_json
from ascend_p2p_lab.check.verdict import evaluate
from ascend_p2p_lab.schema import to_frame


def test_rendering_json_and_junit_agree_with_the_items():
    items = evaluate(CRITERIA, peer({(2, 1): False}), to_frame([row(0, 1, 10.0), row(1, 0, 25.0)]))
    data = to_json(items)
    assert data["status"] == "FAIL" and summary_line(items) == "FAIL (2 items)"
    bad = {(i["name"], i["src"], i["dst"]) for i in data["items"] if i["status"] == "FAIL"}
    assert bad == {("bandwidth uni pull", 0, 1), ("peer_access", 2, 1)}
    root = ET.fromstring(junit_xml(items).split("\n", 1)[1])
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == len(items) and root.get("failures") == "2"
    failed = {c.get("name") for c in cases if c.find("failure") is not None}
    assert failed == {"bandwidth uni pull 0->1", "peer_access 2->1"}
    skipped = {c.get("name") for c in cases if c.find("skipped") is not None}
    assert skipped == set(items.loc[items["status"] == "SKIP", "id"]) and skipped
    assert to_json(items.iloc[:0], points_lost=3)["status"] == "FAIL"


def test_every_measured_item_names_its_row_pattern_as_a_column():
    rows = [
        row(0, 1, 25.0),
        row(1, 0, 25.0),
        row(1, 2, 31.0),
        row(0, 1, None, pattern="latency", lat=8.0, size=4),
    ]
    items = judge(rows, peer())
    by_kind = items.groupby("kind")["pattern"].agg(lambda s: set(s.dropna()))
    assert by_kind["bandwidth"] == {"pair"} and by_kind["latency"] == {"latency"}
    assert by_kind["verification"] == {"pair"}
    assert items.loc[items["kind"].isin(["peer_access", "link_class"]), "pattern"].isna().all()
    doc = to_json(items.reset_index())
    assert {i["pattern"] for i in doc["items"] if i["kind"] == "bandwidth"} == {"pair"}
