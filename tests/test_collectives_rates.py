"""A server's links for the prediction: a preset's rates and budgets, a measured matrix
interpolated in size, a pair degraded. Fixtures are asymmetric (2->5 differs from 5->2)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from ascend_p2p_lab.collectives import CollectiveError, LinkModel, Move
from ascend_p2p_lab.collectives.rates import topology_budgets
from ascend_p2p_lab.topology import load_preset

MIB = 1 << 20


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
    assert got == {"port[2]:egress": 196.0, "port[0]:ingress": 196.0,
                   "card[2,3]:egress": 329.0, "card[0,1]:ingress": 329.0,
                   "card[2,3]:both": 542.0, "card[0,1]:both": 542.0}
    assert topology_budgets(a3, 0, 1) == () and topology_budgets(a3, 3, 3) == ()


def test_a2_has_no_shared_budget(a2) -> None:
    assert all(topology_budgets(a2, s, d) == () for s in range(8) for d in range(8))


def test_preset_rates_by_initiator(a2, a3) -> None:
    m = LinkModel.from_topology(a2)
    assert m.rate(2, 5, MIB, "dst") == pytest.approx(26.2)            # a read
    assert m.rate(2, 5, MIB, "src") == pytest.approx(26.2 * 0.755)    # a write
    assert m.latency(2, 5) == 8.0 and m.barrier_us == 5.0
    assert (m.local_GBps, m.local_latency_us) == (620, 2)
    lat, stream = m.cost(Move(2, 5, 262_000, 5, 0))
    assert (lat, stream) == (8.0, pytest.approx(10.0))
    m3 = LinkModel.from_topology(a3)
    assert m3.rate(0, 1, MIB, "src") == pytest.approx(190.0)          # SIO writes at full rate
    assert m3.rate(1, 2, MIB, "src") == pytest.approx(165.0 * 0.84)


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


def _links() -> pd.DataFrame:
    rows = []
    for size, bw in ((MIB, 10.0), (4 * MIB, 20.0)):
        rows += [{"src": 2, "dst": 5, "size_bytes": size, "bandwidth_GBps": bw, "initiator": "dst"},
                 {"src": 2, "dst": 5, "size_bytes": size, "bandwidth_GBps": bw / 2,
                  "initiator": "src"},
                 {"src": 5, "dst": 2, "size_bytes": size, "bandwidth_GBps": 3 * bw,
                  "initiator": "dst"}]
    rows.append({"src": 2, "dst": 5, "size_bytes": MIB, "bandwidth_GBps": 30.0,
                 "initiator": "dst"})  # a second sample: the median (20) counts
    return pd.DataFrame(rows)


def test_measured_rates_interpolate_log_log(a2) -> None:
    lat = pd.DataFrame({"src": [2, 2, 5], "dst": [5, 5, 2], "latency_us": [3.0, 5.0, 1.0]})
    m = LinkModel.from_measured(_links(), a2, latency=lat)
    # 2->5 read: medians 20 at 1 MiB and 20 at 4 MiB
    assert m.latency(2, 5) == 4.0
    # 5->2 read: 30 at 1 MiB, 60 at 4 MiB: at 2 MiB sqrt(30 x 60) in log-log
    n = 2 * MIB
    lat_us, stream = m.cost(Move(5, 2, n, 2, 0))
    assert lat_us + stream == pytest.approx(n / (math.sqrt(30 * 60) * 1e3))
    assert lat_us == 1.0
    # the write has its own curve; beyond the measured sizes the nearest holds
    lat_us, stream = m.cost(Move(2, 5, 64 * MIB, 2, 0))
    assert lat_us + stream == pytest.approx(64 * MIB / (10.0 * 1e3))
    lat_us, stream = m.cost(Move(2, 5, 1024, 5, 0))
    assert stream == 0.0 and lat_us == 4.0   # measured faster than the latency: latency holds


def test_measured_without_initiator_or_latency(a2) -> None:
    links = _links()
    links = links[links["initiator"] == "dst"].drop(columns="initiator")
    m = LinkModel.from_measured(links, a2)
    assert m.latency(5, 2) == 8.0          # the preset's class latency
    lat_us, stream = m.cost(Move(5, 2, 4 * MIB, 5, 0))  # a write, measured only as reads
    assert lat_us + stream == pytest.approx(4 * MIB / (60.0 * 1e3))


def test_measured_keeps_the_presets_budgets(a3) -> None:
    links = pd.DataFrame({"src": [2], "dst": [0], "size_bytes": [MIB], "bandwidth_GBps": [100.0]})
    m = LinkModel.from_measured(links, a3)
    assert [b.name for b in m.budgets(2, 0)][:2] == ["port[2]:egress", "port[0]:ingress"]


def test_measured_errors(a2) -> None:
    m = LinkModel.from_measured(_links(), a2)
    with pytest.raises(CollectiveError, match="no measurement of 1->3"):
        m.cost(Move(1, 3, MIB, 3, 0))
    with pytest.raises(CollectiveError, match="needs columns"):
        LinkModel.from_measured(pd.DataFrame({"src": [0]}), a2)
    with pytest.raises(CollectiveError, match="latency table"):
        LinkModel.from_measured(_links(), a2, latency=pd.DataFrame({"src": [1]}))
