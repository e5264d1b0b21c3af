"""The command line's grammar: every subcommand, its options and defaults, and the exit
status every command documents in its help.

Example:
    >>> build_parser().parse_args(["sweep", "--pairs", "0-1"]).pairs
    '0-1'
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from .._version import __version__
from ..measure.spec import MAX_SAMPLE_US
from ..terminal import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK
from ..vocab import US_PER_MS

EXIT_USAGE = 2


DEMO_OUT = "ascend-p2p-demo"


EXIT_STATUS = f"""\
exit status:
  {EXIT_OK}    everything asked for was measured (pairs without P2P and direct copies the
       runtime refused with peer access off are results, not failures)
  {EXIT_FAILED}    a runtime failure, a missing pyACL call, a lost device or a data-verification
       failure cost data points (the rows are still saved; the summary says how many and
       why), or an internal error (one line; the traceback goes to a file)
  {EXIT_USAGE}    bad input, found before any device work
  {EXIT_INTERRUPTED}  interrupted with Ctrl-C (the rows measured so far are kept)
"""


class UsageError(Exception):
    """A bad argument or input file: one line, exit code 2."""


class InternalError(Exception):
    """An unexpected error once the input was accepted: a bug, exit code 1."""


#: The longest sample --min-sample-ms may ask for (the sweep's own limit, in ms).
MAX_SAMPLE_MS = MAX_SAMPLE_US / US_PER_MS


def sample_ms(text: str) -> float:
    """``--min-sample-ms``: milliseconds above 0 and at most a minute, refused in the
    option's own words (not the sweep's ``min_sample_us``).

    Example:
        >>> sample_ms("2.5")
        2.5
        >>> sample_ms("0")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: must be a number of milliseconds above 0 ...; got '0'
    """
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= MAX_SAMPLE_MS:
        raise argparse.ArgumentTypeError(
            f"must be a number of milliseconds above 0 and at most {MAX_SAMPLE_MS:g}; "
            f"got {text!r}")
    return value


@contextmanager
def past_input_checks() -> Iterator[None]:
    """From here on a ValueError or TypeError is not bad input but a bug (exit 1)."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        raise InternalError(exc) from exc


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _sub(sub: Any, name: str, help: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=help, description=help, epilog=EXIT_STATUS,
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def _add_backend(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=["auto", "acl", "sim"], default=None,
                   help="auto (default; also ASCEND_P2P_LAB_BACKEND), acl or sim")
    p.add_argument("--preset", default=None,
                   help="simulated server (default atlas800t-a2; also ASCEND_P2P_LAB_PRESET); "
                        "see `presets`")
    p.add_argument("--topology", type=Path, default=None,
                   help="a topology file to simulate instead of a preset: TOML of the preset "
                        "schema, or npu-smi info -t topo text (default: none)")
    p.add_argument("--seed", type=int, default=None,
                   help="simulator jitter seed (default 0; also ASCEND_P2P_LAB_SEED)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ascend-p2p-lab",
                     description="Probe, toggle and measure P2P copies between Ascend NPUs.",
                     epilog=EXIT_STATUS, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    _sub(sub, "presets", "list the simulated servers")

    p = _sub(sub, "probe", "peer-access matrix and link classes of all devices")
    _add_backend(p)
    _add_format(p, "the link-class and aclrtDeviceCanAccessPeer matrices")

    p = _sub(sub, "topo", "parse npu-smi info -t topo text")
    p.add_argument("file", type=Path, help="a file of `npu-smi info -t topo` output, or a "
                                           "preset-schema TOML")
    _add_format(p, "the link-class matrix")

    p = _sub(sub, "sweep", "measure device-to-device copies over a range of sizes")
    _add_backend(p)
    _add_sweep_args(p)
    _add_processes(p)

    p = _sub(sub, "report", "figures and a summary of a saved run (replaces the figures of "
                            "an earlier report of it)")
    p.add_argument("run_dir", type=Path, help="a run folder, as `sweep --out` writes it")
    p.add_argument("--out", type=Path, default=None, help="folder for figures (default RUN_DIR)")
    _add_format(p, "the summary and every N x N matrix", "; the figures are written either way")

    p = _sub(sub, "demo", "probe, enable peer links, sweep and report: on the simulator, or "
                          "on a server with --backend acl")
    p.add_argument("--backend", choices=["auto", "acl", "sim"], default=None,
                   help="sim (default; also ASCEND_P2P_LAB_BACKEND), acl or auto")
    p.add_argument("--preset", default=None, help="simulated server (default atlas800t-a2)")
    p.add_argument("--seed", type=int, default=None, help="simulator jitter seed (default 0)")
    p.add_argument("--out", type=Path, default=Path(DEMO_OUT),
                   help=f"folder to write to (default {DEMO_OUT}; an earlier demo there is "
                        "replaced)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace a run of another command in --out")
    p.add_argument("--sizes", default="4KiB:1GiB", help="copy sizes (default 4KiB:1GiB)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")

    _add_compare(sub)
    _sub(sub, "sim-path", "print a folder whose `acl` package is the simulator")

    _add_calibrate(sub)
    _add_dashboard(sub)
    from .fleet import FLEET_HELP, add_fleet_args  # the fleet command's options live there

    add_fleet_args(_sub(sub, "fleet", FLEET_HELP))
    _add_import(sub)
    from .check import add_check_args  # criteria and check: their options live there

    add_check_args(sub, _sub)
    from .testruns import add_run_args  # tests as data: run and patterns

    add_run_args(sub, _add_backend, _add_format, _sub, add_sample_args)
    from .collectives import add_collectives_args  # its options live there

    add_collectives_args(sub, _sub)
    return parser


def _add_compare(sub: Any) -> None:
    """``compare``: RUN against BASELINE, or against a simulated preset."""
    p = _sub(sub, "compare", "bandwidth of RUN relative to BASELINE, point by point (or to "
                             "what a simulated preset predicts for RUN's plan)")
    p.usage = ("%(prog)s [options] BASELINE RUN\n"
               "       %(prog)s [options] --against-preset NAME RUN")
    p.epilog = f"""\
exit status:
  {EXIT_OK}    no compared point is below the threshold
  {EXIT_FAILED}    a point is below it (listed: src -> dst, direction, peer, size, ratio); a
       point BASELINE measured and RUN lost (failed, refused) counts as below, ratio 0
  {EXIT_USAGE}    bad input: a missing or unreadable run folder, a bad threshold, runs with
       no measured point in common
"""
    p.add_argument("folders", nargs="+", type=Path, metavar="RUN_DIR",
                   help="BASELINE then RUN (run folders, as `sweep --out` writes them); "
                        "with --against-preset only RUN")
    p.add_argument("--threshold", type=float, default=0.9, metavar="RATIO",  # its default:
                   # comparison.DEFAULT_THRESHOLD
                   help="a point is below when RUN / BASELINE < this; 0 < RATIO <= 1 "
                        "(default 0.9)")
    p.add_argument("--format", choices=["table", "json"], default="table",
                   help="table (default): ratio matrix, points below and verdict; json")
    p.add_argument("--against-preset", default=None, metavar="NAME",
                   help="no BASELINE folder: re-run RUN's sweep parameters (and seed) on the "
                        "simulated preset NAME and compare with that (default: off)")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="write a ratio heatmap PNG per case into DIR (default: none)")
    p.add_argument("--topology", type=Path, default=None, metavar="FILE",
                   help="collectives against a P2P run (BASELINE) of a server that is no "
                        "preset: its topology file (default: the preset BASELINE names)")


def _add_import(sub: Any) -> None:
    """``import dmi|hccl-test``: its options live in cli/imports.py."""
    from .imports import IMPORT_EPILOG, IMPORT_HELP, add_import_args

    imp = _sub(sub, "import", IMPORT_HELP)
    imp.epilog = IMPORT_EPILOG
    add_import_args(imp, _Parser)


def _add_calibrate(sub: Any) -> None:
    p = _sub(sub, "calibrate", "fit a digital twin (a preset TOML) from a run folder")
    p.add_argument("run_dir", type=Path, help="a run folder, as `sweep --out` writes it")
    p.add_argument("--out", type=Path, required=True, help="the preset file to write (.toml)")
    server = p.add_mutually_exclusive_group()
    server.add_argument("--topology", type=Path, default=None,
                        help="npu-smi info -t topo text or a preset TOML: link classes of "
                             "pairs the run did not measure or name, and figures it did not "
                             "measure (default: none)")
    server.add_argument("--preset", default=None,
                        help="the same from a packaged preset (default: none)")
    p.add_argument("--name", default=None, help="the preset's name (default: --out's stem)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out file")


def _add_format(p: argparse.ArgumentParser, table: str, note: str = "") -> None:
    p.add_argument("--format", choices=["table", "json"], default="table",
                   help=f"table (default): {table}; json: the same as numbers, null where not "
                        f"measured, with the reason per cell{note}")


def _add_processes(p: argparse.ArgumentParser) -> None:
    """``sweep --processes`` (issue 23; measure/processes.py)."""
    p.add_argument("--processes", action="store_true",
                   help="also measure across processes: one worker per device exports its "
                        "buffers (IPC memory), each ordered pair pulled and pushed by the "
                        "other's process, beside the in-process rows (column process_mode)")


def add_sample_args(p: argparse.ArgumentParser, what: str) -> None:
    """The timing loop's options, the same for ``sweep`` and ``run``: samples per point,
    untimed warm-up windows, the shortest sample (``what`` repeats within a sample)."""
    p.add_argument("--samples", type=int, default=5, help="samples per point (default 5)")
    p.add_argument("--warmup", type=int, default=2,
                   help="untimed windows before each point's samples (default 2)")
    p.add_argument("--min-sample-ms", type=sample_ms, default=1.0,
                   help=f"each sample repeats the {what} until it lasts at least this long "
                        "(default 1.0 ms)")


def _add_sweep_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pairs", default="all",
                   help="all (default: every ordered pair) or a SRC-DST list, e.g. 0-1,1-0")
    p.add_argument("--devices", default="all",
                   help="all (default) or the devices to use, e.g. 0-3 or 0,2,5: every "
                        "ordered pair among them, and the other patterns keep to them")
    p.add_argument("--sizes", default=None,
                   help="LO:HI (every power of two between) or a comma list of any sizes "
                        "(default 4KiB:1GiB; 4 bytes for the latency pattern alone); KiB, "
                        "MiB, GiB are binary, KB, MB, GB decimal")
    p.add_argument("--direction", choices=["uni", "bi", "both"], default="uni",
                   help="uni (default): one direction at a time; bi: both at once; both")
    p.add_argument("--peer", choices=["on", "off", "both"], default="on",
                   help="peer access on (default), off (direct copy and host-staged path), "
                        "or both")
    p.add_argument("--initiator", choices=["src", "dst"], default="dst",
                   help="whose stream issues the copy: dst pulls, a read (default, as the "
                        "runtime guide's sample), src pushes, a write")
    from ..patterns.builtin import pattern_help  # the patterns, declared once

    p.add_argument("--patterns", default=None,
                   help=f"{pattern_help()}; default pair (group when --groups is given)")
    p.add_argument("--groups", default=None,
                   help="group pairs for the group pattern, e.g. 0,1:2,3 (devices 0 and 1 "
                        "copy to 2 and 3 at once, as ascend-dmi -m card); several separated "
                        "by ; (default: none)")
    p.add_argument("--timing", choices=["events", "host"], default="events",
                   help="events (default: device event timestamps) or host (wall clock "
                        "around a synchronize)")
    add_sample_args(p, "copy")
    p.add_argument("--out", type=Path, default=None,
                   help="folder to write the run to (default: not saved)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace the run already in --out (its samples, metadata, summary and "
                        "figures are removed first)")
    p.add_argument("--checkpoint", type=Path, default=None,
                   help="resume file: finished blocks are kept there and skipped on a rerun "
                        "(default: none)")
    p.add_argument("--no-verify", action="store_true",
                   help="skip checking the copied bytes (default: verified)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    _add_format(p, "the summary and every N x N matrix")


def _add_dashboard(sub: Any) -> None:
    """``dashboard``: the sweep dashboard as a web app (cli/dashboard.py)."""
    p = _sub(sub, "dashboard", "serve the sweep dashboard as a web app (Voilà, live kernel) "
                               "on 127.0.0.1")
    p.add_argument("--backend", choices=["auto", "acl", "sim"], default=None,
                   help="the kernel's runtime: auto (default; also ASCEND_P2P_LAB_BACKEND), "
                        "acl or sim")
    p.add_argument("--preset", default=None,
                   help="simulated server (default atlas800t-a2; also ASCEND_P2P_LAB_PRESET)")
    p.add_argument("--seed", type=int, default=None, help="simulator jitter seed (default 0)")
    p.add_argument("--port", type=int, default=0,
                   help="TCP port on 127.0.0.1 (default 0: a free one)")
