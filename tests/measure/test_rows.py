"""Groups of devices copying at once (``--groups 0,1:2,3``) and card pairs (``card``):
parsing, planning, peer state, the measured value, the nominal rate, card matrices, CLI.

The fixtures are asymmetric: one direction of one link is degraded or corrupt, so a
group or card named the wrong way round, or a matrix transposed, cannot pass.

The sweep in named parts: a spec object, the on_block callback, the formulas."""

from __future__ import annotations

import math

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure.rows import aggregate_nominal, bandwidth, bidirectional_total

A2, A3 = "atlas800t-a2", "atlas800t-a3"


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
        assert aggregate_nominal(rt, card) == 2 * min(port, 2 * sw)
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
