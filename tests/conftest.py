"""Unit-test fixtures: every simulated runtime a test made must end with an empty ledger."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.sim import drain_tracked, track

track(True)  # keep every simulator a test makes alive until its ledger is checked


@pytest.fixture(autouse=True)
def _empty_ledger_after_each_test(request: pytest.FixtureRequest):
    drain_tracked()
    yield
    made = drain_tracked()
    if request.node.get_closest_marker("keeps_ledger"):
        return
    leaks = {f"{sim!r} #{i}": sim.ledger() for i, sim in enumerate(made)
             if not sim.ledger_is_empty()}
    assert not leaks, f"simulator ledger not empty after the test: {leaks}"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")
