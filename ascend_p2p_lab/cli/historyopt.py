"""``--history DB``: the commands that measure append what they measured and judged to a
history store (``ascend_p2p_lab.history``; docs/history.md).

The store is opened (made, or checked to be one) before any device work, so a damaged
or foreign file is bad input (exit 2, one line naming it); the records go in after the
command's own output, one transaction per run.

Example:
    >>> import argparse
    >>> from .options import add_history
    >>> p = argparse.ArgumentParser(); add_history(p)
    >>> p.parse_args(["--history", "h.db"]).history.name
    'h.db'
"""

from __future__ import annotations

import argparse
import datetime as _dt
import socket
import sys
from typing import Any

from ..history import HistoryError, HistoryStore, check_records, run_records
from .exitstatus import bad_input


def open_history(args: argparse.Namespace) -> Any:
    """The store of ``--history`` (None without it); a file that is no store: exit 2."""
    path = getattr(args, "history", None)
    if path is None:
        return None
    with bad_input(kind=HistoryError):
        return HistoryStore(path)


def _model(meta: Any) -> str | None:
    return meta.preset or meta.topology or meta.soc_name


def append(store: Any, records: Any, meta: Any, command: str, host: str | None = None) -> None:
    """One run's records into the store (host: the records' own ``host`` column, else
    ``host``, else the run's host name); a store that fails now is said on stderr."""
    if store is None or records is None or not len(records):
        return
    now = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    try:
        store.append(
            records,
            run_id=meta.run_id or f"{command}-{now}",
            command=command,
            host=host or meta.fleet_host or meta.hostname or socket.gethostname(),
            model=_model(meta),
            time=meta.timestamp or now,
        )
    except HistoryError as exc:
        print(f"ascend-p2p-lab: --history: {exc}", file=sys.stderr)


def append_run(store: Any, run: Any, command: str) -> None:
    """A run's points (``history.run_records``), for sweep, run and collectives."""
    if store is None:
        return
    records = run_records(run)
    append(store, records.drop(columns=["host"], errors="ignore"), run.meta, command)


def append_items(store: Any, items: Any, meta: Any, command: str = "check") -> None:
    """A check's items (``history.check_records``)."""
    if store is None:
        return
    append(store, check_records(items), meta, command)
