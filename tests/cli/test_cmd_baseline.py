"""The baseline command: criteria from a history store's last healthy runs (issue 39)."""

from __future__ import annotations

import sqlite3

import pytest
from helpers import a2_file, run_cli

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.check import criteria_from_preset, load_criteria, run_check
from ascend_p2p_lab.history import HistoryStore, check_records

DEVICES = (0, 2, 5)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Ten healthy checks of host a2-01 on devices 0, 2, 5, then one that failed (its
    values left out of the baseline), then a healthy run of another host with 0 -> 2 at
    0.93 (~3 s: twelve simulated checks)."""
    path = tmp_path_factory.mktemp("history") / "h.db"
    store = HistoryStore(path)
    criteria = criteria_from_preset("atlas800t-a2")
    runs = [("a2-01", 100 + i, []) for i in range(10)]
    runs += [("a2-01", 50, [{"kind": "degrade", "link": [5, 0], "factor": 0.5}])]
    runs += [("a2-02", 60, [{"kind": "degrade", "link": [0, 2], "factor": 0.93}])]  # passes
    for day, (host, seed, faults) in enumerate(runs):
        with open_runtime("sim", "atlas800t-a2", seed=seed, faults=faults, announce=False) as rt:
            items = run_check(rt, criteria, DEVICES).items
        store.append(
            check_records(items),
            run_id=f"r{day}",
            command="check",
            host=host,
            model="atlas800t-a2",
            time=f"2026-01-{day + 1:02d}T00:00:00+00:00",
        )
    return path


def test_a_baseline_passes_a_healthy_run_and_fails_exactly_the_slow_link(store, tmp_path, capsys):
    """ten healthy runs -> baseline -> check --criteria: a healthy run passes; link 2 -> 5
    at 0.85 fails its pull items (its push runs at 0.755 of the healthy rate, below 0.85:
    a degrade of 0.85 leaves it as it is, docs/simulator.md)."""
    out = tmp_path / "base.toml"
    code, text, _ = run_cli(capsys, "baseline", str(store), "--host", "a2-01", "--out", str(out))
    assert code == 0 and "from the last 10 healthy runs of host a2-01" in text
    crit = load_criteria(out)
    t = crit.table
    row = t[(t["src"] == 5) & (t["dst"] == 0) & (t["initiator"] == "dst")]
    assert (
        len(row) == 2 and (row["value"] > 20).all()
    )  # the failed run (5 -> 0 at half speed) is not in it
    assert "median" in row["basis"].iloc[0] and "10 healthy runs" in row["basis"].iloc[0]
    argv = [
        "check",
        "--criteria",
        str(out),
        "--backend",
        "sim",
        "--devices",
        "0,2,5",
        "--no-progress",
        "--failing",
        "--seed",
        "7",
    ]
    code, text, _ = run_cli(capsys, *argv, "--preset", "atlas800t-a2")
    assert code == 0, text
    slow = a2_file(tmp_path, "a2-slow", ['kind = "degrade"\nlink = [2, 5]\nfactor = 0.85'])
    code, text, _ = run_cli(capsys, *argv, "--topology", str(slow))
    failing = sorted(
        ln.split("  ")[1].strip() for ln in text.splitlines() if ln.startswith("FAIL  ")
    )
    assert code == 1 and failing == ["bandwidth bi pull 2->5", "bandwidth uni pull 2->5"]


def test_a_models_baseline_takes_every_hosts_healthy_runs(store, tmp_path, capsys):
    out = tmp_path / "model.toml"
    code, text, _ = run_cli(
        capsys, "baseline", str(store), "--model", "atlas800t-a2", "--out", str(out), "--runs", "3"
    )
    assert code == 0 and "last 3 healthy runs of model atlas800t-a2" in text
    crit = load_criteria(out)
    t = crit.table
    row = t[(t["src"] == 0) & (t["dst"] == 2) & (t["initiator"] == "dst")]
    assert len(row) == 2 and row["value"].min() < 24.5  # a2-02: 0 -> 2 at 0.93 (a2-01: 24.8)


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--host", "nobody"], "no record of host nobody"),
        (["--host", "a2-01", "--tolerance", "1.5"], "--tolerance 1.5"),
    ],
)
def test_bad_baselines_are_bad_input(store, extra, match, tmp_path, capsys):
    code, _, err = run_cli(capsys, "baseline", str(store), *extra, "--out", str(tmp_path / "x"))
    assert code == 2 and match in err and err.count("\n") == 1


def test_a_foreign_store_is_bad_input_naming_it(tmp_path, capsys):
    db = tmp_path / "other.db"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE t (x)")
    code, _, err = run_cli(capsys, "baseline", str(db), "--host", "h", "--out", str(tmp_path / "x"))
    assert code == 2 and str(db) in err
