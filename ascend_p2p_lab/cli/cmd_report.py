"""The ``report`` command: a saved run's summary (or JSON) on stdout, and its
``summary.csv`` and figures in the run folder (or ``--out``).

Example:
    $ ascend-p2p-lab report run1
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .exitstatus import UsageError, bad_input, past_input_checks
from .options import MAX_HISTORY_FIGURES, add_format, add_out, add_report_history, subcommand

#: The command this module adds and runs.
NAME = "report"


def run(args: argparse.Namespace) -> int:
    from ..run.folder import check_out_dir, load, run_info
    from .output import output_for
    from .runoutput import emit_run, write_report

    out = args.out or args.run_dir
    if args.out is not None:
        check_out_dir(out, overwrite=True)  # figures go there; a run there must be this one
        other = run_info(out).get("run_id")
        if other is not None and other != run_info(args.run_dir).get("run_id"):
            raise UsageError(f"--out {out}: holds another run ({other}); choose another folder")
    run, output = load(args.run_dir), output_for(args.format)
    history = _history(args, run.meta.run_id)
    with past_input_checks():
        status = emit_run(run, output, None, read_from=args.run_dir)
        write_report(run, out, output=output, history=history)
        return status


def _history(args: argparse.Namespace, run_id: str | None) -> Any:
    """With --history DB: the trends of the run's items in DB (``history.of_run``, with
    their units), before anything is written; a run DB does not hold, an --item that
    matches none, or too many items: exit 2."""
    if args.history is None:
        if args.item is not None:
            raise UsageError("--item: only with --history DB")
        return None
    from ..history import HistoryError, HistoryStore, of_run

    if not args.history.is_file():
        raise UsageError(f"--history {args.history}: no such history store")
    with bad_input(kind=HistoryError):
        records = HistoryStore(args.history).read()
    if run_id is None or not records["run_id"].eq(run_id).any():
        raise UsageError(
            f"--history {args.history}: no record of run {run_id} "
            f"(was it run with --history {args.history}?)"
        )
    table = of_run(records, run_id, args.item)
    if table.empty:
        raise UsageError(f"--item {args.item}: no item of run {run_id} contains it")
    if len(table) > MAX_HISTORY_FIGURES:
        raise UsageError(
            f"--history {args.history}: run {run_id} recorded {len(table)} items; choose at "
            f"most {MAX_HISTORY_FIGURES} with --item TEXT"
        )
    units = records.drop_duplicates(["host", "item"]).set_index(["host", "item"])["unit"]
    return table, units


def add(sub: Any) -> None:
    """``report``: its options."""
    p = subcommand(
        sub,
        NAME,
        "figures and a summary of a saved run (replaces the figures of an earlier report of it)",
    )
    p.add_argument("run_dir", type=Path, help="a run folder, as `sweep --out` writes it")
    add_out(p, "folder for figures (default RUN_DIR)")
    add_format(p, "the summary and every N x N matrix", "; the figures are written either way")
    add_report_history(p)
