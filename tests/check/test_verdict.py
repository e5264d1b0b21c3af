"""The verdict alone, on hand-made rows: bounds (at least / at most, equality passes),
a pair's own criterion before its class's, asymmetric peer matrices, skips and losses,
and rendering (lines, JSON, JUnit)."""

from __future__ import annotations

import pandas as pd
from helpers import CRITERIA, judge, peer, row

from ascend_p2p_lab.check.criteria import criteria_from_text
from ascend_p2p_lab.check.verdict import evaluate, overall
from ascend_p2p_lab.schema import to_frame


def test_at_least_and_at_most_pass_on_equality():
    items = judge(
        [
            row(0, 1, 20.0),
            row(1, 0, 19.99),
            row(0, 1, None, pattern="latency", size=4, lat=10.0),
            row(1, 0, None, pattern="latency", size=4, lat=10.01),
        ]
    )
    assert items.loc["bandwidth uni pull 0->1", "status"] == "PASS"
    assert items.loc["bandwidth uni pull 1->0", "status"] == "FAIL"
    assert CRITERIA.latency_size_bytes == 4
    assert items.loc["latency 0->1", "status"] == "PASS"
    assert items.loc["latency 1->0", "status"] == "FAIL"


def test_a_pairs_own_criterion_wins_over_its_class():
    items = judge([row(1, 2, 25.0), row(2, 1, 25.0)])
    assert items.loc["bandwidth uni pull 1->2", ["criterion", "status"]].tolist() == [30.0, "FAIL"]
    assert items.loc["bandwidth uni pull 2->1", ["criterion", "status"]].tolist() == [20.0, "PASS"]
    assert "bandwidth uni pull 0->2" not in items.index  # PIX: no criterion for its class


def test_peer_matrix_is_read_by_source_row():
    items = judge([], peer())
    assert items.loc["peer_access 0->2", ["measured", "criterion", "status"]].tolist() == [
        0,
        0,
        "PASS",
    ]
    assert items.loc["peer_access 2->0", ["measured", "criterion", "status"]].tolist() == [
        1,
        1,
        "PASS",
    ]
    swapped = judge([], peer({(0, 2): True, (2, 0): False}))
    assert swapped.loc["peer_access 0->2", "status"] == "FAIL"
    assert swapped.loc["peer_access 2->0", "status"] == "FAIL"
    links = judge([], peer()).loc["link_class 0->2"]
    assert (links["measured"], links["criterion"], links["status"]) == ("PIX", "PIX", "PASS")


def test_lost_missing_and_unmeasured_points():
    items = judge(
        [
            row(0, 1, 25.0),
            row(0, 1, None, kind="runtime"),
            row(1, 0, None, kind="missing_call"),
            row(1, 2, None, kind="unreachable"),
        ]
    )
    lost = items.loc["bandwidth uni pull 0->1"]
    assert lost["status"] == "FAIL" and lost["reason"].startswith("lost 1 of 2 samples")
    assert items.loc["bandwidth uni pull 1->0", "status"] == "SKIP"
    assert items.loc["bandwidth uni pull 1->0", "reason"].startswith("cannot measure")
    assert items.loc["bandwidth uni pull 1->2", "status"] == "FAIL"
    assert items.loc["bandwidth uni pull 2->1", ["status", "reason"]].tolist() == [
        "SKIP",
        "not measured",
    ]


def test_verification_counts_bad_samples_per_direction():
    items = judge(
        [row(0, 1, 25.0, kind="verification", verified=False), row(0, 1, 25.0), row(1, 0, 25.0)]
    )
    assert items.loc["verification pair 0->1", ["measured", "status"]].tolist() == [1.0, "FAIL"]
    assert items.loc["verification pair 1->0", "status"] == "PASS"
    assert items.loc["bandwidth uni pull 0->1", "status"] == "PASS"  # its timing stands


CARDS = criteria_from_text(
    """\
schema_version = 1
size_bytes = 1024
[topology]
links = [["X", "SIO", "HCCS_SW", "HCCS_SW"], ["SIO", "X", "HCCS_SW", "HCCS_SW"],
         ["HCCS_SW", "HCCS_SW", "X", "SIO"], ["HCCS_SW", "HCCS_SW", "SIO", "X"]]
peer_access = [["X", 1, 1, 1], [1, "X", 1, 1], [1, 1, "X", 1], [1, 1, 1, "X"]]
basis = "hand-written"
[[aggregate]]
pattern = "card"
min_GBps = 100
basis = "every card pair"
[[aggregate]]
pattern = "card"
group = " 2,3 -> 0,1 "
min_GBps = 300
basis = "this card pair's own"
""",
    "cards.toml",
)


def card_row(senders, receivers, gbps, label):
    """A card row; ``label`` is its ``group`` text, which nothing may read as a key."""
    return {
        "pattern": "card",
        "direction": "uni",
        "peer": "on",
        "path": "p2p",
        "initiator": "dst",
        "size_bytes": 1024,
        "bandwidth_GBps": gbps,
        "senders": senders,
        "receivers": receivers,
        "group": label,
        "sample": 0,
        "link": "HCCS_SW",
        "verified": True,
    }


def test_card_items_are_keyed_by_their_devices_not_their_label():
    """The criteria's group text is read once into devices (spaces and all); the rows'
    labels are garbage here, and every card pair is still judged by its own criterion."""
    rows = [card_row((0, 1), (2, 3), 150.0, "?"), card_row((2, 3), (0, 1), 150.0, "??")]
    items = evaluate(CARDS, None, to_frame(rows))
    cards = items[items["name"] == "aggregate card"].set_index("id")
    assert set(cards.index) == {"aggregate card cards 0,1->2,3", "aggregate card cards 2,3->0,1"}
    assert cards.loc["aggregate card cards 0,1->2,3", ["status", "criterion"]].tolist() == [
        "PASS",
        100.0,
    ]
    assert cards.loc["aggregate card cards 2,3->0,1", ["status", "criterion"]].tolist() == [
        "FAIL",
        300.0,
    ]  # its own criterion, not the one for every pair
    assert cards.loc["aggregate card cards 2,3->0,1", "senders"] == (2, 3)


def test_a_check_whose_items_are_all_skipped_fails_and_one_pass_passes() -> None:
    assert overall(pd.DataFrame({"status": ["SKIP", "SKIP"]})) == ("FAIL", 0)
    assert overall(pd.DataFrame({"status": ["SKIP", "PASS"]})) == ("PASS", 0)
    assert overall(pd.DataFrame({"status": ["FAIL", "PASS", "SKIP"]})) == ("FAIL", 1)
