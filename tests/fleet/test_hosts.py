"""The fleet survey on a real LocalCluster of three worker processes (one per simulated
host, started once for the module), its analysis, its figure and its command line.

The fixtures are asymmetric: only the directed link 2 -> 5 of sim-1 is degraded (5 -> 2
is healthy), so an analysis or a figure that swaps source and destination names the
wrong link."""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")
from ascend_p2p_lab.fleet import (
    HostTarget,
    simulated_fleet,
)
from ascend_p2p_lab.fleet.survey import collect


@pytest.fixture(scope="module")
def fleet():
    import dask

    # a task whose worker dies fails at once (KilledWorker) instead of being retried
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), simulated_fleet(3) as f:
        yield f


def test_a_host_interrupted_on_its_server_keeps_what_it_measured():
    from ascend_p2p_lab.fleet.task import survey_host

    def stop_after_first(done) -> None:
        raise KeyboardInterrupt

    target = HostTarget("sim-0", backend="sim", seed=0)
    r = survey_host(
        target, {"pairs": "0-1,1-0", "sizes": "1MiB", "samples": 2, "on_block": stop_after_first}
    )
    assert (r.status, r.interrupted) == ("partial", True)
    assert r.frame[["src", "dst"]].drop_duplicates().values.tolist() == [[0, 1]]


def test_an_interrupt_while_gathering_keeps_the_hosts_back(fleet):
    import uuid

    from distributed import Event

    from ascend_p2p_lab.fleet.task import survey_host

    def held(name: str) -> None:  # sim-1 answers only once the test lets it
        from distributed import Event

        Event(name).wait(60)

    name = f"hold-{uuid.uuid4().hex}"
    slow = fleet.client.submit(held, name, resources={"host-sim-1": 1}, pure=False)
    quick = fleet.client.submit(
        survey_host,
        HostTarget("sim-0", backend="sim"),
        {"pairs": "0-1", "sizes": "1MiB", "samples": 1},
        resources={"host-sim-0": 1},
        pure=False,
    )

    def interrupt(result) -> None:
        raise KeyboardInterrupt

    try:
        results, interrupted = collect(
            {quick: "sim-0", slow: "sim-1"}, progress=False, on_result=interrupt
        )
    finally:
        Event(name, client=fleet.client).set()
    assert interrupted
    assert results["sim-0"].status == "ok"
    assert results["sim-1"].error_kind == "interrupted"
