"""Fixtures of the delivery tests: a checked simulated A2 with the directed link 2 -> 5
at half speed (5 -> 2 healthy), and a healthy one."""

from __future__ import annotations

import dataclasses

import pytest


@pytest.fixture(scope="session")
def a2_checks():
    """``{"degraded": Verdict, "clean": Verdict}``: the preflight of the A2 model x 0.9."""
    from ascend_p2p_lab.check import criteria_from_preset, run_check
    from ascend_p2p_lab.check.preflight import preflight
    from ascend_p2p_lab.deliver import Verdict
    from ascend_p2p_lab.runtime import open_runtime
    from ascend_p2p_lab.topology import load_preset

    base = load_preset("atlas800t-a2")
    criteria = preflight(criteria_from_preset("atlas800t-a2"))
    out = {}
    for name, faults in (
        ("degraded", ({"kind": "degrade", "link": [2, 5], "factor": 0.5},)),
        ("clean", ()),
    ):
        with open_runtime("sim", topology=dataclasses.replace(base, faults=faults)) as rt:
            result = run_check(rt, criteria)
        out[name] = Verdict.of(
            result, host="a2", finished=1_800_000_000.0, duration_s=0.4, criteria=criteria.name
        )
    return out
