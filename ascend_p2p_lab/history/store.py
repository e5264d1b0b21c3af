"""The history store: what was measured and judged, appended run after run, in SQLite.

Why SQLite (the standard library's ``sqlite3``): it needs no server and no package, a
store is one file that a notebook, ``sqlite3`` on the command line or pandas read, and
it is safe for several writers: in WAL mode readers never block the writer, and a writer
waits for another (``busy_timeout``) instead of failing. Each append is one
transaction (``BEGIN IMMEDIATE``: the write lock taken at the start), so two hosts or
two processes appending at once lose nothing and never see half of another's run.
DuckDB over Parquet reads faster for analytics but allows one writing process per file;
a fleet's history at scale belongs in Prometheus or a warehouse (docs/history.md).

A store is recognised by SQLite's ``application_id`` (:data:`APPLICATION_ID`); a file
that is not SQLite, or a SQLite file of another application, is refused with
:class:`HistoryError` naming the file (the command's exit 2).

Example:
    >>> import tempfile, os, pandas as pd
    >>> path = os.path.join(tempfile.mkdtemp(), "h.db")
    >>> store = HistoryStore(path)
    >>> store.append(pd.DataFrame({"item": ["x"], "value": [1.5], "verdict": ["PASS"]}),
    ...              run_id="r1", command="check", host="a", model="m", time="2026-01-01T00:00:00Z")
    1
    >>> store.read()[["host", "item", "value", "verdict"]].values.tolist()
    [['a', 'x', 1.5, 'PASS']]
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd

#: SQLite's application_id of a history store ("A2PH" in ASCII)
APPLICATION_ID = 0x41325048
#: how long a writer waits for another's transaction, milliseconds
BUSY_TIMEOUT_MS = 30_000
#: the columns of one record, in order (item columns may be empty)
COLUMNS = (
    "run_id",
    "command",
    "host",
    "model",
    "time",
    "item",
    "kind",
    "pattern",
    "src",
    "dst",
    "device",
    "grp",
    "direction",
    "initiator",
    "size_bytes",
    "value",
    "unit",
    "bound",
    "verdict",
)
_TYPES = {"src": "INTEGER", "dst": "INTEGER", "device": "INTEGER", "size_bytes": "INTEGER"}
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS records ("
    + ", ".join(f"{c} {_TYPES.get(c, 'REAL' if c == 'value' else 'TEXT')}" for c in COLUMNS)
    + ");\nCREATE INDEX IF NOT EXISTS records_item ON records (host, item, time);"
)


class HistoryError(ValueError):
    """A file that is no history store (damaged, or another application's)."""


class HistoryStore:
    """One history store file (created when missing)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        with self._connect() as con:
            try:
                app = con.execute("PRAGMA application_id").fetchone()[0]
                if app == 0:  # maybe a new (or empty) file: make it a store, once
                    con.execute("BEGIN IMMEDIATE")  # two processes making it: one does
                    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master")}
                    app = con.execute("PRAGMA application_id").fetchone()[0]
                    if app == 0 and not tables:
                        con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                        for statement in _SCHEMA.split(";\n"):
                            con.execute(statement)
                        app = APPLICATION_ID
                    con.execute("COMMIT")
                if app == APPLICATION_ID:
                    con.execute("PRAGMA journal_mode = WAL")  # once set, kept in the file
                else:
                    raise HistoryError(
                        f"{self.path}: a SQLite database of another application, "
                        "not an ascend-p2p-lab history store"
                    )
            except sqlite3.DatabaseError as exc:
                raise HistoryError(f"{self.path}: not a history store ({exc})") from None

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        if self.path.is_dir():
            raise HistoryError(f"{self.path}: is a folder, not a history store")
        try:
            con = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        except sqlite3.Error as exc:
            raise HistoryError(f"{self.path}: cannot open ({exc})") from None
        try:
            con.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            yield con
        finally:
            con.close()

    def append(
        self,
        records: pd.DataFrame,
        *,
        run_id: str,
        command: str,
        host: str,
        model: str | None,
        time: str,
    ) -> int:
        """Append one run's records (columns of :data:`COLUMNS`; the run's fields given
        here fill the rest), in one transaction; how many."""
        frame = records.copy()
        given = {"run_id": run_id, "command": command, "host": host, "model": model, "time": time}
        for c in COLUMNS:
            if c not in frame:
                frame[c] = given.get(c)
        rows = [
            tuple(
                None if pd.isna(v) else (int(v) if c in _TYPES else v) for c, v in zip(COLUMNS, r)
            )
            for r in frame[list(COLUMNS)].astype(object).itertuples(index=False, name=None)
        ]
        marks = ", ".join("?" * len(COLUMNS))
        with self._connect() as con:
            try:
                con.execute("BEGIN IMMEDIATE")
                con.executemany(f"INSERT INTO records VALUES ({marks})", rows)
                con.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                if con.in_transaction:
                    con.execute("ROLLBACK")
                raise HistoryError(f"{self.path}: cannot append ({exc})") from None
        return len(rows)

    def read(
        self, host: str | None = None, since: str | None = None, model: str | None = None
    ) -> pd.DataFrame:
        """The records (of ``host``, of ``model``, from ``since`` on: an ISO date or time),
        oldest first."""
        where, params = [], []
        for col, value, op in (("host", host, "="), ("model", model, "="), ("time", since, ">=")):
            if value is not None:
                where.append(f"{col} {op} ?")
                params.append(value)
        sql = "SELECT * FROM records" + (" WHERE " + " AND ".join(where) if where else "")
        with self._connect() as con:
            try:
                frame = pd.read_sql_query(sql + " ORDER BY time, rowid", con, params=params)
            except (sqlite3.DatabaseError, pd.errors.DatabaseError) as exc:
                raise HistoryError(f"{self.path}: cannot read ({exc})") from None
        return frame.astype({c: "Int64" for c in _TYPES})
