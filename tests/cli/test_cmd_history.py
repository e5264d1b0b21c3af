"""The history command, and --history on the commands that measure (issue 39)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from helpers import run_cli

from ascend_p2p_lab.history import HistoryStore

CHECK = ["check", "--backend", "sim", "--devices", "0,1", "--no-progress"]


def test_check_and_sweep_append_and_history_shows_them(tmp_path, capsys) -> None:
    db = tmp_path / "h.db"
    assert run_cli(capsys, *CHECK, "--history", str(db))[0] == 0
    assert run_cli(capsys, *CHECK, "--history", str(db), "--seed", "3")[0] == 0
    sweep = ["sweep", "--backend", "sim", "--pairs", "1-0", "--sizes", "1MiB"]
    assert run_cli(capsys, *sweep, "--no-progress", "--history", str(db))[0] == 0
    code, out, _ = run_cli(capsys, "history", str(db), "--format", "json")
    assert code == 0
    items = {i["item"]: i for i in json.loads(out)["items"]}
    assert set(items["bandwidth uni pull 0->1"]) == {"host", "item", "values", "baseline", "drift"}
    values = items["bandwidth uni pull 0->1"]["values"]
    assert [v["verdict"] for v in values] == ["PASS", "PASS"]
    assert values[0]["value"] != values[1]["value"]  # two seeds, two runs
    assert [v["verdict"] for v in items["pair uni on pull 1->0 1 MiB"]["values"]] == [None]
    assert "pair uni on pull 0->1 1 MiB" not in items
    records = HistoryStore(db).read()
    assert records["run_id"].nunique() == 3 and set(records["command"]) == {"check", "sweep"}
    assert set(records["model"]) == {"atlas800t-a2"}
    code, out, _ = run_cli(capsys, "history", str(db), "--item", "pull 0->1")
    assert "bandwidth uni pull 0->1" in out and "1->0" not in out.split("drift rule")[0]


def _drifting_store(path: Path) -> None:
    store = HistoryStore(path)
    for day in range(14):
        recs = pd.DataFrame(
            {
                "item": ["steady", "sinking"],
                "value": [20.0, 20.0 if day < 10 else 17.0],
                "unit": "GB/s",
                "verdict": "PASS",
            }
        )
        store.append(
            recs,
            run_id=f"r{day}",
            command="check",
            host="a2",
            model="m",
            time=f"2026-01-{day + 1:02d}T00:00:00+00:00",
        )


def test_history_drift_names_the_item_exits_1_and_draws_it(tmp_path, capsys) -> None:
    db = tmp_path / "h.db"
    _drifting_store(db)
    code, out, _ = run_cli(capsys, "history", str(db), "--drift", "--plot", str(tmp_path / "p"))
    assert code == 1
    assert "sinking" in out and "DRIFT down -15.0% since 2026-01-12" in out
    assert "steady" not in out.split("drift rule")[0]
    assert [p.name for p in (tmp_path / "p").iterdir()] == ["a2_sinking.png"]
    code, out, _ = run_cli(
        capsys, "history", str(db), "--drift", "--since", "2026-01-05", "--format", "json"
    )
    data = json.loads(out)  # from the 5th: the baseline is days 5 to 14, no drift yet
    assert code == 0 and data["items"] == [] and "median of the last 3" in data["rule"]["text"]


@pytest.mark.parametrize("kind", ["damaged", "foreign", "missing"])
def test_a_store_that_is_none_is_bad_input_naming_it(kind, tmp_path, capsys) -> None:
    db = tmp_path / f"{kind}.db"
    if kind == "damaged":
        db.write_bytes(os.urandom(4096))
    elif kind == "foreign":
        with sqlite3.connect(db) as con:
            con.execute("CREATE TABLE other (x)")
    code, _, err = run_cli(capsys, "history", str(db))
    assert code == 2 and err.count("\n") == 1 and str(db) in err
    if kind != "missing":  # before any device work: nothing measured, nothing appended
        code, out, err = run_cli(capsys, *CHECK, "--history", str(db))
        assert code == 2 and out == "" and str(db) in err and err.count("\n") == 1


def test_a_bad_since_is_bad_input(tmp_path, capsys) -> None:
    _drifting_store(tmp_path / "h.db")
    code, _, err = run_cli(capsys, "history", str(tmp_path / "h.db"), "--since", "yesterday")
    assert code == 2 and "--since yesterday: not a date" in err


def test_two_check_processes_appending_at_once_lose_no_rows(tmp_path) -> None:
    """Two real `check --history` processes on one store at the same time (~4 s: two
    interpreters, two checks)."""
    db = tmp_path / "h.db"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    argv = [sys.executable, "-m", "ascend_p2p_lab.cli", *CHECK, "--history", str(db)]
    procs = [
        subprocess.Popen([*argv, "--seed", str(s)], env=env, stdout=subprocess.DEVNULL)
        for s in (1, 2)
    ]
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    records = HistoryStore(db).read()
    per_run = records.groupby("run_id").size()
    assert len(per_run) == 2 and per_run.nunique() == 1 and per_run.iloc[0] > 20


def test_the_table_is_printed_as_before_the_one_printer(tmp_path, capsys) -> None:
    """Issue 41 item 4: through texttable, byte for byte what 0ed824f printed."""
    _drifting_store(tmp_path / "h.db")
    code, out, _ = run_cli(capsys, "history", str(tmp_path / "h.db"))
    assert code == 0
    assert out.split("\n\n")[0].splitlines() == [
        "a2  sinking                                    14 values, last 17 GB/s  "
        "baseline 20 [19, 21]  DRIFT down -15.0% since 2026-01-12",
        "a2  steady                                     14 values, last 20 GB/s  "
        "baseline 20 [19, 21]",
    ]
