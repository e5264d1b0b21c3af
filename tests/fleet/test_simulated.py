"""The fleet survey on a real LocalCluster of three worker processes (one per simulated
host, started once for the module), its analysis, its figure and its command line.

The fixtures are asymmetric: only the directed link 2 -> 5 of sim-1 is degraded (5 -> 2
is healthy), so an analysis or a figure that swaps source and destination names the
wrong link."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("distributed")
from helpers import DEGRADED, SWEEP

from ascend_p2p_lab.fleet import (
    HostTarget,
    analyse,
    degraded_link,
    failing_device,
    failing_host,
    fleet_targets,
    parse_degrade,
    simulated_fleet,
    survey,
)
from ascend_p2p_lab.run import Run


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


def test_every_host_is_tagged_and_saved_as_a_sweep_run_folder(degraded):
    frame = degraded.frame
    assert sorted(frame["host"].unique()) == ["sim-0", "sim-1", "sim-2"]
    assert {r.meta.seed for r in degraded.results.values()} == {0, 1, 2}
    out = degraded.saved_to
    for host in ("sim-0", "sim-1", "sim-2"):
        back = Run.load(out / host).frame()  # the format of `sweep --out`
        assert back["host"].unique().tolist() == [host]
        assert back.attrs["run"]["fleet_host"] == host
    summary = json.loads((out / "fleet.json").read_text())
    assert [h["host"] for h in summary["hosts"]] == ["sim-0", "sim-1", "sim-2"]
    assert [(o["host"], o["src"], o["dst"]) for o in summary["outliers"]] == [("sim-1", 2, 5)]


def test_each_task_ran_on_its_hosts_worker(fleet, degraded):
    workers = fleet.client.scheduler_info(n_workers=-1)["workers"]
    for host, result in degraded.results.items():
        assert workers[result.worker]["resources"] == {f"host-{host}": 1}
    assert len({r.worker for r in degraded.results.values()}) == 3


def test_a_failing_host_keeps_the_other_two(fleet):
    targets = fleet_targets(3, faults={"sim-2": [failing_host()], "sim-0": [failing_device(3)]})
    targets.append(HostTarget("sim-9", backend="sim"))  # no worker serves it
    result = survey(fleet.client, targets, progress=False, **SWEEP)
    status = {h: r.status for h, r in result.results.items()}
    assert status == {"sim-0": "partial", "sim-1": "ok", "sim-2": "failed", "sim-9": "failed"}
    failed = {r.host: (r.error_kind, r.error_code) for r in result.failed_hosts}
    assert failed == {"sim-2": ("runtime", 507899), "sim-9": ("no_worker", None)}
    assert sorted(result.frame["host"].unique()) == ["sim-0", "sim-1"]
    verdict = analyse(result).verdict
    assert [h["host"] for h in verdict["failed_hosts"]] == ["sim-2", "sim-9"]
    lost = {(o["src"], o["dst"]) for o in verdict["outliers"] if o["host"] == "sim-0"}
    assert lost and all(3 in link for link in lost)  # only links of the lost device
    assert all(o["host"] == "sim-0" for o in verdict["outliers"])


def test_a_healthy_fleet_has_no_finding(fleet):
    result = survey(fleet.client, fleet_targets(3, seed=10), progress=False, **SWEEP)
    verdict = analyse(result).verdict
    assert (verdict["outliers"], verdict["failed_hosts"], verdict["exit_status"]) == ([], [], 0)


def test_a_survey_over_tls_on_loopback():
    """A fleet whose scheduler, workers and client speak TLS (Security.temporary(): a
    throwaway CA and certificate), listening on the loopback interface only."""
    pytest.importorskip("cryptography")
    from distributed import Security

    with simulated_fleet(
        2, faults={"sim-1": [degraded_link(0, 1, 0.5)]}, security=Security.temporary()
    ) as f:
        address = f.client.scheduler.address
        assert address.startswith("tls://127.0.0.1:")
        workers = f.client.scheduler_info()["workers"]
        assert workers and all(w.startswith("tls://127.0.0.1:") for w in workers)
        result = survey(f.client, f.targets, progress=False, sizes="64MiB", samples=2)
    assert [r.status for r in result.results.values()] == ["ok", "ok"]
    found = [(o["host"], o["src"], o["dst"]) for o in analyse(result).verdict["outliers"]]
    assert found == [("sim-1", 0, 1)]


def test_parse_degrade_reads_a_directed_link():
    assert parse_degrade("sim-2:5-2:0.25", 3) == ("sim-2", degraded_link(5, 2, 0.25))
