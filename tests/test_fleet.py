"""The fleet survey on a real LocalCluster of three worker processes (one per simulated
host, started once for the module), its analysis, its figure and its command line.

The fixtures are asymmetric: only the directed link 2 -> 5 of sim-1 is degraded (5 -> 2
is healthy), so an analysis or a figure that swaps source and destination names the
wrong link.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest

pytest.importorskip("distributed")

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.fleet import (
    HostTarget,
    analyse,
    degraded_link,
    failing_device,
    failing_host,
    fleet_targets,
    link_fractions,
    outliers,
    parse_degrade,
    simulated_fleet,
    survey,
)
from ascend_p2p_lab.fleet.survey import collect
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.results import load_run
from ascend_p2p_lab.schema import to_frame

SWEEP = {"sizes": "64MiB", "samples": 3}
DEGRADED = {"sim-1": [degraded_link(2, 5, 0.5)]}


@pytest.fixture(scope="module")
def fleet():
    import dask

    # a task whose worker dies fails at once (KilledWorker) instead of being retried
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
            simulated_fleet(3) as f:
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
        "sim-0": 0, "sim-1": 1, "sim-2": 0}


def test_every_host_is_tagged_and_saved_as_a_sweep_run_folder(degraded):
    frame = degraded.frame
    assert sorted(frame["host"].unique()) == ["sim-0", "sim-1", "sim-2"]
    assert {r.meta.seed for r in degraded.results.values()} == {0, 1, 2}
    out = degraded.saved_to
    for host in ("sim-0", "sim-1", "sim-2"):
        back = load_run(out / host)  # the format of `sweep --out`
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


def test_a_host_matches_the_same_host_run_alone(degraded):
    """sim-1 on its worker gives the rows a solo sweep with its seed and faults gives."""
    with open_runtime("sim", "atlas800t-a2", seed=1, faults=DEGRADED["sim-1"]) as rt:
        solo = sweep(rt, progress=False, **SWEEP)
    fleet_rows = degraded.results["sim-1"].frame
    drop = ["run_id", "host"]
    pd.testing.assert_frame_equal(fleet_rows.drop(columns=drop).reset_index(drop=True),
                                  solo.drop(columns=drop).reset_index(drop=True))
    other = degraded.results["sim-0"].frame  # another seed: other jitter
    assert not other["elapsed_us"].reset_index(drop=True).equals(
        solo["elapsed_us"].reset_index(drop=True))


def test_a_failing_host_keeps_the_other_two(fleet):
    targets = fleet_targets(3, faults={"sim-2": [failing_host()],
                                       "sim-0": [failing_device(3)]})
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


def test_a_worker_that_dies_is_a_failed_host(fleet):
    def die() -> None:
        os._exit(3)

    fut = fleet.client.submit(die, resources={"host-sim-0": 1}, pure=False)
    results, interrupted = collect({fut: "sim-0"}, progress=False)
    assert results["sim-0"].error_kind == "worker_lost" and not interrupted
    fleet.client.wait_for_workers(3)  # the nanny starts it again


def _link_rows(values: dict[tuple[str, int, int], float],
               links: dict[tuple[int, int], str] | None = None) -> pd.DataFrame:
    links = links or {}
    rows = [{"host": h, "src": s, "dst": d, "link": links.get((s, d), "HCCS"), "pattern": "pair",
             "direction": "uni", "peer": "on", "path": "p2p", "initiator": "src",
             "size_bytes": 1 << 26, "bandwidth_GBps": v} for (h, s, d), v in values.items()]
    return to_frame(rows)


def test_fractions_keep_source_and_destination_and_the_threshold():
    values = {(h, s, d): 25.0 for h in ("a", "b", "c") for s, d in ((0, 1), (1, 0))}
    values[("b", 1, 0)] = 21.25  # 0.85 of the class median
    fr = link_fractions(_link_rows(values))
    assert outliers(fr, 0.9)[["host", "src", "dst"]].values.tolist() == [["b", 1, 0]]
    assert outliers(fr, 0.8).empty
    baseline = _link_rows({("ref", 0, 1): 50.0, ("ref", 1, 0): 50.0})
    halves = link_fractions(_link_rows(values), baseline)
    assert halves["fraction"].max() == pytest.approx(0.5)


def test_fractions_are_per_link_class_with_two_classes():
    """A3-like hosts: SIO pairs (40 GB/s) and HCCS pairs (30 GB/s); one SIO link at 0.85.
    Against the fleet-wide median (32) it would read 1.06 and every healthy SIO 1.25."""
    sio = {(0, 1): "SIO", (1, 0): "SIO"}
    values = {(h, s, d): (40.0 if (s, d) in sio else 30.0)
              for h in ("a", "b", "c") for s, d in ((0, 1), (1, 0), (0, 2), (2, 0))}
    values[("b", 1, 0)] = 34.0
    fr = link_fractions(_link_rows(values, sio))
    medians = fr.groupby("link")["class_median_GBps"].unique().to_dict()
    assert {k: list(v) for k, v in medians.items()} == {"HCCS": [30.0], "SIO": [40.0]}
    assert outliers(fr, 0.9)[["host", "src", "dst", "link"]].values.tolist() == [
        ["b", 1, 0, "SIO"]]
    assert fr.set_index(["host", "src", "dst"]).loc[("b", 1, 0), "fraction"] == \
        pytest.approx(0.85)
    healthy = fr[~((fr.host == "b") & (fr.src == 1) & (fr.dst == 0))]
    assert healthy["fraction"].tolist() == pytest.approx([1.0] * 11)


def test_the_figure_frames_the_degraded_link(degraded):
    from ascend_p2p_lab.plots import fleet_heatmaps, fleet_marked

    fig = fleet_heatmaps(analyse(degraded).fractions, threshold=0.9)
    assert fleet_marked(fig) == {"sim-0": [], "sim-1": [(2, 5)], "sim-2": []}


def test_cli_json_names_the_degraded_link(tmp_path, capsys):
    status = main(["fleet", "--local", "2", "--degrade", "sim-0:5-2:0.6",
                   "--degrade", "sim-1:1-0:0.85", "--sizes", "64MiB",
                   "--samples", "2", "--threshold", "0.8", "--format", "json",
                   "--no-progress", "--out", str(tmp_path / "f")])
    data = json.loads(capsys.readouterr().out)
    assert status == 1
    assert [(o["host"], o["src"], o["dst"], o["link"]) for o in data["outliers"]] == [
        ("sim-0", 5, 2, "HCCS")]
    assert [h["host"] for h in data["hosts"]] == ["sim-0", "sim-1"]
    assert data["failed_hosts"] == []
    assert (tmp_path / "f" / "sim-1" / "run.json").is_file()


def test_an_interrupted_fleet_says_130_in_its_text_and_json(capsys, tmp_path):
    """Interrupted before any host came back: the verdict, the text and fleet.json all say
    130, and the header does not claim a size ("at no size per link")."""
    import argparse

    from ascend_p2p_lab.cli.fleet import _emit
    from ascend_p2p_lab.fleet.hosts import HostResult
    from ascend_p2p_lab.fleet.report import save_summary
    from ascend_p2p_lab.fleet.survey import FleetSurvey
    from ascend_p2p_lab.terminal import EXIT_INTERRUPTED

    lost = HostResult("sim-0", "failed", error_kind="interrupted", error="interrupted")
    result = FleetSurvey({"sim-0": lost}, interrupted=True, wall_s=1.0)
    args = argparse.Namespace(format="table", out=None, threshold=0.9)
    assert _emit(result, args) == EXIT_INTERRUPTED == 130
    out = capsys.readouterr().out
    assert "-> exit 130" in out and "no size" not in out
    assert out.startswith("fleet: 1 hosts, interrupted, unidirectional P2P no link measured")
    assert _emit(result, argparse.Namespace(**{**vars(args), "format": "json"})) == 130
    assert json.loads(capsys.readouterr().out)["exit_status"] == 130
    save_summary(result, tmp_path)
    assert json.loads((tmp_path / "fleet.json").read_text())["exit_status"] == 130


def test_a_survey_over_tls_on_loopback():
    """A fleet whose scheduler, workers and client speak TLS (Security.temporary(): a
    throwaway CA and certificate), listening on the loopback interface only."""
    pytest.importorskip("cryptography")
    from distributed import Security

    with simulated_fleet(2, faults={"sim-1": [degraded_link(0, 1, 0.5)]},
                         security=Security.temporary()) as f:
        address = f.client.scheduler.address
        assert address.startswith("tls://127.0.0.1:")
        workers = f.client.scheduler_info()["workers"]
        assert workers and all(w.startswith("tls://127.0.0.1:") for w in workers)
        result = survey(f.client, f.targets, progress=False, sizes="64MiB", samples=2)
    assert [r.status for r in result.results.values()] == ["ok", "ok"]
    found = [(o["host"], o["src"], o["dst"]) for o in analyse(result).verdict["outliers"]]
    assert found == [("sim-1", 0, 1)]


def test_the_client_takes_tls_from_dask_config_and_warns_about_plain_tcp(capsys):
    import dask

    from ascend_p2p_lab.cli.fleet import scheduler_security

    assert main(["fleet", "--scheduler", "tls://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "TLS needs Dask's distributed.comm.tls.ca-file" in err
    with dask.config.set({"distributed.comm.tls.ca-file": "ca.pem",
                          "distributed.comm.tls.client.cert": "me.pem",
                          "distributed.comm.tls.client.key": "me.key"}):
        security = scheduler_security("tls://login01:8786")
    assert (security.tls_ca_file, security.tls_client_cert) == ("ca.pem", "me.pem")
    assert capsys.readouterr().err == ""
    scheduler_security("tcp://127.0.0.1:8786")
    scheduler_security("tcp://localhost:8786")
    assert capsys.readouterr().err == ""  # loopback: nobody else reaches it
    scheduler_security("tcp://login01:8786")
    err = capsys.readouterr().err
    assert err.startswith("warning: --scheduler tcp://login01:8786 is plain TCP")


@pytest.mark.parametrize("argv, words", [
    (["--local", "3", "--degrade", "sim-9:0-1:0.5"], "no host sim-9"),
    (["--local", "3", "--degrade", "sim-1:0-1:half"], "is not a number"),
    (["--local", "3", "--degrade", "sim-1:0-1:1.5"], "at most 1"),
    (["--local", "3", "--degrade", "sim-1:01:0.5"], "HOST:SRC-DST:FRACTION"),
    (["--local", "3", "--threshold", "-1"], "threshold"),
    (["--local", "0"], "1 to 256 hosts"),
    (["--local", "3", "--preset", "nope"], "not a preset"),
    (["--scheduler", "tcp://x:1", "--degrade", "sim-1:0-1:0.5"], "with --local"),
    (["--local", "2", "--scheduler", "tcp://x:1"], "not allowed with"),
])
def test_cli_bad_input_exits_2_with_one_line(argv, words, capsys):
    assert main(["fleet", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


def test_cli_refuses_to_write_over_an_earlier_fleet(tmp_path, capsys):
    (tmp_path / "f").mkdir()
    (tmp_path / "f" / "fleet.json").write_text("{}")
    assert main(["fleet", "--local", "2", "--out", str(tmp_path / "f")]) == 2
    assert "holds a fleet survey already" in capsys.readouterr().err


def test_cli_without_distributed_exits_2(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "distributed" else real(name, *a))
    assert main(["fleet", "--local", "2"]) == 2
    assert "pip install 'ascend-p2p-lab[fleet]'" in capsys.readouterr().err


def test_parse_degrade_reads_a_directed_link():
    assert parse_degrade("sim-2:5-2:0.25", 3) == ("sim-2", degraded_link(5, 2, 0.25))


def test_importing_the_package_loads_no_dask():
    code = ("import sys, ascend_p2p_lab, ascend_p2p_lab.fleet, ascend_p2p_lab.plots, "
            "ascend_p2p_lab.cli; print(sorted(m for m in ('dask', 'distributed') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert out.stdout.strip() == "[]"


def test_without_hosts_every_worker_is_a_host(fleet):
    from ascend_p2p_lab.fleet.survey import as_targets

    targets = as_targets(None, fleet.client)
    assert [(t.name, t.backend) for t in targets] == [
        ("sim-0", "acl"), ("sim-1", "acl"), ("sim-2", "acl")]


def test_a_named_server_without_pyacl_is_a_failed_host_not_a_simulation():
    from ascend_p2p_lab.fleet.task import survey_host

    r = survey_host(HostTarget("atlas01"), {"sizes": "1MiB"})
    assert (r.status, r.error_kind) == ("failed", "backend_unavailable")


def test_placement_prefers_the_resource_then_the_name_then_the_address():
    from ascend_p2p_lab.fleet.survey import placement

    workers = {
        "tcp://10.0.0.1:1": {"name": "atlas01", "host": "10.0.0.1", "resources": {}},
        "tcp://10.0.0.2:1": {"name": "w2", "host": "10.0.0.2",
                             "resources": {"host-atlas02": 1}},
        "tcp://10.0.0.3:1": {"name": "w3", "host": "10.0.0.3", "resources": {}},
        "tcp://10.0.0.3:2": {"name": "w4", "host": "10.0.0.3", "resources": {}},
    }
    assert placement(workers, "atlas02") == {"resources": {"host-atlas02": 1}}
    assert placement(workers, "atlas01") == {"workers": ["tcp://10.0.0.1:1"],
                                             "allow_other_workers": False}
    assert "2 Dask workers" in placement(workers, "10.0.0.3")
    assert "no Dask worker" in placement(workers, "atlas09.invalid")


def test_a_host_interrupted_on_its_server_keeps_what_it_measured():
    from ascend_p2p_lab.fleet.task import survey_host

    def stop_after_first(done) -> None:
        raise KeyboardInterrupt

    target = HostTarget("sim-0", backend="sim", seed=0)
    r = survey_host(target, {"pairs": "0-1,1-0", "sizes": "1MiB", "samples": 2,
                             "on_block": stop_after_first})
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
    quick = fleet.client.submit(survey_host, HostTarget("sim-0", backend="sim"),
                                {"pairs": "0-1", "sizes": "1MiB", "samples": 1},
                                resources={"host-sim-0": 1}, pure=False)

    def interrupt(result) -> None:
        raise KeyboardInterrupt

    try:
        results, interrupted = collect({quick: "sim-0", slow: "sim-1"}, progress=False,
                                       on_result=interrupt)
    finally:
        Event(name, client=fleet.client).set()
    assert interrupted
    assert results["sim-0"].status == "ok"
    assert results["sim-1"].error_kind == "interrupted"
