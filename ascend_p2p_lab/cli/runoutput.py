"""What the commands that measure a run (``sweep``, ``demo``, ``run``) do around it:
output paths checked before any device work, the run kept when it stopped on an error,
saved, printed as a summary with matrices or as JSON, and reported (``report``,
``demo``: summary.csv and the figures).

Example:
    >>> from ascend_p2p_lab.cli.runoutput import keep
    >>> keep(None, None)  # no --out: nothing saved
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..matrices import matrices_json
from ..results import failures, summarize
from ..run import Run
from ..run.folder import check_out_dir, check_out_file, clear_report, save, write_manifest
from ..terminal import EXIT_FAILED, EXIT_INTERRUPTED, print_summary, run_status
from .exitstatus import past_input_checks
from .output import Output, output_for


def check_sweep_out(args: argparse.Namespace) -> None:
    """Every output path of a sweep, checked before any device work (``run/folder.py``:
    resuming into the run the checkpoint continues needs no --overwrite)."""
    from ..measure.checkpoint import checkpoint_run_ids  # the measurement layer: not for report

    if args.out is not None:
        continues = checkpoint_run_ids(args.checkpoint) if args.checkpoint is not None else ()
        check_out_dir(args.out, overwrite=args.overwrite, continues=continues)
    if args.checkpoint is not None:
        check_out_file(args.checkpoint, "--checkpoint")


def kept(measure: Callable[..., Run], *args: Any, **kwargs: Any) -> Run:
    """``measure(*args, **kwargs)`` (sweep, run_tests), or the run it kept when it stopped
    on an error after it had started (its metadata then says why, and the exit status is 1)."""
    try:
        return measure(*args, **kwargs)
    except Exception as exc:
        partial = getattr(exc, "partial_run", None)
        if partial is None or not partial.meta.run_id:
            raise
        return partial


def keep(run: Run, out: Path | None) -> None:
    """The run saved into ``out`` (atomic; what described an earlier run there goes, and a
    checkpoint that holds the whole run is removed): ``run/folder.py``."""
    if out is not None:
        save(run, out, replace=True)


def emit_run(run: Any, out: Output | str, saved: Path | None, read_from: Path | None = None) -> int:
    """The run on stdout (the summary and its matrices, or JSON: ``out``); its exit status.

    ``read_from``: the run was loaded from that folder (``report``), not measured: an
    interrupted run is then an incomplete run (1), not an interrupted command (130).
    """
    out, run = output_for(out), Run.of(run)
    status = run_status(run)
    if read_from is not None and status == EXIT_INTERRUPTED:
        status = EXIT_FAILED
    out.json(
        lambda: {
            **matrices_json(run),
            "exit_status": status,
            "points_not_reached": run.meta.points_not_reached,
            "saved_to": None if saved is None else str(saved),
            **({} if read_from is None else {"read_from": str(read_from)}),
            "failures": json.loads(failures(run).to_json(orient="records")),
        }
    )
    out.table(lambda: print_summary(run, saved, matrices=True, read_from=read_from))
    return status


def finish(
    run: Run,
    args: argparse.Namespace,
    history: Any,
    command: str,
    emit: Callable[..., int] = emit_run,
) -> int:
    """The measured run saved into ``args.out``, on stdout (``emit`` in ``args.format``) and
    appended to ``history`` (sweep, run, collectives); its exit status."""
    from .historyopt import append_run  # the history store: not for report and demo

    with past_input_checks():
        keep(run, args.out)
        status = emit(run, args.format, args.out)
        append_run(history, run, command)
        return status


def write_report(
    run: Run, out: Path, table: Any = None, *, output: Output | None = None, history: Any = None
) -> None:
    """summary.csv and the figures of a run into out, replacing an earlier report there
    (the list of files a note of ``output``: on stderr under JSON; ``history``: a trends
    table and its units, drawn as history_*.png)."""
    say = (output or Output()).note
    out.mkdir(parents=True, exist_ok=True)
    clear_report(out)
    summarize(run).to_csv(out / "summary.csv", index=False)
    written = [out / "summary.csv"]
    try:
        from .. import plots  # the plot extra: optional
    except ImportError as exc:
        say(f"\nno figures: {exc} (pip install 'ascend-p2p-lab[plot]')")
        write_manifest(out, run.meta.run_id, written)
        return
    paths = plots.report(run, out, table=table, workers=plots.default_workers())
    if history is not None:
        paths += plots.write_item_histories(history[0], out, history[1], prefix="history_")
    write_manifest(out, run.meta.run_id, [*written, *paths])
    say(
        f"\nwrote {out / 'summary.csv'} and {len(paths)} figure{'' if len(paths) == 1 else 's'}"
        f"{':' if paths else ''}"
    )
    for p in paths:
        say(f"  {p}")
