"""The ``ascend-p2p-lab`` command: presets, probe, topo, sweep, report, demo, compare,
sim-path, calibrate, dashboard, fleet, import, criteria, check, patterns, run, collectives.

Exit status (every command; see ``EXIT_STATUS``): 0 when everything asked for was
measured, 1 when a failure cost data points, 2 for bad input (before any device work),
130 after Ctrl-C. Never a bare traceback.

Inside: :mod:`.parser` (the grammar: every subcommand, added by its command's module),
:mod:`.options` (the option groups commands share), :mod:`.exitstatus` (the exit statuses
and their text, the errors that choose them), :mod:`.session` (open, work, close); the
commands, each module owning its options and its run: :mod:`.info` (presets, probe, topo,
sim-path), :mod:`.runs` (sweep, report, demo; :mod:`.ipcsummary` prints ``sweep
--processes``), :mod:`.compare` (run vs run, or vs a preset), :mod:`.calibrate` (a twin
from a run), :mod:`.dashboard` (the web app), :mod:`.fleet` (many servers on Dask),
:mod:`.imports` (ascend-dmi and hccl_test output in), :mod:`.check` (criteria, check),
:mod:`.testruns` (patterns, run: tests as data), :mod:`.collectives` (HCCL's collectives
as copies); :func:`main` maps each error to its one line and exit status.

Example:
    $ ascend-p2p-lab probe --backend sim --preset atlas800t-a3 --format json
"""

from __future__ import annotations

import datetime as _dt
import os
import sys
import tempfile
import traceback
from collections.abc import Sequence

from ..results import ResultsError
from ..run.folder import OutputPathError
from ..runtime import AclError, BackendUnavailable, MissingCall
from .calibrate import cmd_calibrate
from .check import cmd_check, cmd_criteria
from .collectives import cmd_collectives
from .compare import cmd_compare
from .dashboard import cmd_dashboard
from .exitstatus import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_STATUS,
    EXIT_USAGE,
    InternalError,
    UsageError,
)
from .fleet import cmd_fleet
from .imports import cmd_import
from .info import cmd_presets, cmd_probe, cmd_sim_path, cmd_topo
from .parser import build_parser
from .runs import cmd_demo, cmd_report, cmd_sweep
from .testruns import cmd_patterns, cmd_run

__all__ = ["COMMANDS", "EXIT_STATUS", "EXIT_USAGE", "build_parser", "main"]


COMMANDS = {
    "presets": cmd_presets,
    "probe": cmd_probe,
    "topo": cmd_topo,
    "sweep": cmd_sweep,
    "report": cmd_report,
    "demo": cmd_demo,
    "sim-path": cmd_sim_path,
    "compare": cmd_compare,
    "calibrate": cmd_calibrate,
    "dashboard": cmd_dashboard,
    "fleet": cmd_fleet,
    "import": cmd_import,
    "criteria": cmd_criteria,
    "check": cmd_check,
    "run": cmd_run,
    "patterns": cmd_patterns,
    "collectives": cmd_collectives,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (see ``EXIT_STATUS``)."""
    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except (UsageError, OutputPathError) as exc:
        print(f"ascend-p2p-lab: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, TypeError, FileNotFoundError, ResultsError, BackendUnavailable) as exc:
        print(f"ascend-p2p-lab: error: {exc}".splitlines()[0], file=sys.stderr)
        return EXIT_USAGE
    except (AclError, MissingCall) as exc:
        print(f"ascend-p2p-lab: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("ascend-p2p-lab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `ascend-p2p-lab probe --format json | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:  # a path that cannot be read or written: one line, no traceback
        print(f"ascend-p2p-lab: error: {exc}".splitlines()[0], file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # a bug: one line, and the traceback in a file
        if isinstance(exc, InternalError) and exc.__cause__ is not None:
            exc = exc.__cause__  # type: ignore[assignment]
        where = _save_traceback(exc)
        text = f"{type(exc).__name__}: {exc}".splitlines()[0]
        print(f"ascend-p2p-lab: internal error: {text} (traceback in {where})", file=sys.stderr)
        return EXIT_FAILED


def _save_traceback(exc: BaseException) -> str:
    """Write exc's traceback to a file in the temporary folder; return its path."""
    stamp = _dt.datetime.now().strftime("%Y%m%dT%H%M%S")
    try:
        fd, path = tempfile.mkstemp(prefix=f"ascend-p2p-lab-{stamp}-", suffix=".traceback")
        with os.fdopen(fd, "w") as fh:
            traceback.print_exception(type(exc), exc, exc.__traceback__, file=fh)
    except OSError as err:
        return f"nowhere: {err}"
    return path
