"""Unit-test fixtures: every simulated runtime a test made must end with an empty ledger."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.sim import LIVE


@pytest.fixture(autouse=True)
def _empty_ledger_after_each_test(request: pytest.FixtureRequest):
    before = set(map(id, LIVE))
    yield
    if request.node.get_closest_marker("keeps_ledger"):
        return
    leaks = {repr(sim): sim.ledger() for sim in list(LIVE)
             if id(sim) not in before and not sim.ledger_is_empty()}
    assert not leaks, f"simulator ledger not empty after the test: {leaks}"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")
