"""measure/rows.py: an aggregate's nominal rate counts the shared budgets the preset
declares (ports, card budgets), and names the one that binds (issue 30 item 16)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.matrices import aggregate_values
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.measure.rows import (
    aggregate_bound,
    aggregate_nominal,
    bandwidth,
    bidirectional_total,
    fair_share,
)
from ascend_p2p_lab.patterns.testfile import read_tests_text
from ascend_p2p_lab.vocab import REFERENCE

A3 = "atlas800t-a3"
A2A = [(i, j) for i in range(4) for j in range(4) if i != j]  # 4 dies of 2 cards


def test_fair_share_fills_every_flow_until_its_cap_or_a_budget() -> None:
    # flow 3 stops at its cap 1.5, flow 2 at "a" (its own budget, used up first), flow 0
    # at its cap 3; flow 1 takes what "b" has left
    assert fair_share([3.0, 9.0, 9.0, 1.5], {"a": (2.0, [2]), "b": (10.0, [0, 1, 2])}) == (
        [3.0, 5.0, 2.0, 1.5],
        "a",
    )
    # without "a", "b" is the one that fills: flows 1 and 2 share what 0 and 3 leave
    assert fair_share([3.0, 9.0, 9.0, 1.5], {"b": (10.0, [0, 1, 2])}) == ([3.0, 3.5, 3.5, 1.5], "b")
    assert fair_share([2.0, 5.0], {"x": (100.0, [0, 1])}) == ([2.0, 5.0], None)


def test_an_a2a_of_two_cards_is_bound_by_the_cards_both_ways_budget() -> None:
    with open_runtime("sim", A3) as rt:
        topo = rt.topology
        sio = topo.link_classes["SIO"].nominal_GBps
        both = topo.shared[0].both_GBps
        rate, binding = aggregate_bound(rt, A2A)
        # the 4 SIO copies at their rate; the 8 switched ones share each card's 542 both
        # ways (4 out + 4 in per card): below the ports' 4 x 196 and the links' 8 x 196
        assert rate == pytest.approx(4 * sio + both)
        assert binding == "card[0,1]:both"
        card = [(0, 2), (0, 3), (1, 2), (1, 3)]
        back = [(b, a) for a, b in card]
        assert aggregate_bound(rt, card) == (topo.shared[0].egress_GBps, "card[0,1]:egress")
        # one direction of a bidirectional card pair: half of the both-ways budget
        assert aggregate_bound(rt, card + back, range(4)) == (both / 2, "card[0,1]:both")
        assert aggregate_bound(rt, [(0, 1)]) == (sio, None)


def test_a_budget_used_up_only_as_the_links_reach_their_rates_binds_nothing() -> None:
    """The nominal is the plain sum of the links: no shared budget holds it below, so none
    is named (issue 37): a single 2 -> 0 copy, an A3 pipeline SIO + HCCS_SW + SIO."""
    with open_runtime("sim", "atlas800t-a2") as rt:
        assert aggregate_bound(rt, [(2, 0)]) == (28.0, None)
    with open_runtime("sim", A3) as rt:
        sio, sw = (rt.topology.link_classes[c].nominal_GBps for c in ("SIO", "HCCS_SW"))
        assert aggregate_bound(rt, [(0, 1), (1, 2), (2, 3)]) == (2 * sio + sw, None)
        assert aggregate_bound(rt, [(2, 0)]) == (sw, None)
        # four switched copies out of one card: its egress does hold them below 4 x 196
        rate, binding = aggregate_bound(rt, [(0, 2), (0, 3), (1, 2), (1, 3)])
        assert rate < 4 * sw and binding == "card[0,1]:egress"


def test_a_window_names_its_binding_budget_and_a_host_end_has_no_nominal() -> None:
    text = (
        'schema_version = 1\n[[test]]\nname = "a2a"\nsizes = ["16MiB"]\ntransfers = ['
        + ", ".join(f'"{a}->{b}"' for a, b in A2A)
        + "]\n"
        '[[test]]\nname = "beside-h2d"\nsizes = ["16MiB"]\n'
        'transfers = ["0->2", "1->3", "host->5"]\n'
    )
    with open_runtime("sim", A3) as rt:
        run = sweep(
            rt, tests=read_tests_text(text, rt.device_count), samples=1, warmup=0, progress=False
        )
    values = aggregate_values(run).set_index(["test", "what"])
    a2a = values.loc[("a2a", "all")]
    assert a2a["nominal_GBps"] == pytest.approx(4 * 200.0 + 542.0)
    assert a2a["reason"] == "nominal bound by the shared budget card[0,1]:both"
    assert pd.isna(values.loc[("a2a", "0->2"), "reason"])  # a link's own rate: no note
    host = values.loc[("beside-h2d", "host->5")]
    assert math.isnan(host["nominal_GBps"]) and REFERENCE in host["reason"]
    window = values.loc[("beside-h2d", "all")]
    assert math.isnan(window["nominal_GBps"]) and REFERENCE in window["reason"]
    assert "nominal" not in str(values.loc[("beside-h2d", "0->2"), "reason"])


def test_each_direction_of_a_bidirectional_card_pair_shares_the_both_ways_budget() -> None:
    with open_runtime("sim", A3) as rt:
        run = sweep(
            rt,
            patterns="card",
            direction="bi",
            devices="0-3",
            sizes=["16MiB"],
            samples=1,
            warmup=0,
            progress=False,
        )
        both = rt.topology.shared[0].both_GBps
    rows = run.samples[run.samples["pattern"].eq("card")]
    assert set(rows["direction"]) == {"bi"}
    assert rows["nominal_GBps"].tolist() == [both / 2] * len(rows)  # 271, not 329
    assert set(rows["bottleneck_budget"]) == {"card[0,1]:both"}  # a tie: the first named


# ------------------------------------------------ the tests moved beside the module
A2, A3 = "atlas800t-a2", "atlas800t-a3"


# ------------------------------------------------------------------ nominal rates
def test_nominal_rate_of_a_group_sums_links_and_caps_switched_ones_at_the_port() -> None:
    with open_runtime("sim", A2) as rt:
        hccs = rt.topology.link_classes["HCCS"].nominal_GBps
        assert aggregate_nominal(rt, [(0, 2), (0, 3), (1, 2), (1, 3)]) == 4 * hccs
    with open_runtime("sim", A3) as rt:
        topo = rt.topology
        sw, sio, port = (
            topo.link_classes["HCCS_SW"].nominal_GBps,
            topo.link_classes["SIO"].nominal_GBps,
            topo.port_GBps,
        )
        assert 2 * sw > port  # the cap matters for the card below
        card = [(0, 2), (0, 3), (1, 2), (1, 3)]
        egress = topo.shared[0].egress_GBps  # the card's budget binds below the ports
        assert aggregate_nominal(rt, card) == min(2 * min(port, 2 * sw), egress) == egress
        # fan-in: two senders into one die share its port on the way in
        assert aggregate_nominal(rt, [(2, 0), (3, 0)]) == min(port, 2 * sw)
        assert aggregate_nominal(rt, [(0, 1), (0, 2)]) == sio + min(port, sw)
        assert math.isnan(aggregate_nominal(rt, []))


def test_bandwidth_is_bytes_over_time_in_decimal_gigabytes() -> None:
    assert bandwidth(26_000_000_000, 1e6) == 26.0  # 26 GB in one second
    assert bandwidth(4096, 0.0) != bandwidth(4096, 0.0)  # NaN for an empty window
    assert bandwidth(2_000, 1.0) == 2.0  # 2 kB in 1 us = 2 GB/s


def test_bidirectional_total_adds_the_two_directions() -> None:
    assert bidirectional_total(13.0, 26.0) == 39.0
    assert math.isnan(bidirectional_total(math.nan, 26.0))


def test_host_bound_flags_the_points_whose_enqueueing_took_the_ratio_of_the_window() -> None:
    """A slow host makes its small copies host-bound and leaves its large ones alone; a
    normal host's copies are never host-bound; a ratio above 1 flags nothing."""
    sizes = "4KiB,4MiB"
    slow = [{"kind": "slow_host", "factor": 3.0}]
    with open_runtime("sim", preset="atlas800t-a2", faults=slow) as rt:
        run = sweep(rt, pairs="0-1", sizes=sizes, samples=2, progress=False)
        never = sweep(rt, pairs="0-1", sizes=sizes, samples=2, progress=False, host_bound_ratio=2)
    bound = run.samples.groupby("size_bytes")["host_bound"].all()
    assert bound.to_dict() == {4096: True, 4 << 20: False}
    assert not never.samples["host_bound"].any()
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        plain = sweep(rt, pairs="0-1", sizes=sizes, samples=2, progress=False)
    assert not plain.samples["host_bound"].any()


def test_each_row_counts_the_bytes_of_every_copy_and_keeps_its_own_direction() -> None:
    """A row's bandwidth is every byte its copies moved (a fan-out's over all 7 peers of an
    A2) over its window; a bidirectional pair's rows keep their own bandwidth and
    verification (0 -> 1 slowed, 1 -> 0 corrupt: the second row) and share their sum."""
    faults = [
        {"kind": "degrade", "link": [0, 1], "factor": 0.5},
        {"kind": "corrupt", "link": [1, 0]},
    ]
    with open_runtime("sim", preset="atlas800t-a2", faults=faults) as rt:
        run = sweep(
            rt,
            pairs="0-1",
            sizes="64KiB",
            samples=1,
            progress=False,
            direction="bi",
            verify=True,
            patterns=["pair", "one_to_all", "all_to_one"],
        )
    s = run.samples
    fanout = s["pattern"] != "pair"
    moved = 65536 * s["copies"] * fanout.map({True: 7, False: 1})
    assert (s["copies"] > 1).all()
    assert s["bandwidth_GBps"].tolist() == pytest.approx((moved / s["elapsed_us"] / 1e3).tolist())
    pair = s[~fanout].set_index(["src", "dst"])
    down, up = pair.loc[(0, 1), "bandwidth_GBps"], pair.loc[(1, 0), "bandwidth_GBps"]
    assert down < 0.9 * up
    assert pair["bidir_total_GBps"].tolist() == pytest.approx([down + up] * 2)
    assert pair["verified"].to_dict() == {(0, 1): True, (1, 0): False}
    assert "at device 0 differ from device 1's" in pair.loc[(1, 0), "error"]
    assert pd.isna(pair.loc[(0, 1), "error"])
    initiators = s[fanout].groupby("pattern")["initiator"].unique().map(list).to_dict()
    assert initiators == {"all_to_one": ["dst"], "one_to_all": ["src"]}


def test_a_test_of_transfers_numbers_them_from_0_and_a_failure_fills_each_row() -> None:
    """Each transfer's row is numbered from 0, the window's row last; a failing test gives
    every transfer's row and the window's row its failure."""
    text = (
        'schema_version = 1\n[[test]]\nname = "two"\nsizes = ["64KiB"]\n'
        'transfers = ["0->1", "2->3"]\n'
        '[[test]]\nname = "bad"\nsizes = ["64KiB"]\ntransfers = ["0->2", "1->3"]\n'
    )
    bad = [{"kind": "error", "link": [1, 3], "call": "rt.memcpy_async"}]
    with open_runtime("sim", "atlas800t-a2", faults=bad) as rt:
        run = sweep(
            rt, tests=read_tests_text(text, rt.device_count), samples=1, warmup=0, progress=False
        )
    s = run.samples
    for name in ("two", "bad"):
        rows = s[s["test"] == name]
        assert rows["transfer"].tolist()[:2] == [0, 1] and pd.isna(rows["transfer"].iloc[2])
    assert s.loc[s["test"] == "two", "error_kind"].isna().all()
    assert s.loc[s["test"] == "bad", "error_kind"].tolist() == ["runtime"] * 3


def test_a_host_staged_row_has_no_nominal_rate_and_a_direct_one_its_links() -> None:
    with open_runtime("sim", "atlas800t-a2") as rt:
        run = sweep(
            rt, pairs="0-1", sizes="64KiB", peer="both", samples=1, warmup=0, progress=False
        )
        hccs = rt.topology.link_classes["HCCS"].nominal_GBps
    nominal = run.samples.set_index("path")["nominal_GBps"]
    assert math.isnan(nominal["staged"]) and nominal.drop("staged").eq(hccs).all()


def test_a_row_has_its_own_tests_columns_its_size_and_values_whatever_came_before() -> None:
    """Rows share their slot's columns (made once per slot): a second test given the same
    slot gets its own columns, each row its own size and values, and a row changed later
    leaves the others as they were."""
    from ascend_p2p_lab.measure.rows import Context
    from ascend_p2p_lab.measure.spec import Sampling
    from ascend_p2p_lab.patterns import make_test

    ctx = Context(None, Sampling(sizes=(4096,)), None, {"run_id": "r"}, {})  # type: ignore
    slot = {"src": 0, "dst": 1, "_members": [0]}
    on = make_test("t", ["0->1"], 8)
    off = on.at(peer="off", path="direct")
    first = ctx._row(on, 4096, slot, sample=0, elapsed_us=2.0)
    second = ctx._row(off, 8192, slot, sample=1)
    second["pattern"] = "changed"
    third = ctx._row(off, 16, slot, sample=2)
    assert (second["peer"], second["path"], second["size_bytes"]) == ("off", "direct", 8192)
    assert math.isnan(second["elapsed_us"]) and second["src"] == 0 and "_members" not in second
    assert (first["peer"], first["elapsed_us"], first["size_bytes"]) == (on.peer, 2.0, 4096)
    assert (third["pattern"], third["size_bytes"], third["sample"]) == (off.pattern, 16, 2)
    assert list(first)[:2] == ["run_id", "copies"] and list(first) == list(third)
