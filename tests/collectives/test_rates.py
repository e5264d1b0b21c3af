"""A server's links for the prediction: a preset's rates and budgets, a measured matrix
interpolated in size, a pair degraded. Fixtures are asymmetric (2->5 differs from 5->2)."""

from __future__ import annotations

import pandas as pd
import pytest
from helpers import MIB

from ascend_p2p_lab.collectives import CollectiveError, LinkModel
from ascend_p2p_lab.collectives.rates import topology_budgets
from ascend_p2p_lab.topology import load_preset


@pytest.fixture(scope="module")
def a2():
    return load_preset("atlas800t-a2")


@pytest.fixture(scope="module")
def a3():
    return load_preset("atlas800t-a3")


def test_a3_budgets_are_the_simulators(a3) -> None:
    """A die to another card's die crosses its port out, the other's port in, its card's
    egress, the other card's ingress and both cards' both-ways budgets; SIO none."""
    got = {b.name: b.capacity_GBps for b in topology_budgets(a3, 2, 0)}
    assert got == {
        "port[2]:egress": 196.0,
        "port[0]:ingress": 196.0,
        "card[2,3]:egress": 329.0,
        "card[0,1]:ingress": 329.0,
        "card[2,3]:both": 542.0,
        "card[0,1]:both": 542.0,
    }
    assert topology_budgets(a3, 0, 1) == () and topology_budgets(a3, 3, 3) == ()


def test_a2_has_no_shared_budget(a2) -> None:
    assert all(topology_budgets(a2, s, d) == () for s in range(8) for d in range(8))


def test_no_peer_to_peer_no_rate() -> None:
    duo = LinkModel.from_topology(load_preset("atlas300i-duo"))
    with pytest.raises(CollectiveError, match="no peer-to-peer"):
        duo.rate(0, 2, MIB, "dst")


def test_degraded_scales_one_ordered_pair(a2) -> None:
    m = LinkModel.from_topology(a2).degraded({(2, 5): 0.5})
    assert m.rate(2, 5, MIB, "dst") == pytest.approx(13.1)
    assert m.rate(5, 2, MIB, "dst") == pytest.approx(26.2)
    assert m.rate(2, 5, MIB, "src") == pytest.approx(13.1 * 0.755)
    assert "degraded" in m.source


def test_measured_keeps_the_presets_budgets(a3) -> None:
    links = pd.DataFrame({"src": [2], "dst": [0], "size_bytes": [MIB], "bandwidth_GBps": [100.0]})
    m = LinkModel.from_measured(links, a3)
    assert [b.name for b in m.budgets(2, 0)][:2] == ["port[2]:egress", "port[0]:ingress"]


def test_a_measured_curve_is_read_log_log_and_its_latency_taken_out(a2) -> None:
    """10 GB/s at 1 MiB and 40 GB/s at 16 MiB give 20 GB/s at 4 MiB (halfway in log size,
    log rate; linear in size would say 16); a measured time holds its latency, so the
    streaming rate is the time less the latency (10 us of 1 MiB's 104.9 us at 10 GB/s)."""
    links = pd.DataFrame(
        {
            "src": [0, 0],
            "dst": [1, 1],
            "size_bytes": [MIB, 16 * MIB],
            "bandwidth_GBps": [10.0, 40.0],
        }
    )
    no_latency = pd.DataFrame({"src": [0], "dst": [1], "latency_us": [0.0]})
    m = LinkModel.from_measured(links, a2, latency=no_latency)
    assert m.rate(0, 1, 4 * MIB, "dst") == pytest.approx(20.0)
    lat = LinkModel.from_measured(links, a2, latency=no_latency.assign(latency_us=10.0))
    assert m.latency(0, 1) == 0.0 and lat.latency(0, 1) == 10.0
    assert lat.rate(0, 1, MIB, "dst") == pytest.approx(MIB / (MIB / 10e3 - 10.0) / 1e3)
