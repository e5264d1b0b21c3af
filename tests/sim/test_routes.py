"""The simulator's model of shared hardware and of who issues a copy, against the published
figures it is calibrated on: shared budgets as preset data (A3 cards), max-min fair
sharing, push/pull efficiency (HIXL), and inferred behaviours carried in run metadata.

Fixtures are asymmetric where direction matters (one way degraded, push vs pull), so a
model that swaps source and destination or ignores the initiator cannot pass."""

from __future__ import annotations

from ascend_p2p_lab.sim.routes import shared_resources
from ascend_p2p_lab.topology import load_preset

A2, A3 = "atlas800t-a2", "atlas800t-a3"


def test_card_budgets_are_crossed_by_switched_copies_only() -> None:
    topo = load_preset(A3)
    assert shared_resources(topo, "SIO", 0, 1) == ()
    # 0 -> 3: out of card 0, into card 1, and the both-ways budget of each
    assert shared_resources(topo, "HCCS_SW", 0, 3) == (
        ("shared", 0, "out", 0),
        ("shared", 0, "in", 1),
        ("shared", 0, "both", 0),
        ("shared", 0, "both", 1),
    )
    assert shared_resources(load_preset(A2), "HCCS", 0, 3) == ()
