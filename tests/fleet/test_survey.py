"""The fleet survey on a real LocalCluster of three worker processes (one per simulated
host, started once for the module), its analysis, its figure and its command line.

The fixtures are asymmetric: only the directed link 2 -> 5 of sim-1 is degraded (5 -> 2
is healthy), so an analysis or a figure that swaps source and destination names the
wrong link."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("distributed")
from ascend_p2p_lab.fleet import (
    simulated_fleet,
)
from ascend_p2p_lab.fleet.survey import collect


@pytest.fixture(scope="module")
def fleet():
    import dask

    # a task whose worker dies fails at once (KilledWorker) instead of being retried
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), simulated_fleet(3) as f:
        yield f


def test_a_worker_that_dies_is_a_failed_host(fleet):
    def die() -> None:
        os._exit(3)

    fut = fleet.client.submit(die, resources={"host-sim-0": 1}, pure=False)
    results, interrupted = collect({fut: "sim-0"}, progress=False)
    assert results["sim-0"].error_kind == "worker_lost" and not interrupted
    fleet.client.wait_for_workers(3)  # the nanny starts it again


def test_importing_the_package_loads_no_dask():
    code = (
        "import sys, ascend_p2p_lab, ascend_p2p_lab.fleet, ascend_p2p_lab.plots, "
        "ascend_p2p_lab.cli; print(sorted(m for m in ('dask', 'distributed') "
        "if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    assert out.stdout.strip() == "[]"


def test_without_hosts_every_worker_is_a_host(fleet):
    from ascend_p2p_lab.fleet.survey import as_targets

    targets = as_targets(None, fleet.client)
    assert [(t.name, t.backend) for t in targets] == [
        ("sim-0", "acl"),
        ("sim-1", "acl"),
        ("sim-2", "acl"),
    ]


def test_placement_prefers_the_resource_then_the_name_then_the_address():
    from ascend_p2p_lab.fleet.survey import placement

    workers = {
        "tcp://10.0.0.1:1": {"name": "atlas01", "host": "10.0.0.1", "resources": {}},
        "tcp://10.0.0.2:1": {"name": "w2", "host": "10.0.0.2", "resources": {"host-atlas02": 1}},
        "tcp://10.0.0.3:1": {"name": "w3", "host": "10.0.0.3", "resources": {}},
        "tcp://10.0.0.3:2": {"name": "w4", "host": "10.0.0.3", "resources": {}},
    }
    assert placement(workers, "atlas02") == {"resources": {"host-atlas02": 1}}
    assert placement(workers, "atlas01") == {
        "workers": ["tcp://10.0.0.1:1"],
        "allow_other_workers": False,
    }
    assert "2 Dask workers" in placement(workers, "10.0.0.3")
    assert "no Dask worker" in placement(workers, "atlas09.invalid")
