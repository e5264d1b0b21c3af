"""The fleet with criteria: each host judged against the same file, the failing items
per host beside the fleet-relative outliers."""

from __future__ import annotations

import json

import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.check import criteria_from_preset, to_toml
from ascend_p2p_lab.check.fleetitems import failing_by_host, fleet_items, fleet_options
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.fleet.task import tag_host
from ascend_p2p_lab.history import HistoryStore
from ascend_p2p_lab.measure import probe, sweep
from ascend_p2p_lab.run import Run


@pytest.fixture(scope="module")
def criteria():
    return criteria_from_preset("atlas800t-a2", fraction=0.9)


def _host(name: str, faults: list, options: dict):
    with open_runtime("sim", preset="atlas800t-a2", faults=faults or None) as rt:
        table = probe(rt).frame()
        rows = sweep(rt, samples=2, progress=False, **options)
    return tag_host(rows, name), table


def test_fleet_items_fail_only_the_degraded_host_and_link(criteria):

    options = fleet_options(criteria, "1MiB")
    assert options["sizes"] == [1 << 20, criteria.size_bytes]
    assert options["direction"] == "both" and "h2d" in options["patterns"]
    frames, probes = [], {}
    for name, faults in (
        ("good", []),
        ("bad", [{"kind": "degrade", "link": [5, 2], "factor": 0.5}]),
    ):
        rows, table = _host(name, faults, options)
        frames.append(rows)
        probes[name] = table
    items = fleet_items(criteria, Run.concat(frames), probes)
    assert set(items["host"]) == {"good", "bad"}
    assert failing_by_host(items) == {
        "bad": [
            "bandwidth bi pull 5->2",
            "bandwidth uni pull 5->2",
            "aggregate all_to_one device 2",
            "aggregate one_to_all device 5",
        ]
    }
    # push and latency need sweeps of their own: skipped on a fleet, per host, with why
    skipped = items[items["status"] == "SKIP"]
    assert set(skipped["kind"]) == {"bandwidth", "latency", "spread"}
    assert set(skipped["reason"]) == {"not measured"}
    assert len(items[items["host"] == "good"]) == len(items[items["host"] == "bad"])


def test_cli_fleet_with_criteria(criteria, tmp_path, capsys):
    pytest.importorskip("distributed")
    crit = tmp_path / "a2.toml"
    crit.write_text(to_toml(criteria))
    status = main(
        [
            "fleet",
            "--local",
            "2",
            "--degrade",
            "sim-1:2-5:0.5",
            "--criteria",
            str(crit),
            "--sizes",
            "1MiB",
            "--samples",
            "2",
            "--no-progress",
            "--format",
            "json",
            "--attempts",
            "3",
            "--fail-at",
            "2",
            "--history",
            str(tmp_path / "h.db"),
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert status == 1
    # what the verdict judged against, as check names it (issue 37)
    assert (data["server"], data["criteria_source"]) == ("atlas800t-a2 (preset)", f"file {crit}")
    failing = data["criteria"]["failing_items"]
    assert list(failing) == ["sim-1"] and "bandwidth uni pull 2->5" in failing["sim-1"]
    again = data["criteria"]["measured_again"]  # n-of-m on the host: slow every time
    assert list(again) == ["sim-1"]
    assert {"id": "bandwidth uni pull 2->5", "status": "FAIL", "attempts": 2, "failures": 2} in (
        again["sim-1"]
    )
    records = HistoryStore(tmp_path / "h.db").read()  # --history: each host, its own runs
    assert set(records["host"]) == {"sim-0", "sim-1"} and set(records["command"]) == {"fleet"}
    judged = records[records["item"] == "bandwidth uni pull 2->5"].set_index("host")["verdict"]
    assert judged.to_dict() == {"sim-0": "PASS", "sim-1": "FAIL"}
    assert records[records["item"] == "pair uni on pull 2->5 1 MiB"]["host"].nunique() == 2
    assert [(o["host"], o["src"], o["dst"]) for o in data["outliers"]] == [("sim-1", 2, 5)]


def test_cli_fleet_bad_criteria_is_bad_input(tmp_path, capsys):
    pytest.importorskip("distributed")
    bad = tmp_path / "bad.toml"
    bad.write_text("schema_version = 1\n[topology\n")
    assert main(["fleet", "--local", "2", "--criteria", str(bad)]) == 2
    assert f"{bad}:2: malformed TOML" in capsys.readouterr().err


def test_scale_benchmark_finds_exactly_the_degraded_hosts(capsys, monkeypatch):
    """benchmarks/check_scale.py at 12 hosts: its synthetic fleet and its assertions (its
    time and memory budgets are the benchmark's: here the worker's peak memory is that
    of every test it ran before, and its time the machine's load)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "check_scale.py"
    spec = importlib.util.spec_from_file_location("check_scale", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    monkeypatch.setattr(bench, "TARGET_S", float("inf"))
    monkeypatch.setattr(bench, "TARGET_BYTES", float("inf"))
    base, _ = bench.one_run(0)
    frame, bad = bench.synthesize(base, 12, 3, 0)
    assert len(frame) == 12 * len(base) and len(bad) == 3
    one = frame[frame["host"] == "host-0005"].reset_index(drop=True)
    assert not one["bandwidth_GBps"].equals(base["bandwidth_GBps"])  # resampled
    assert set(one["bandwidth_GBps"].dropna()) <= set(base["bandwidth_GBps"].dropna())
    assert bench.main(["--hosts", "12", "--degraded", "3"]) == 0
    assert "**met**" in capsys.readouterr().out


def test_a_host_with_another_device_count_fails_device_count():
    import pandas as pd

    items = pd.DataFrame({"host": ["a"], "status": ["FAIL"], "id": ["peer_access 0->1"]})
    assert failing_by_host(items, {"a": 8, "b": 16, "c": None}, 8) == {
        "a": ["peer_access 0->1"],
        "b": ["device_count 16 / 8"],
    }


def test_a_host_whose_items_were_all_skipped_fails_as_a_check_does():
    """Nothing judged is no pass, per host too: ``a`` passes one item, ``b`` fails one,
    ``c`` has three, all skipped."""
    import pandas as pd

    items = pd.DataFrame(
        {
            "host": ["a", "a", "b", "c", "c", "c"],
            "status": ["PASS", "SKIP", "FAIL", "SKIP", "SKIP", "SKIP"],
            "id": ["latency 0->1", "latency 1->0", "latency 0->1", "x", "y", "z"],
        }
    )
    assert failing_by_host(items) == {
        "b": ["latency 0->1"],
        "c": ["no item judged: all 3 skipped"],
    }


@pytest.mark.parametrize("strict", [False, True])
def test_cli_fleet_a_host_with_only_warned_items_is_warn(criteria, tmp_path, capsys, strict):
    """sim-1's link 2->5 at half speed against criteria whose bandwidth and aggregate
    items are of severity warn (a second, overlay file): sim-1 WARNs, sim-0 passes; the
    fleet exits 0 (no outlier below 0.4 of its class), 1 with --strict. About 6 s each: a
    LocalCluster of two worker processes, as the test above."""
    pytest.importorskip("distributed")
    crit, warn = tmp_path / "a2.toml", tmp_path / "warn.toml"
    crit.write_text(to_toml(criteria))
    warn.write_text(
        'schema_version = 1\noverlay = true\n[severity]\nbandwidth = "warn"\naggregate = "warn"\n'
    )
    argv = ["fleet", "--local", "2", "--degrade", "sim-1:2-5:0.5", "--threshold", "0.4"]
    argv += ["--criteria", str(crit), "--criteria", str(warn), "--sizes", "1MiB"]
    argv += ["--samples", "2", "--no-progress"]
    if not strict:  # the table: the warned items apart from the failing ones
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert f"criteria {crit}, {warn}: warned (severity warn) items per host:\n  sim-1: " in out
        assert "failing items per host" not in out
    status = main([*argv, "--format", "json", *(["--strict"] if strict else [])])
    data = json.loads(capsys.readouterr().out)
    assert status == (1 if strict else 0) and data["outliers"] == []
    got = data["criteria"]
    assert got["verdicts"] == {"sim-0": "PASS", "sim-1": "WARN"} and got["failing_items"] == {}
    assert "bandwidth uni pull 2->5" in got["warned_items"]["sim-1"]
    assert "bandwidth uni pull 5->2" not in got["warned_items"]["sim-1"]
    assert got["files"] == [str(crit), str(warn)]
