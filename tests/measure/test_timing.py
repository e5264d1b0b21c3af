"""Tests that kill the mutants of tools/mutants.py the rest of the suite let live.

Each test pins a number, a label or an orientation a user sees, on an asymmetric
fixture (a degraded link, a pair reachable one way only, samples of unequal value), so
that swapping src and dst, two quantiles or two directions cannot pass unnoticed.
See docs/testing.md."""

from __future__ import annotations

from ascend_p2p_lab.measure.timing import copies_for


# ----------------------------------------------------------------------- copy engine
def test_copies_for_rounds_up_and_respects_the_cap() -> None:
    assert copies_for(300.0, 1000.0, 1000) == 4  # 3 copies would span 900 us only
    assert copies_for(250.0, 1000.0, 1000) == 4
    assert copies_for(1.0, 1000.0, 10) == 10
    assert copies_for(5000.0, 1000.0, 10) == 1
    assert copies_for(0.0, 1000.0, 10) == 1
