"""The ``report`` command: a saved run's summary (or JSON) on stdout, and its
``summary.csv`` and figures in the run folder (or ``--out``).

Example:
    $ ascend-p2p-lab report run1
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .exitstatus import UsageError, past_input_checks
from .options import add_format, subcommand

if TYPE_CHECKING:
    from ..run import Run

#: The command this module adds and runs.
NAME = "report"


def run(args: argparse.Namespace) -> int:
    from ..run.folder import check_out_dir, load, run_info
    from .runoutput import emit_run

    out = args.out or args.run_dir
    if args.out is not None:
        check_out_dir(out, overwrite=True)  # figures go there; a run there must be this one
        other = run_info(out).get("run_id")
        if other is not None and other != run_info(args.run_dir).get("run_id"):
            raise UsageError(f"--out {out}: holds another run ({other}); choose another folder")
    run = load(args.run_dir)
    with past_input_checks():
        status = emit_run(run, args.format, None, read_from=args.run_dir)
        write_report(run, out, quiet=args.format == "json")
        return status


def write_report(run: Run, out: Path, table: Any = None, *, quiet: bool = False) -> None:
    """summary.csv and the figures of a run into out, replacing an earlier report there
    (``quiet``: the list of files on stderr, stdout holding JSON)."""
    import functools
    import sys

    from ..results import summarize
    from ..run.folder import clear_report, write_manifest

    say = functools.partial(print, file=sys.stderr if quiet else sys.stdout)
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
    write_manifest(out, run.meta.run_id, [*written, *paths])
    say(
        f"\nwrote {out / 'summary.csv'} and {len(paths)} figure{'' if len(paths) == 1 else 's'}"
        f"{':' if paths else ''}"
    )
    for p in paths:
        say(f"  {p}")


def add(sub: Any) -> None:
    """``report``: its options."""
    p = subcommand(
        sub,
        NAME,
        "figures and a summary of a saved run (replaces the figures of an earlier report of it)",
    )
    p.add_argument("run_dir", type=Path, help="a run folder, as `sweep --out` writes it")
    p.add_argument("--out", type=Path, default=None, help="folder for figures (default RUN_DIR)")
    add_format(p, "the summary and every N x N matrix", "; the figures are written either way")
