"""The verdict alone, on hand-made rows: bounds (at least / at most, equality passes),
a pair's own criterion before its class's, asymmetric peer matrices, skips and losses,
and rendering (lines, JSON, JUnit)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pandas as pd
import pytest
from helpers import CRITERIA, judge, peer, row

from ascend_p2p_lab.check.render import junit_xml, summary_line, table_text, to_json
from ascend_p2p_lab.check.verdict import evaluate, overall
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


# ------------------------------------------------- issue 37: verdicts held by tests
def _all_skipped() -> pd.DataFrame:
    """The topology's 12 items with nothing reported: every one a SKIP."""
    unseen = peer()
    unseen["peer_ok"] = None
    return evaluate(CRITERIA, unseen, None)


def _junit(*args, **kwargs) -> ET.Element:
    return ET.fromstring(junit_xml(*args, **kwargs).split("\n", 1)[1])


def test_a_check_whose_items_are_all_skipped_fails_in_every_output():
    """Nothing judged is no pass: the table, the JSON and JUnit all fail (JUnit with a
    ``verdict`` case of its own, as no item failed)."""
    items = _all_skipped()
    assert len(items) == 12 and set(items["status"]) == {"SKIP"}
    assert overall(items) == ("FAIL", 0)
    line = "FAIL (no item judged: all 12 skipped; the run holds nothing these criteria bound)"
    assert summary_line(items) == line and table_text(items).splitlines()[-1] == line
    data = to_json(items)
    assert (data["status"], data["failed_items"], data["judged_items"]) == ("FAIL", 0, 0)
    root = _junit(items)
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("13", "1", "12")
    (verdict,) = [c for c in root.iter("testcase") if c.find("failure") is not None]
    assert verdict.get("name") == "verdict" and verdict.find("failure").get("message") == line
    one = items.copy()
    one.loc[3, "status"] = "PASS"  # one item judged: the check stands on it
    assert overall(one) == ("PASS", 0) and to_json(one)["status"] == "PASS"
    assert _junit(one).get("failures") == "0"


def _mixed() -> pd.DataFrame:
    return evaluate(CRITERIA, peer({(2, 1): False}), to_frame([row(0, 1, 10.0), row(1, 0, 25.0)]))


def _passing() -> pd.DataFrame:
    return evaluate(CRITERIA, peer(), to_frame([row(0, 1, 25.0), row(1, 0, 25.0)]))


@pytest.mark.parametrize(
    ("make", "lost", "failed", "counts", "verdict"),
    [
        (_mixed, 0, None, (22, 14, 2, 6), "FAIL"),
        (_passing, 0, None, (22, 16, 0, 6), "PASS"),
        (_passing, 3, None, (22, 16, 0, 6), "FAIL"),  # samples lost, no item failed
        (_passing, 0, "device 1 lost", (22, 16, 0, 6), "FAIL"),
        (_all_skipped, 0, None, (12, 0, 0, 12), "FAIL"),
    ],
)
def test_the_table_json_and_junit_count_each_state_and_agree(
    make, lost: int, failed: str | None, counts: tuple[int, ...], verdict: str
):
    """ "N items: P passed, F failed, S skipped" counts each state apart (the fixtures'
    counts all differ), and the table, the JSON and JUnit give the same verdict."""
    items = make()
    lines = table_text(items, lost, failed=failed).splitlines()
    (count,) = [ln for ln in lines if re.fullmatch(r"\d+ items: .*", ln)]
    assert count == "{} items: {} passed, {} failed, {} skipped".format(*counts)
    data = to_json(items, lost, failed)
    states = [i["status"] for i in data["items"]]
    assert (len(states), *map(states.count, ("PASS", "FAIL", "SKIP"))) == counts
    assert lines[-1].split()[0] == data["status"] == verdict
    root = _junit(items, lost, failed)
    cases = root.findall("./testsuite/testcase")
    assert (
        root.get("skipped")
        == str(counts[3])
        == str(sum(c.find("skipped") is not None for c in cases))
    )
    failing = [c for c in cases if c.find("failure") is not None]
    assert root.get("failures") == str(len(failing)) and root.get("tests") == str(len(cases))
    assert (len(failing) > 0) == (verdict == "FAIL")
    assert len(failing) == max(counts[2], verdict == "FAIL")


def test_a_warned_item_is_shown_apart_and_fails_junit_only_when_strict():
    """0->1 is slow and of severity warn: the summary, JSON and JUnit say WARN; with
    strict, JUnit fails it as --strict exits 1; a failing fail item still fails."""
    items = evaluate(CRITERIA, peer({}), to_frame([row(0, 1, 10.0), row(1, 0, 25.0)]))
    bw = items["id"] == "bandwidth uni pull 0->1"
    items.loc[bw, "status"] = "WARN"
    data = to_json(items)
    assert (data["verdict"], data["status"], data["warned_items"]) == ("WARN", "PASS", 1)
    assert summary_line(items) == "WARN (1 item)"
    text = table_text(items, only_failing=True)
    assert "WARN  bandwidth uni pull 0->1" in text and "next steps:" in text
    assert "  warn: bandwidth uni pull 0->1: retest the pair" in text
    root = ET.fromstring(junit_xml(items).split("\n", 1)[1])
    case = next(c for c in root.iter("testcase") if c.get("name") == "bandwidth uni pull 0->1")
    assert case.find("skipped").get("type") == "warn" and case.find("failure") is None
    assert root.get("failures") == "0" and "action: retest" in case.find("system-out").text
    strict = ET.fromstring(junit_xml(items, strict=True).split("\n", 1)[1])
    case = next(c for c in strict.iter("testcase") if c.get("name") == "bandwidth uni pull 0->1")
    assert case.find("failure").get("type") == "warn" and strict.get("failures") == "1"
    items.loc[items["id"] == "bandwidth uni pull 1->0", "status"] = "FAIL"
    assert to_json(items)["verdict"] == "FAIL" and summary_line(items) == "FAIL (1 item)"
