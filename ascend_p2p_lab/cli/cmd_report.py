"""The ``report`` command: a saved run's summary (or JSON) on stdout, and its
``summary.csv`` and figures in the run folder (or ``--out``).

Example:
    $ ascend-p2p-lab report run1
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .exitstatus import UsageError, past_input_checks
from .options import add_format, add_out, subcommand

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
    with past_input_checks():
        status = emit_run(run, output, None, read_from=args.run_dir)
        write_report(run, out, output=output)
        return status


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
