"""Faults as data (``sim/faults.py``): a degraded link's push and pull are what the
documentation of the fault says (issue 30 item 17)."""

from __future__ import annotations

import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep_run
from ascend_p2p_lab.sim import faults


def _pull_push(link_faults: list[dict]) -> dict[tuple[int, int], tuple[float, float]]:
    """Median pull and push GB/s of 2 -> 5 (degraded below) and 5 -> 2 (healthy)."""
    out = {}
    for initiator in ("dst", "src"):
        with open_runtime("sim", "atlas800t-a2", faults=link_faults, announce=False) as rt:
            rows = sweep_run(rt, pairs="2-5,5-2", sizes="64MiB", samples=2,
                             initiator=initiator, progress=False).samples
        for (s, d), g in rows.groupby(["src", "dst"]):
            out.setdefault((int(s), int(d)), {})[initiator] = float(g["bandwidth_GBps"].median())
    return {k: (v["dst"], v["src"]) for k, v in out.items()}


def test_a_degrade_scales_the_links_rate_and_its_push_meets_its_pull() -> None:
    rates = _pull_push([{"kind": "degrade", "link": [2, 5], "factor": 0.5}])
    pull, push = rates[(2, 5)]
    assert push == pytest.approx(pull, rel=0.01)  # the documented choice: push = pull
    healthy_pull, healthy_push = rates[(5, 2)]
    assert healthy_push == pytest.approx(0.755 * healthy_pull, rel=0.03)
    assert push < healthy_push  # below the push ceiling: the link's rate binds both


def test_the_fault_documentation_states_the_choice() -> None:
    doc = " ".join(faults.__doc__.split())
    assert "gives push = pull" in doc and "0.755 of its pull" in doc
