"""The fleet survey on a real LocalCluster of three worker processes (one per simulated
host, started once for the module), its analysis, its figure and its command line.

The fixtures are asymmetric: only the directed link 2 -> 5 of sim-1 is degraded (5 -> 2
is healthy), so an analysis or a figure that swaps source and destination names the
wrong link."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("distributed")
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.fleet import (
    simulated_fleet,
)


@pytest.fixture(scope="module")
def fleet():
    import dask

    # a task whose worker dies fails at once (KilledWorker) instead of being retried
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}), simulated_fleet(3) as f:
        yield f


def test_cli_json_names_the_degraded_link(tmp_path, capsys):
    status = main(
        [
            "fleet",
            "--local",
            "2",
            "--degrade",
            "sim-0:5-2:0.6",
            "--degrade",
            "sim-1:1-0:0.85",
            "--sizes",
            "64MiB",
            "--samples",
            "2",
            "--warmup",
            "0",
            "--min-sample-ms",
            "0.5",
            "--threshold",
            "0.8",
            "--format",
            "json",
            "--no-progress",
            "--out",
            str(tmp_path / "f"),
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert status == 1
    assert [(o["host"], o["src"], o["dst"], o["link"]) for o in data["outliers"]] == [
        ("sim-0", 5, 2, "HCCS")
    ]
    assert [h["host"] for h in data["hosts"]] == ["sim-0", "sim-1"]
    assert data["failed_hosts"] == []
    params = json.loads((tmp_path / "f" / "sim-1" / "run.json").read_text())["params"]
    # every host timed its copies as told (the same sampling options as sweep)
    assert (params["samples"], params["warmup"], params["min_sample_us"]) == (2, 0, 500.0)


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--samples", "0", "--samples must be an integer from 1 to 1000; got 0"),
        ("--warmup", "-1", "--warmup must be an integer from 0 to 1000; got -1"),
        ("--min-sample-ms", "0", "--min-sample-ms"),
    ],
)
def test_bad_sampling_exits_2_before_any_cluster(capsys, monkeypatch, option, value, message):
    def no_cluster(*a, **k):
        raise AssertionError("a cluster was started")

    monkeypatch.setattr("ascend_p2p_lab.fleet.SimulatedFleet", no_cluster)
    assert main(["fleet", "--local", "2", option, value, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.splitlines()) == 1


def test_an_interrupted_fleet_says_130_in_its_text_and_json(capsys, tmp_path):
    """Interrupted before any host came back: the verdict, the text and fleet.json all say
    130, and the header does not claim a size ("at no size per link")."""
    import argparse

    from ascend_p2p_lab.cli.cmd_fleet import _emit
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


def test_the_client_takes_tls_from_dask_config_and_warns_about_plain_tcp(capsys):
    import dask

    from ascend_p2p_lab.cli.cmd_fleet import scheduler_security

    assert main(["fleet", "--scheduler", "tls://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "TLS needs Dask's distributed.comm.tls.ca-file" in err
    with dask.config.set(
        {
            "distributed.comm.tls.ca-file": "ca.pem",
            "distributed.comm.tls.client.cert": "me.pem",
            "distributed.comm.tls.client.key": "me.key",
        }
    ):
        security = scheduler_security("tls://login01:8786")
    assert (security.tls_ca_file, security.tls_client_cert) == ("ca.pem", "me.pem")
    assert capsys.readouterr().err == ""
    scheduler_security("tcp://127.0.0.1:8786")
    scheduler_security("tcp://localhost:8786")
    assert capsys.readouterr().err == ""  # loopback: nobody else reaches it
    scheduler_security("tcp://login01:8786")
    err = capsys.readouterr().err
    assert err.startswith("warning: --scheduler tcp://login01:8786 is plain TCP")


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--local", "3", "--degrade", "sim-9:0-1:0.5"], "no host sim-9"),
        (["--local", "3", "--degrade", "sim-1:0-1:half"], "is not a number"),
        (["--local", "3", "--degrade", "sim-1:0-1:1.5"], "at most 1"),
        (["--local", "3", "--degrade", "sim-1:01:0.5"], "HOST:SRC-DST:FRACTION"),
        (  # a link the server lacks would survey a healthy fleet (issue 37)
            ["--local", "2", "--degrade", "sim-1:2-50:0.5"],
            "device 50 is not on this server (its devices: 0..7)",
        ),
        (
            ["--local", "2", "--preset", "atlas800t-a3", "--degrade", "sim-1:16-4:0.5"],
            "device 16 is not on this server (its devices: 0..15)",
        ),
        (["--local", "3", "--threshold", "-1"], "threshold"),
        (["--local", "0"], "1 to 256 hosts"),
        (["--local", "3", "--preset", "nope"], "not a preset"),
        (["--scheduler", "tcp://x:1", "--degrade", "sim-1:0-1:0.5"], "with --local"),
        (["--local", "2", "--scheduler", "tcp://x:1"], "not allowed with"),
    ],
)
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
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "distributed" else real(name, *a),
    )
    assert main(["fleet", "--local", "2"]) == 2
    assert "pip install 'ascend-p2p-lab[fleet]'" in capsys.readouterr().err


def test_a_fleet_with_criteria_names_the_server_and_criteria_first(tmp_path, capsys):
    """The table's first line, as check's: the hosts' server (--local --preset
    atlas800t-a3, not the default A2) and the criteria file (issue 37). The criteria
    cover two of the sixteen devices: the line is the subject, not the checks."""
    from ascend_p2p_lab.check import criteria_from_preset, to_toml

    crit = tmp_path / "a3.toml"
    crit.write_text(to_toml(criteria_from_preset("atlas800t-a3", fraction=0.5, devices=(0, 1))))
    argv = ["fleet", "--local", "2", "--preset", "atlas800t-a3", "--criteria", str(crit)]
    main([*argv, "--sizes", "1MiB", "--samples", "2", "--warmup", "0", "--no-progress"])
    first = capsys.readouterr().out.splitlines()[0]
    assert first == f"server atlas800t-a3 (preset); criteria: file {crit}", first
