"""ascend_p2p_lab.check.dieitems: the A3's die links in criteria and in a check.

The fault is on card 3 (dies 6 and 7), one way (7 -> 6) and on the HCCS lane only, so a
check that names the wrong card, swaps the pair or takes SIO for HCCS cannot pass."""

from __future__ import annotations

import dataclasses

import pytest

from ascend_p2p_lab.check import run_check
from ascend_p2p_lab.check.criteria import CriteriaError, criteria_from_text
from ascend_p2p_lab.check.derive import criteria_from_preset
from ascend_p2p_lab.check.dieitems import die_link_only
from ascend_p2p_lab.check.plan import measurements, needs_of
from ascend_p2p_lab.check.writer import to_toml
from ascend_p2p_lab.runtime import open_runtime
from ascend_p2p_lab.topology import load_preset

A3 = "atlas800t-a3"
CARDS_2_3 = (4, 5, 6, 7)


@pytest.fixture(scope="module")
def criteria():
    return criteria_from_preset(A3, devices=CARDS_2_3)


def test_the_model_gives_a_floor_per_die_link_and_initiator(criteria) -> None:
    t = criteria.table[criteria.table["kind"] == "die_link"].set_index(["die_link", "initiator"])
    assert sorted(t.index) == [("hccs", "dst"), ("hccs", "src"), ("sio", "dst"), ("sio", "src")]
    # 64 MiB: 5 us of latency and the bytes at the lane's rate (127), SIO's (190); x 0.9
    size = 64 << 20
    for word, rate in (("hccs", 127.0), ("sio", 190.0)):
        model = size / ((5.0 + size / (rate * 1e3)) * 1e3)
        assert t.loc[(word, "dst"), "value"] == pytest.approx(0.9 * model, rel=0.01)
    plain = criteria.table[criteria.table["kind"] == "bandwidth"]
    sio = plain[plain["link"] == "SIO"]
    assert sio["value"].max() == pytest.approx(t.loc[("sio", "dst"), "value"], rel=0.01)


def test_the_criteria_round_trip_through_their_file(criteria) -> None:
    back = criteria_from_text(to_toml(criteria), "c.toml")
    cols = ["kind", "die_link", "initiator", "value"]
    mine = criteria.table[criteria.table["kind"] == "die_link"][cols].values.tolist()
    assert back.table[back.table["kind"] == "die_link"][cols].values.tolist() == mine
    needs = needs_of(back)
    assert needs.die_links == {("hccs", "dst"), ("hccs", "src"), ("sio", "dst"), ("sio", "src")}
    labels = [w.label for w in measurements(needs) if w.spec.die_link is not None]
    assert labels == [
        "die link hccs pull",
        "die link hccs push",
        "die link sio pull",
        "die link sio push",
    ]


def test_a_fault_on_card_3s_hccs_lane_fails_exactly_its_hccs_items(criteria) -> None:
    topo = load_preset(A3)
    faulty = dataclasses.replace(
        topo, faults=({"kind": "degrade", "link": [7, 6], "lane": "hccs", "factor": 0.5},)
    )
    only = die_link_only(criteria, "both", A3)
    with open_runtime("sim", topology=faulty) as rt:
        result = run_check(rt, only, CARDS_2_3, progress=False)
    items = result.items[result.items["kind"] == "die_link"]
    failed = sorted(items.loc[items["status"] == "FAIL", "id"])
    assert failed == ["die_link hccs pull 7->6", "die_link hccs push 7->6"]
    assert len(items) == 16 and (items["status"] != "SKIP").all()  # 4 pairs x 2 links x 2
    sio = items[items["name"].str.startswith("die_link sio")]
    assert len(sio) == 8 and (sio["status"] == "PASS").all()
    bad = items[items["status"] == "FAIL"]
    assert bad["measured"].max() < 0.55 * 127.0  # half the lane's rate


def test_a_twin_pairs_own_items_judge_its_default_path_alone(criteria) -> None:
    t = criteria.table
    keep = (
        (t["kind"] == "bandwidth")
        & (t["link"] == "SIO")
        & (t["direction"] == "uni")
        & (t["initiator"] == "dst")
    ) | ((t["kind"] == "die_link") & (t["die_link"] == "hccs") & (t["initiator"] == "dst"))
    few = dataclasses.replace(criteria, table=t[keep].reset_index(drop=True))
    faulty = dataclasses.replace(
        load_preset(A3),
        faults=({"kind": "degrade", "link": [7, 6], "lane": "hccs", "factor": 0.5},),
    )
    with open_runtime("sim", topology=faulty) as rt:
        items = run_check(rt, few, CARDS_2_3, progress=False).items
    judged = items[items["kind"].isin(["bandwidth", "die_link"])]
    assert sorted(judged.loc[judged["status"] == "FAIL", "id"]) == ["die_link hccs pull 7->6"]
    sio = judged[(judged["kind"] == "bandwidth") & (judged["src"] == 7)]
    assert sio["measured"].iloc[0] == pytest.approx(187, rel=0.02)  # not the lane's rows


def test_check_die_link_cuts_the_criteria_and_refuses_a_server_without_them(criteria) -> None:
    only = die_link_only(criteria, "sio", A3)
    assert set(only.table["kind"]) == {"die_link"} and set(only.table["die_link"]) == {"sio"}
    a2 = criteria_from_preset("atlas800t-a2", devices=(0, 1, 2, 3))
    with pytest.raises(ValueError, match="server atlas800t-a2 bound no hccs die link"):
        die_link_only(a2, "hccs", "atlas800t-a2")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('die_link = "hccs"\npair = [0, 2]', r"pair \[0, 2\] is not two dies of one card"),
        ('die_link = "ub"', "die_link"),
    ],
)
def test_a_die_link_criterion_off_twin_dies_is_refused_at_its_line(
    extra: str, message: str
) -> None:
    links = [["X", "SIO", "HCCS_SW"], ["SIO", "X", "HCCS_SW"], ["HCCS_SW", "HCCS_SW", "X"]]
    peer = [["X", 1, 1], [1, "X", 1], [1, 1, "X"]]
    text = (
        f"schema_version = 1\n[topology]\nlinks = {links}\npeer_access = {peer}\n"
        f'basis = "t"\n\n[[die_link]]\n{extra}\nmin_GBps = 100\nbasis = "b"\n'
    ).replace("'", '"')
    with pytest.raises(CriteriaError, match=message) as err:
        criteria_from_text(text, "c.toml")
    assert str(err.value).startswith("c.toml:")


def test_a_die_link_entry_of_severity_warn_warns_with_the_die_links_action(criteria) -> None:
    """A site's ``[[die_link]]`` hccs entry with ``severity = "warn"``: card 3's slow lane
    warns (not fails), names its own FILE:LINE and an action naming hccs and 7->6."""
    text = to_toml(die_link_only(criteria, "both", A3))
    text = text.replace('die_link = "hccs"', 'die_link = "hccs"\nseverity = "warn"')
    warned = criteria_from_text(text, "site.toml")
    topo = load_preset(A3)
    faulty = dataclasses.replace(
        topo, faults=({"kind": "degrade", "link": [7, 6], "lane": "hccs", "factor": 0.5},)
    )
    with open_runtime("sim", topology=faulty) as rt:
        items = run_check(rt, warned, CARDS_2_3, progress=False).items.set_index("id")
    item = items.loc["die_link hccs pull 7->6"]
    assert item["status"] == "WARN" and item["severity"] == "warn"
    assert "--pairs 7-6 --die-link hccs" in item["action"]
    assert item["criteria_source"].startswith("site.toml:")
    assert items.loc["die_link sio pull 7->6", "severity"] == "fail"
    assert not items["status"].eq("FAIL").any()
