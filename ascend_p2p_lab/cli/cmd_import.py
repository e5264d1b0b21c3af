"""The ``import`` command: ascend-dmi and hccl_test output into a run folder.

``import dmi FILE... --out DIR [--size SIZE] [--type KIND] [--card]`` and
``import hccl-test FILE... [--ranks N] [--op NAME] --out DIR`` parse every file first,
then write one run folder (``run.folder.save``) that ``report``, ``compare`` and
``calibrate`` read. Exit status: :data:`IMPORT_EPILOG`.

Example:
    $ ascend-p2p-lab import dmi p2p.txt topo.txt --size 256MiB --out run-dmi
    $ ascend-p2p-lab import hccl-test all_reduce_8p.log --out run-hccl
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..units import parse_size
from ..vocab import EXIT_FAILED, EXIT_OK
from .exitstatus import EXIT_USAGE, bad_input, past_input_checks
from .options import Parser, add_out, add_preset, subcommand

#: The command this module adds and runs.
NAME = "import"

IMPORT_HELP = "bring ascend-dmi or hccl_test output in as a run folder"
IMPORT_EPILOG = f"""\
exit status:
  {EXIT_OK}    the run folder was written
  {EXIT_FAILED}    the tool reported an error in its output (ascend-dmi's {{"error": {{"code",
       "description"}}}}, even when it exited 0); its code is printed; nothing written
  {EXIT_USAGE}    bad input: not such output, truncated, a matrix missing a row, a unit that
       does not parse (FILE:LINE: what), or --out holds a run; nothing written
"""


def add(sub: Any) -> None:
    """``import dmi`` and ``import hccl-test`` with their options."""
    p = subcommand(sub, NAME, IMPORT_HELP)
    p.epilog = IMPORT_EPILOG
    kinds = p.add_subparsers(dest="tool", required=True, parser_class=Parser)
    d = kinds.add_parser(
        "dmi",
        help="ascend-dmi --bw text or JSON, --dg JSON, and a --topo "
        "(npu-smi info -t topo) capture for link classes",
        epilog=IMPORT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    d.add_argument("files", nargs="+", type=Path, metavar="FILE", help="captured output")
    d.add_argument(
        "--size",
        default=None,
        help="copy size of p2p matrices that do not state it, e.g. 256MiB (DMI's "
        "full matrix runs at a fixed size it does not print; default: the "
        "capture's -s, else required for a matrix)",
    )
    d.add_argument(
        "--type",
        dest="kind",
        choices=["h2d", "d2h", "d2d", "p2p"],
        default=None,
        help="direction of tables the capture does not name (default: from the capture)",
    )
    d.add_argument(
        "--card",
        action="store_true",
        default=None,
        help="the matrices are card x card (-m card; default: from the capture's command line)",
    )
    _common(d)
    h = kinds.add_parser(
        "hccl-test",
        help="hccl_test tables (data_size | aveg_time | alg_bandwidth | check_result)",
        epilog=IMPORT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    h.add_argument("files", nargs="+", type=Path, metavar="FILE", help="captured output")
    h.add_argument(
        "--ranks",
        type=int,
        default=None,
        help="rank count (default: mpirun -n or -p on the capture's command "
        "line, else the file name, e.g. all_reduce_8p.txt)",
    )
    h.add_argument(
        "--op",
        default=None,
        help="operation: all_reduce, all_gather, reduce_scatter, all_to_all, "
        "broadcast, reduce, scatter (default: from the command line or file "
        "name)",
    )
    _common(h)


def _common(p: argparse.ArgumentParser) -> None:
    add_preset(
        p,
        "the server the captures come from (a preset name): run.json records "
        "its device count, and its link classes name each pair's (default: "
        "a topology capture among the files, else unknown)",
    )
    add_out(p, "the run folder to write", "replace the run in --out", required=True)


def run(args: argparse.Namespace) -> int:
    """Parse every file, then write the run folder (nothing on any error)."""
    from ..imports import ToolReportedError, import_dmi, import_hccl_test
    from ..run import Run
    from ..run.folder import check_out_dir, save

    check_out_dir(args.out, overwrite=args.overwrite)
    try:
        if args.tool == "dmi":
            size = None
            if args.size is not None:
                with bad_input("--size: "):
                    size = parse_size(args.size)
            run = Run.of(
                import_dmi(
                    args.files, size=size, kind=args.kind, card=args.card, preset=args.preset
                )
            )
        else:
            run = Run.of(
                import_hccl_test(args.files, ranks=args.ranks, op=args.op, preset=args.preset)
            )
    except ToolReportedError as exc:
        print(f"ascend-p2p-lab: {exc} (nothing written)", file=sys.stderr)
        return EXIT_FAILED
    for line in run.meta.warnings:
        print(f"ascend-p2p-lab: warning: {line}", file=sys.stderr)
    with past_input_checks():
        save(run, args.out, replace=True)
        _print_summary(run, args.out)
    return EXIT_OK


def _print_summary(run: Any, out: Path) -> None:
    meta, run = run.meta, run.samples
    print(
        f"wrote {out}: {len(run)} rows from {len(meta.sources)} file"
        f"{'s' if len(meta.sources) != 1 else ''} ({meta.backend})"
    )
    for op, part in run.groupby("operation", dropna=False, sort=True):
        what = ", ".join(sorted({str(p) for p in part["pattern"].dropna()})) or "-"
        print(f"  {op}: {len(part)} rows (pattern {what})")
    failed = run[run["check_result"] == "failed"]
    if len(failed):
        print(f"  {len(failed)} rows the tool's check marked failed")
    sys.stdout.flush()
