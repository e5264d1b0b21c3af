"""The fleet survey on a real LocalCluster of three worker processes (one per simulated
host, started once for the module), its analysis, its figure and its command line.

The fixtures are asymmetric: only the directed link 2 -> 5 of sim-1 is degraded (5 -> 2
is healthy), so an analysis or a figure that swaps source and destination names the
wrong link."""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")
from helpers import DEGRADED, SWEEP

from ascend_p2p_lab.fleet import (
    analyse,
    fleet_targets,
    simulated_fleet,
    survey,
)


@pytest.fixture(scope="module")
def fleet():
    import dask

    # a task whose worker dies fails at once (KilledWorker) instead of being retried
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), simulated_fleet(3) as f:
        yield f


@pytest.fixture(scope="module")
def degraded(fleet, tmp_path_factory):
    out = tmp_path_factory.mktemp("fleet") / "survey"
    targets = fleet_targets(3, faults=DEGRADED)
    return survey(fleet.client, targets, out=out, progress=False, **SWEEP)


def test_a_degraded_link_is_the_one_outlier(degraded):
    result = analyse(degraded, threshold=0.9)
    found = [(o["host"], o["src"], o["dst"], o["link"]) for o in result.verdict["outliers"]]
    assert found == [("sim-1", 2, 5, "HCCS")]
    assert result.verdict["outliers"][0]["fraction"] == pytest.approx(0.5, abs=0.03)
    assert result.verdict["failed_hosts"] == []
    assert result.verdict["exit_status"] == 1
    assert result.hosts.set_index("host")["outliers"].to_dict() == {
        "sim-0": 0,
        "sim-1": 1,
        "sim-2": 0,
    }
