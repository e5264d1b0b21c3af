"""The ``baseline`` command: criteria from a history store's last healthy runs.

``baseline DB (--host H | --model M) --out FILE [--runs N] [--tolerance F]`` writes a
criteria file (``check --criteria FILE`` reads it) whose bars are each item's median over
the host's (or the model's) last healthy check runs, less a stated tolerance
(``ascend_p2p_lab.history.baseline``).

Example:
    $ ascend-p2p-lab baseline history.db --host atlas01 --out atlas01.toml
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..vocab import BASELINE_TOLERANCE
from .exitstatus import UsageError, bad_input, past_input_checks
from .options import add_out, subcommand

#: The command this module adds and runs.
NAME = "baseline"

BASELINE_HELP = "write criteria from a history store's last healthy check runs (per item)"


def add(sub: Any) -> None:
    """``baseline``: its options."""
    p = subcommand(sub, NAME, BASELINE_HELP)
    p.add_argument("db", type=Path, metavar="DB", help="a history store (see --history)")
    whose = p.add_mutually_exclusive_group(required=True)
    whose.add_argument("--host", default=None, help="the runs of this host")
    whose.add_argument(
        "--model", default=None, help="the runs of every host of this server model (a preset)"
    )
    add_out(p, "the criteria file", "replace FILE if it exists", required=True, metavar="FILE")
    p.add_argument("--runs", type=int, default=10, help="the last N healthy runs (default 10)")
    p.add_argument(
        "--tolerance",
        type=float,
        default=BASELINE_TOLERANCE,
        help=f"the least margin below each median, 0 < F < 1 (default {BASELINE_TOLERANCE}); "
        "an item whose runs spread more gets 4 spreads",
    )


def run(args: argparse.Namespace) -> int:
    """Read the store, write the criteria, say what they hold."""
    from ..check import to_toml
    from ..history import HistoryError, HistoryStore
    from ..history.baseline import baseline_criteria
    from ..run.folder import check_out_file
    from ..topology import list_presets

    if not 0 < args.tolerance < 1:
        raise UsageError(f"--tolerance {args.tolerance}: must be between 0 and 1")
    if args.runs < 1:
        raise UsageError(f"--runs {args.runs}: must be at least 1")
    if not args.db.is_file():
        raise UsageError(f"{args.db}: no such history store")
    if args.out.exists() and not args.overwrite:
        raise UsageError(f"--out {args.out}: exists; pass --overwrite to replace it")
    check_out_file(args.out, "--out")
    with bad_input(kind=HistoryError):
        records = HistoryStore(args.db).read(host=args.host, model=args.model)
    who = f"host {args.host}" if args.host is not None else f"model {args.model}"
    if records.empty:
        raise UsageError(f"{args.db}: no record of {who}")
    model = args.model or records["model"].dropna().iloc[-1]
    if model not in list_presets():
        raise UsageError(f"{who}: its model {model!r} is no preset ({', '.join(list_presets())})")
    with bad_input():
        criteria, ids = baseline_criteria(
            records, model, who, runs=args.runs, tolerance=args.tolerance
        )
    with past_input_checks():
        args.out.write_text(to_toml(criteria))
        print(
            f"wrote {args.out}: {len(criteria.table)} criteria from the last {len(ids)} "
            f"healthy runs of {who} (model {model}); tolerance at least {args.tolerance:.0%}"
        )
    return 0
