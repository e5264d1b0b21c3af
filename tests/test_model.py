"""The simulator's model of shared hardware and of who issues a copy, against the published
figures it is calibrated on: shared budgets as preset data (A3 cards), max-min fair
sharing, push/pull efficiency (HIXL), and inferred behaviours carried in run metadata.

Fixtures are asymmetric where direction matters (one way degraded, push vs pull), so a
model that swaps source and destination or ignores the initiator cannot pass.
"""

from __future__ import annotations

import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.results import inferred_notes
from ascend_p2p_lab.sim.engine import Engine
from ascend_p2p_lab.sim.routes import shared_resources
from ascend_p2p_lab.terminal import print_summary
from ascend_p2p_lab.topology import TopologyError, load_preset, topology_from_toml_text

GIB = 1 << 30
A2, A3 = "atlas800t-a2", "atlas800t-a3"


def _median(preset: str, value: str = "bandwidth_GBps", faults: list | None = None,
            **kwargs) -> float:
    spec = {"sizes": [GIB], "samples": 2, "progress": False, **kwargs}
    with open_runtime("sim", preset, faults=faults) as rt:
        run = sweep(rt, **spec)
    assert run["error_kind"].isna().all()
    return float(run[value].median())


# ------------------------------------------------------------------ A3 cards (FlagPerf DMI)
def test_a3_card_to_card_reproduces_ascend_dmi_one_way_and_both_ways() -> None:
    one_way = _median(A3, groups="0,1:2,3")
    both = _median(A3, "bidir_total_GBps", groups="0,1:2,3", direction="bi")
    assert one_way == pytest.approx(329.3, rel=0.03)  # published 328.98-329.63
    assert both == pytest.approx(542.5, rel=0.03)  # published 539.95-545.03
    assert both < 2 * one_way * 0.9  # the directions are coupled, not independent


def test_a3_single_die_pairs_stay_at_their_links() -> None:
    assert 187 <= _median(A3, pairs="0-1") <= 199  # SIO, not under the card budgets
    assert _median(A3, pairs="0-2") == pytest.approx(165, rel=0.02)  # HCCS_SW, a read


def test_a3_fan_in_to_one_die_stays_at_its_port() -> None:
    port = load_preset(A3).port_GBps
    # four dies of four other cards pull... into die 0: only switched links
    agg = _median(A3, patterns="all_to_one", devices="0,2,4,6,8")
    rows = _median(A3, patterns="all_to_one", devices="0,2,4,6,8")
    assert agg == rows and agg == pytest.approx(port, rel=0.03)


def test_card_budgets_are_crossed_by_switched_copies_only() -> None:
    topo = load_preset(A3)
    assert shared_resources(topo, "SIO", 0, 1) == ()
    # 0 -> 3: out of card 0, into card 1, and the both-ways budget of each
    assert shared_resources(topo, "HCCS_SW", 0, 3) == (
        ("shared", 0, "out", 0), ("shared", 0, "in", 1), ("shared", 0, "both", 0),
        ("shared", 0, "both", 1))
    assert shared_resources(load_preset(A2), "HCCS", 0, 3) == ()


# ------------------------------------------------------------------ max-min fairness
def test_a_copy_slowed_elsewhere_leaves_its_share_of_a_port_to_the_others() -> None:
    eng = Engine(capacity={"port": 100.0, "slow": 10.0, "fast": 100.0})
    a, b = eng.new_stream(0), eng.new_stream(0)
    slow = eng.enqueue_copy(a, 1000, ("port", "slow"), latency_us=0.0)
    fast = eng.enqueue_copy(b, 1800, ("port", "fast"), latency_us=0.0)
    eng.resolve()
    assert slow.end == pytest.approx(100.0)  # 10 per us: its own link
    assert fast.end == pytest.approx(20.0)  # 90 per us: the port minus what slow uses


# ------------------------------------------------------------------ push and pull (HIXL)
@pytest.mark.parametrize("preset, pair, ratio", [(A2, "0-1", 0.755), (A3, "0-2", 0.84),
                                                 (A3, "0-1", 1.0)])
def test_writes_run_at_the_link_classs_push_efficiency(preset: str, pair: str,
                                                       ratio: float) -> None:
    read = _median(preset, pairs=pair, initiator="dst")
    write = _median(preset, pairs=pair, initiator="src")
    assert write / read == pytest.approx(ratio, rel=0.02)


def test_a2_read_is_the_ascend_dmi_figure_and_write_hixls() -> None:
    assert _median(A2, pairs="1-0") == pytest.approx(26.2, rel=0.01)  # the default: a read
    at_8mb = _median(A2, pairs="1-0", initiator="src", sizes=[8 << 20])
    assert 19.1 * 0.97 <= at_8mb <= 19.4 * 1.03  # HIXL A2 write at 8 MB


def test_a_degraded_direction_is_slow_whoever_issues_the_copy() -> None:
    faults = [{"kind": "degrade", "link": [0, 1], "factor": 0.5}]
    for initiator in ("src", "dst"):
        slow = _median(A2, faults=faults, pairs="0-1", initiator=initiator)
        back = _median(A2, faults=faults, pairs="1-0", initiator=initiator)
        assert slow < 0.7 * back


# ------------------------------------------------------------------ preset data, checked
BASE = """
soc_name = "Ascend910B3"
memory_GiB = 64
local_copy_GBps = 620
links = ["X HCCS_SW HCCS_SW", "HCCS_SW X HCCS_SW", "HCCS_SW HCCS_SW X"]
[link.HCCS_SW]
bandwidth_GBps = 100.0
nominal_GBps = 120.0
latency_us = 5.0
p2p = true
switched = true
"""


@pytest.mark.parametrize("extra, message", [
    ('[[shared]]\nname = "c"\nclasses = ["HCCS_SW"]\ngroups = [[0, 1]]\n', "give egress"),
    ('[[shared]]\nname = "c"\nclasses = ["NVLINK"]\ngroups = [[0]]\negress_GBps = 1.0\n',
     "unknown link class"),
    ('[[shared]]\nname = "c"\nclasses = ["HCCS_SW"]\ngroups = [[0, 5]]\negress_GBps = 1.0\n',
     "device 5 is out of range"),
    ('[[shared]]\nname = "c"\nclasses = ["HCCS_SW"]\ngroups = [[0, 1], [1]]\n'
     'egress_GBps = 1.0\n', "two groups"),
    ('[[shared]]\nname = "c"\nclasses = ["HCCS_SW"]\ngroups = [[0]]\nspeed = 1.0\n',
     "unknown key"),
    ("[inferred]\npeer_off_copy = 3\n", "inferred"),
])
def test_bad_shared_or_inferred_tables_are_one_line_errors(extra: str, message: str) -> None:
    with pytest.raises(TopologyError, match=message) as info:
        topology_from_toml_text(BASE + extra)
    assert "\n" not in str(info.value)


def test_an_efficiency_above_one_is_refused() -> None:
    with pytest.raises(TopologyError, match="fraction"):
        topology_from_toml_text(BASE + "push_efficiency = 1.5\n")


def test_a_users_shared_budget_limits_what_leaves_a_group() -> None:
    text = BASE + ('push_efficiency = 1.0\n[[shared]]\nname = "tray"\nclasses = ["HCCS_SW"]\n'
                   'groups = [[0, 1]]\negress_GBps = 60.0  # our figure\n')
    topo = topology_from_toml_text(text, name="tray")
    assert topo.shared[0].egress_GBps == 60.0 and topo.shared[0].group_of(1) == 0
    with open_runtime("sim", topology=topo) as rt:
        run = sweep(rt, sizes=[GIB], groups="0,1:2", samples=1, progress=False)
        out = sweep(rt, sizes=[GIB], pairs="0-2", samples=1, progress=False)
        back = sweep(rt, sizes=[GIB], pairs="2-0", samples=1, progress=False)
    assert float(run["bandwidth_GBps"].median()) == pytest.approx(60.0, rel=0.03)
    # one copy out of the group meets the budget too; into it there is none
    assert float(out["bandwidth_GBps"].median()) == pytest.approx(60.0, rel=0.03)
    assert float(back["bandwidth_GBps"].median()) == pytest.approx(100.0, rel=0.03)


# ------------------------------------------------------------------ inferred, said with the numbers
def test_runs_on_the_simulator_carry_the_presets_inferred_behaviours(capsys) -> None:
    with open_runtime("sim", A3) as rt:
        off = sweep(rt, pairs="0-2", sizes="1MiB", peer="off", samples=1, progress=False)
        on = sweep(rt, pairs="0-2", sizes="1MiB", samples=1, progress=False)
    assert "peer_off_copy" in off.attrs["run"]["inferred"]
    assert set(inferred_notes(off)) == {"peer_off_copy", "peer_off_error"}
    assert inferred_notes(on) == {}  # peer on, read: rests on nothing inferred
    print_summary(off)
    text = capsys.readouterr().out
    assert "no source states" in text and "peer_off_copy: A3 is absent" in text
    print_summary(on)
    assert "no source states" not in capsys.readouterr().out


def test_a_shared_budget_that_cannot_bind_lets_streams_run_alone_with_the_same_times() -> None:
    def run(budget: float, force_fluid: bool) -> tuple[list[float], bool]:
        eng = Engine(capacity={("link", 0, 1): 100.0, ("link", 1, 0): 100.0, "both": budget})
        a, b = eng.new_stream(0), eng.new_stream(1)
        ops = [eng.enqueue_copy(a, 5000, (("link", 0, 1), "both"), latency_us=2.0),
               eng.enqueue_copy(b, 3000, (("link", 1, 0), "both"), latency_us=2.0)]
        alone = eng._independent([a, b])
        if force_fluid:
            eng._independent = lambda streams: False  # type: ignore[method-assign]
        eng.resolve()
        return [op.end for op in ops], alone

    fast, alone = run(250.0, force_fluid=False)  # 2 x 100 never fills 250
    slow, _ = run(250.0, force_fluid=True)
    assert alone and fast == pytest.approx(slow, rel=1e-9)
    assert fast == pytest.approx([52.0, 32.0])
    tight, alone = run(150.0, force_fluid=False)  # 2 x 100 would: the fluid model decides
    assert not alone and tight[1] == pytest.approx(2.0 + 3000 / 75.0)
