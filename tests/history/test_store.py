"""ascend_p2p_lab.history.store: a SQLite store that keeps every append, and refuses
a file that is none."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

from ascend_p2p_lab.history import HistoryError, HistoryStore

RUN = {"command": "check", "model": "atlas800t-a2"}


def test_appends_come_back_in_time_order_with_their_run_fields(tmp_path) -> None:
    store = HistoryStore(tmp_path / "h.db")
    recs = pd.DataFrame(
        {"item": ["b", "a"], "value": [2.0, 1.0], "src": [2, 5], "verdict": ["FAIL", "PASS"]}
    )
    store.append(recs, run_id="r2", host="y", time="2026-01-02T00:00:00Z", **RUN)
    store.append(recs.iloc[:1], run_id="r1", host="x", time="2026-01-01T00:00:00Z", **RUN)
    got = store.read()
    assert got[["run_id", "host", "item", "value", "src", "verdict"]].values.tolist() == [
        ["r1", "x", "b", 2.0, 2, "FAIL"],
        ["r2", "y", "b", 2.0, 2, "FAIL"],
        ["r2", "y", "a", 1.0, 5, "PASS"],
    ]
    assert len(HistoryStore(tmp_path / "h.db").read(host="y", since="2026-01-02")) == 2
    assert store.read(since="2026-01-03").empty
    with sqlite3.connect(tmp_path / "h.db") as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_damaged_or_foreign_file_is_refused_naming_it(tmp_path) -> None:
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(b"this is not a database at all" * 200)
    with pytest.raises(HistoryError, match=f"^{damaged}: not a history store"):
        HistoryStore(damaged)
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as con:
        con.execute("CREATE TABLE t (x)")
    with pytest.raises(HistoryError, match=f"^{foreign}: a SQLite database of another"):
        HistoryStore(foreign)
    with pytest.raises(HistoryError, match="is a folder"):
        HistoryStore(tmp_path)


WRITER = textwrap.dedent(
    """
    import sys
    import pandas as pd
    from ascend_p2p_lab.history import HistoryStore
    store = HistoryStore(sys.argv[1])
    recs = pd.DataFrame({"item": [f"i{k}" for k in range(50)], "value": 1.0})
    for n in range(40):
        store.append(recs, run_id=f"{sys.argv[2]}-{n}", command="t", host=sys.argv[2],
                     model=None, time=f"2026-01-01T00:00:{n:02d}Z")
    """
)


def test_two_processes_appending_at_once_lose_nothing(tmp_path) -> None:
    """Two real processes, 40 appends of 50 records each, at the same time (~2 s: two
    interpreters)."""
    path = tmp_path / "h.db"
    HistoryStore(path)
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), host]) for host in ("a", "b")
    ]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    got = HistoryStore(path).read()
    assert len(got) == 2 * 40 * 50
    assert got.groupby("host")["run_id"].nunique().to_dict() == {"a": 40, "b": 40}
