"""The preflight's criteria: the topology, one bandwidth item per ordered pair (the
cheapest direction the criteria bound), verification; and the faults it catches."""

from __future__ import annotations

import dataclasses

import pytest

from ascend_p2p_lab.check import criteria_from_preset, run_check
from ascend_p2p_lab.check.preflight import PREFLIGHT_SAMPLES, preflight
from ascend_p2p_lab.runtime import open_runtime
from ascend_p2p_lab.topology import load_preset


@pytest.fixture(scope="module")
def full():
    return criteria_from_preset("atlas800t-a2")


def test_it_keeps_one_pull_per_pair_and_the_topology(full):
    small = preflight(full)
    assert small.links == full.links and small.peer_access == full.peer_access
    assert small.verification and small.samples == PREFLIGHT_SAMPLES == 2
    assert small.table[["kind", "direction", "initiator"]].values.tolist() == [
        ["bandwidth", "uni", "dst"]
    ]
    assert small.name == f"{full.name} (preflight)" and full.samples == 3  # full untouched


def test_without_a_one_way_pull_it_keeps_the_next_cheapest(full):
    t = full.table
    no_pull = dataclasses.replace(
        full, table=t[~((t["direction"] == "uni") & (t["initiator"] == "dst"))]
    )
    assert preflight(no_pull).table[["direction", "initiator"]].values.tolist() == [["uni", "src"]]
    latency_only = dataclasses.replace(full, table=t[t["kind"] == "latency"])
    assert len(preflight(latency_only).table) == 0


FAULTS = {
    "degraded": ({"kind": "degrade", "link": [2, 5], "factor": 0.5}, "bandwidth"),
    "refused": (
        {"kind": "error", "call": "rt.device_enable_peer_access", "link": [2, 5]},
        "peer_access",
    ),
    "corrupt": ({"kind": "corrupt", "link": [2, 5]}, "verification"),
}


@pytest.mark.parametrize("name", FAULTS)
def test_each_fault_fails_its_item_on_2_to_5_only(full, name):
    fault, kind = FAULTS[name]
    topo = dataclasses.replace(load_preset("atlas800t-a2"), faults=(fault,))
    with open_runtime("sim", topology=topo) as rt:
        result = run_check(rt, preflight(full))
    bad = result.items[result.items["status"] == "FAIL"]
    assert result.status == "FAIL"
    assert (kind, 2, 5) in set(zip(bad["kind"], bad["src"], bad["dst"]))
    if name != "refused":  # a refused enable also costs the copies back (5 -> 2)
        assert not ((bad["src"] == 5) & (bad["dst"] == 2)).any()
