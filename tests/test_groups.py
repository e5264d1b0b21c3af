"""Groups of devices copying at once (``--groups 0,1:2,3``) and card pairs (``card``):
parsing, planning, peer state, the measured value, the nominal rate, card matrices, CLI.

The fixtures are asymmetric: one direction of one link is degraded or corrupt, so a
group or card named the wrong way round, or a matrix transposed, cannot pass.
"""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.matrices import run_matrices
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.measure.peerstate import peer_state
from ascend_p2p_lab.measure.plan import plan_tests
from ascend_p2p_lab.measure.rows import aggregate_nominal
from ascend_p2p_lab.measure.spec import make_spec
from ascend_p2p_lab.patterns.cards import card_pairs, cards_of, group_name, parse_groups
from ascend_p2p_lab.patterns.model import link_of
from ascend_p2p_lab.results import summarize

SIZE = 16 << 20
A2, A3 = "atlas800t-a2", "atlas800t-a3"
#: on A2, only 1 -> 3 runs at a quarter of its speed (3 -> 1 is healthy)
SLOW_1_TO_3 = [{"kind": "degrade", "link": [1, 3], "factor": 0.25}]


def _run(preset: str, faults: list | None = None, **kwargs) -> pd.DataFrame:
    spec = {"sizes": [SIZE], "samples": 2, "progress": False, **kwargs}
    with open_runtime("sim", preset, faults=faults) as rt:
        run = sweep(rt, **spec)
        assert rt.peer_refs() == {}  # every enable the groups needed was put back
    return run


def _median(run: pd.DataFrame, group: str, value: str = "bandwidth_GBps",
            direction: str = "uni") -> float:
    rows = run[(run["group"] == group) & (run["direction"] == direction)]
    assert len(rows), f"no rows for {group} {direction}"
    return float(rows[value].median())


# ------------------------------------------------------------------ parsing and cards
def test_parse_groups_reads_lists_ranges_and_several_pairs() -> None:
    assert parse_groups("0,1:2,3", 8) == [((0, 1), (2, 3))]
    assert parse_groups(" 0-2 : 5 ; 4:6,7 ", 8) == [((0, 1, 2), (5,)), ((4,), (6, 7))]
    assert parse_groups([[[3], [1, 0]]], 8) == [((3,), (1, 0))]
    assert parse_groups(None, 8) is None


@pytest.mark.parametrize("text, message", [
    ("0,1:1,2", "share device 1"),
    ("0,1:2,9", "out of range 0..7"),
    ("0,1-2,3", "two groups"),
    ("0,1:x", "cannot read groups"),
    ("0,1:", "cannot read groups"),
    (";", "empty"),
])
def test_parse_groups_refuses_bad_text_in_one_line(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        parse_groups(text, 8)
    assert "\n" not in str(info.value)


def test_cards_follow_the_sio_links_of_the_topology() -> None:
    with open_runtime("sim", A3) as rt:
        cards = cards_of(rt)
        assert cards == [(2 * k, 2 * k + 1) for k in range(8)]
        assert all(rt.link_class(a, b) == "SIO" for a, b in cards)
        assert cards_of(rt, [5, 2, 3, 4]) == [(2, 3), (4, 5)]
    with open_runtime("sim", A2) as rt:  # 910B: one device per card
        assert cards_of(rt) == [(d,) for d in range(8)]


def test_card_pairs_are_ordered_for_uni_and_unordered_for_bi() -> None:
    cards = [(0, 1), (2, 3), (4, 5)]
    uni = card_pairs(cards, "uni")
    assert len(uni) == 6 and ((2, 3), (0, 1)) in uni and ((0, 1), (2, 3)) in uni
    assert card_pairs(cards, "bi") == [((0, 1), (2, 3)), ((0, 1), (4, 5)), ((2, 3), (4, 5))]


# ------------------------------------------------------------------ spec and plan
def test_groups_make_the_group_pattern_and_are_checked_against_the_sweep() -> None:
    with open_runtime("sim", A2) as rt:
        spec = make_spec(rt, sizes="1MiB", groups="0,1:2,3")
        assert spec.patterns == ("group",) and spec.groups == (((0, 1), (2, 3)),)
        assert spec.to_dict()["groups"] == [[[0, 1], [2, 3]]]
        with pytest.raises(ValueError, match="needs groups"):
            make_spec(rt, sizes="1MiB", patterns="group")
        with pytest.raises(ValueError, match="add group to patterns"):
            make_spec(rt, sizes="1MiB", patterns="pair", groups="0:1")
        with pytest.raises(ValueError, match="outside --devices 0,1,2"):
            make_spec(rt, sizes="1MiB", groups="0,1:2,3", devices="0-2")
    with open_runtime("sim", A3) as rt, pytest.raises(ValueError, match="two cards"):
        make_spec(rt, sizes="1MiB", patterns="card", devices="0,1")


def test_plan_has_one_test_per_group_pair_and_direction() -> None:
    with open_runtime("sim", A3) as rt:
        tests = plan_tests(rt, make_spec(rt, sizes="1MiB", patterns="card",
                                         direction="both"))
        uni = [t for t in tests if t.direction == "uni"]
        bi = [t for t in tests if t.direction == "bi"]
        assert len(uni) == 8 * 7 and len(bi) == 8 * 7 // 2  # FlagPerf's 56 card pairs
        first = uni[0]
        assert first.key == "card/uni/on/p2p/0,1->2,3"
        assert first.flows == [(0, 2), (0, 3), (1, 2), (1, 3)]
        assert link_of(first, rt.link_class) == "HCCS_SW" and first.waived is None
        assert first.ends == ((None, None, (0, 1), (2, 3)),)
        assert bi[0].ends[1] == (None, None, (2, 3), (0, 1))
        assert bi[0].flows[4:] == [(2, 0), (2, 1), (3, 0), (3, 1)]  # back in one window
        mixed = plan_tests(rt, make_spec(rt, sizes="1MiB", groups="0:1,2"))[0]
        assert link_of(mixed, rt.link_class) == "mixed"  # SIO to 1, HCCS_SW to 2


def test_peer_access_for_a_group_is_every_direction_between_the_groups() -> None:
    with open_runtime("sim", A2) as rt:
        (test,) = plan_tests(rt, make_spec(rt, sizes="1MiB", groups="0,1:2,3"))
        with peer_state(rt, test):
            during = rt.peer_refs()
        after = rt.peer_refs()
    pairs = {(a, b) for a in (0, 1) for b in (2, 3)}
    assert during == {p: 1 for p in pairs | {(b, a) for a, b in pairs}}
    assert after == {}


def test_an_unreachable_device_in_a_group_is_a_block_with_its_reason() -> None:
    # Atlas 300I Duo: the two chips of a card reach each other, other cards do not
    with open_runtime("sim", "atlas300i-duo") as rt:
        assert rt.can_access_peer(0, 1) and not rt.can_access_peer(1, 2)
        ok, cut = plan_tests(rt, make_spec(rt, sizes="1MiB", groups="0:1;0:1,2"))
        assert ok.waived is None
        assert cut.waived is not None and cut.waived.kind == "unreachable"
        assert "aclrtDeviceCanAccessPeer(0, 2) = 0" in cut.waived.message
        run = sweep(rt, sizes="1MiB", groups="0:1;0:1,2", samples=1, progress=False)
    assert set(run.loc[run["group"] == "0->1,2", "error_kind"]) == {"unreachable"}
    assert run.loc[run["group"] == "0->1", "bandwidth_GBps"].notna().all()


# ------------------------------------------------------------------ measured values
def test_a_group_value_is_the_bytes_of_all_its_copies_over_one_window() -> None:
    run = _run(A2, groups="0,1:2,3;2,3:0,1")
    pair = _run(A2, pairs="0-2")
    one_link = float(pair["bandwidth_GBps"].median())
    fwd = run[run["group"] == "0,1->2,3"]
    assert fwd["src"].isna().all() and fwd["dst"].isna().all()
    assert set(fwd["pattern"]) == {"group"} and set(fwd["link"]) == {"HCCS"}
    assert fwd["verified"].all() and fwd["error_kind"].isna().all()
    # four independent HCCS links at once: four times one link's rate
    assert _median(run, "0,1->2,3") == pytest.approx(4 * one_link, rel=0.05)
    assert (fwd["nominal_GBps"] == 4 * pair["nominal_GBps"].iloc[0]).all()


def test_a_degraded_link_slows_only_the_group_that_uses_it_that_way() -> None:
    run = _run(A2, SLOW_1_TO_3, groups="0,1:2,3;2,3:0,1")
    healthy = _median(run, "2,3->0,1")  # 3 -> 1 is not degraded
    slowed = _median(run, "0,1->2,3")  # 1 -> 3 is: the window waits for it
    assert slowed < 0.5 * healthy
    # the total-window method: all four copies' bytes over the slowest one's time
    assert slowed == pytest.approx(healthy / 4, rel=0.1)


def test_bidirectional_groups_give_each_direction_and_their_total() -> None:
    run = _run(A2, groups="0,1:2,3", direction="bi")
    fwd = run[run["group"] == "0,1->2,3"]
    back = run[run["group"] == "2,3->0,1"]
    assert len(fwd) == len(back) == 2 and set(run["direction"]) == {"bi"}
    total = fwd["bandwidth_GBps"].to_numpy() + back["bandwidth_GBps"].to_numpy()
    assert fwd["bidir_total_GBps"].to_numpy() == pytest.approx(total)
    uni = _run(A2, groups="0,1:2,3")
    # eight independent links (four each way): twice the one-way aggregate
    assert float(fwd["bidir_total_GBps"].median()) == pytest.approx(
        2 * _median(uni, "0,1->2,3"), rel=0.05)


def test_corrupt_bytes_on_one_link_fail_only_its_group() -> None:
    run = _run(A2, [{"kind": "corrupt", "link": [1, 3]}], groups="0,1:2,3;2,3:0,1")
    fwd = run[run["group"] == "0,1->2,3"]
    back = run[run["group"] == "2,3->0,1"]
    assert (fwd["verified"] == False).all()  # noqa: E712 (a boolean column)
    assert set(fwd["error_kind"]) == {"verification"}
    assert "0,1->2,3" in fwd["error"].iloc[0]
    assert back["verified"].all() and back["error_kind"].isna().all()


def test_initiator_dst_puts_the_copies_on_the_receivers() -> None:
    run = _run(A2, SLOW_1_TO_3, groups="0,1:2,3", initiator="dst")
    assert set(run["initiator"]) == {"dst"}
    assert _median(run, "0,1->2,3") < 0.5 * _median(_run(A2, groups="0,1:2,3"), "0,1->2,3")


def test_summary_keeps_each_group_its_own_point() -> None:
    run = _run(A2, SLOW_1_TO_3, groups="0,1:2,3;2,3:0,1")
    summ = summarize(run).set_index("group")
    assert summ.loc["0,1->2,3", "bandwidth_GBps_median"] < \
        0.5 * summ.loc["2,3->0,1", "bandwidth_GBps_median"]
    assert (summ["samples"] == 2).all()


# ------------------------------------------------------------------ nominal rates
def test_nominal_rate_of_a_group_sums_links_and_caps_switched_ones_at_the_port() -> None:
    with open_runtime("sim", A2) as rt:
        hccs = rt.topology.link_classes["HCCS"].nominal_GBps
        assert aggregate_nominal(rt, [(0, 2), (0, 3), (1, 2), (1, 3)]) == 4 * hccs
    with open_runtime("sim", A3) as rt:
        topo = rt.topology
        sw, sio, port = (topo.link_classes["HCCS_SW"].nominal_GBps,
                         topo.link_classes["SIO"].nominal_GBps, topo.port_GBps)
        assert 2 * sw > port  # the cap matters for the card below
        card = [(0, 2), (0, 3), (1, 2), (1, 3)]
        egress = topo.shared[0].egress_GBps  # the card's budget binds below the ports
        assert aggregate_nominal(rt, card) == min(2 * min(port, 2 * sw), egress) == egress
        # fan-in: two senders into one die share its port on the way in
        assert aggregate_nominal(rt, [(2, 0), (3, 0)]) == min(port, 2 * sw)
        assert aggregate_nominal(rt, [(0, 1), (0, 2)]) == sio + min(port, sw)
        assert math.isnan(aggregate_nominal(rt, []))


# ------------------------------------------------------------------ card matrices
def test_card_matrix_rows_are_sending_cards() -> None:
    slow = [{"kind": "degrade", "link": [2, 0], "factor": 0.1}]  # card 2,3 -> card 0,1
    run = _run(A3, slow, patterns="card", devices="0-5", samples=1)
    (m,) = [m for m in run_matrices(run) if m.pattern == "card"]
    assert m.labels == ["0,1", "2,3", "4,5"] and m.cards == [[0, 1], [2, 3], [4, 5]]
    assert m.devices == [0, 1, 2, 3, 4, 5]
    f = m.frame
    assert f.loc["2,3", "0,1"] < 0.5 * f.loc["0,1", "2,3"]
    assert f.loc["2,3", "0,1"] < 0.5 * f.loc["4,5", "0,1"]
    assert m.kinds[0][0] == "not_measured" and m.kinds[1][0] is None
    assert "source card -> column = destination card" in m.title
    j = m.to_json()
    assert j["cards"] == [[0, 1], [2, 3], [4, 5]]
    assert j["matrix"][1][0] == pytest.approx(f.loc["2,3", "0,1"], abs=1e-3)


def test_group_pattern_rows_are_not_drawn_as_matrices() -> None:
    run = _run(A2, groups="0,1:2,3", samples=1)
    assert run_matrices(run) == []


# ------------------------------------------------------------------ command line
def test_cli_sweep_measures_groups_and_prints_the_card_matrix(capsys) -> None:
    code = main(["sweep", "--preset", A3, "--devices", "0-3", "--patterns", "card",
                 "--sizes", "16MiB", "--samples", "1", "--no-progress", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    (m,) = out["matrices"]
    assert m["pattern"] == "card" and m["cards"] == [[0, 1], [2, 3]]
    assert m["matrix"][0][1] > 0 and m["matrix"][1][0] > 0 and m["matrix"][0][0] is None
    code = main(["sweep", "--preset", A2, "--groups", "0,1:2,3", "--sizes", "16MiB",
                 "--samples", "1", "--no-progress"])
    text = capsys.readouterr().out
    assert code == 0 and "group" in text and "112.0" in text  # 4 HCCS links' nominal


@pytest.mark.parametrize("argv, message", [
    (["--groups", "0,1:1,2"], "share device 1"),
    (["--patterns", "group"], "needs groups"),
    (["--groups", "0:1", "--patterns", "pair"], "add group to patterns"),
])
def test_cli_refuses_bad_groups_with_status_2(argv: list[str], message: str, capsys) -> None:
    code = main(["sweep", "--preset", A2, "--sizes", "1MiB", "--no-progress", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err
    assert len([line for line in err.splitlines() if line.startswith("error")]) <= 1


def test_group_name_reads_senders_first() -> None:
    assert group_name((2, 3), (0, 1)) == "2,3->0,1"


# ------------------------------------------------------------------ figures
def test_aggregate_bars_hold_each_group_its_value_and_nominal() -> None:
    from ascend_p2p_lab.plots.aggregates import aggregate_bars, aggregate_stats

    run = _run(A2, SLOW_1_TO_3, groups="0,1:2,3;2,3:0,1", direction="both")
    st = aggregate_stats(run).set_index("what")
    assert list(st.index) == ["group 0,1->2,3", "group 2,3->0,1", "group 0,1<->2,3"]
    assert st.loc["group 0,1->2,3", "median"] == pytest.approx(_median(run, "0,1->2,3"))
    assert st.loc["group 2,3->0,1", "median"] == pytest.approx(_median(run, "2,3->0,1"))
    both = run[(run["direction"] == "bi") & (run["group"] == "0,1->2,3")]
    assert st.loc["group 0,1<->2,3", "median"] == pytest.approx(
        float(both["bidir_total_GBps"].median()))
    nominal = float(run["nominal_GBps"].iloc[0])
    assert st.loc["group 0,1<->2,3", "nominal_GBps"] == 2 * nominal
    fig = aggregate_bars(run)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == list(st.index)
    widths = [p.get_width() for p in fig.axes[0].patches][:3]
    assert widths == pytest.approx(list(st["median"]))


def test_card_heatmap_rows_are_sending_cards_and_report_draws_it(tmp_path) -> None:
    from ascend_p2p_lab.plots import card_heatmap, report

    slow = [{"kind": "degrade", "link": [2, 0], "factor": 0.1}]
    run = _run(A3, slow, patterns="card", devices="0-5", samples=1)
    fig = card_heatmap(run)
    image = fig.axes[0].images[0].get_array()
    assert image[1, 0] < 0.5 * image[0, 1]  # row 2,3 -> column 0,1 is the slow one
    texts = {t.get_position(): t.get_text() for t in fig.axes[0].texts}
    assert texts[(0, 1)] == f"{image[1, 0]:.0f}" and texts[(0, 0)] == "—"
    names = {p.name for p in report(run, tmp_path)}
    assert {"aggregates.png", "card_uni.png"} <= names
    with pytest.raises(ValueError, match="no card matrix"):
        card_heatmap(run, direction="bi")
