"""The ``ascend-p2p-lab`` command; its commands are :data:`.parser.COMMANDS`, and every
one exits with ``EXIT_STATUS`` (never a bare traceback).

Inside: :mod:`.parser` (the grammar), :mod:`.options` (the option groups commands share),
:mod:`.exitstatus` (the exit statuses and their text, the errors that choose them),
:mod:`.session` (open, work, close), :mod:`.runoutput` (what the commands that measure do
with their run: paths checked, the run kept, saved, printed, reported), :mod:`.ipcsummary`
(``sweep --processes`` printed), :mod:`.collcompare` (``compare`` of a run of
collectives), :mod:`.output` (table or JSON, decided once per command); then one module
per command, ``cmd_<name>.py``, owning its options and its run (none imports another);
:func:`main` maps each error to its one line and exit status.

Example:
    $ ascend-p2p-lab probe --backend sim --preset atlas800t-a3 --format json
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["BY_NAME", "COMMANDS", "EXIT_STATUS", "EXIT_USAGE", "build_parser", "main"]

#: Errors of the modules a command imports when it runs, as (module, class): an error
#: whose module is not imported yet cannot be the one in flight, so :func:`main` reads
#: them from ``sys.modules`` and imports nothing. Bad input, said as it is:
_USAGE_ERRORS = (("ascend_p2p_lab.run.folder", "OutputPathError"),)
#: Bad input, said in its first line:
_INPUT_ERRORS = (
    ("ascend_p2p_lab.run.folder", "ResultsError"),
    ("ascend_p2p_lab.runtime.errors", "BackendUnavailable"),
)
#: A runtime failure (exit 1):
_RUNTIME_ERRORS = (
    ("ascend_p2p_lab.runtime.errors", "AclError"),
    ("ascend_p2p_lab.runtime.errors", "MissingCall"),
)


def __getattr__(name: str) -> Any:
    """The grammar's names (``COMMANDS``, ``BY_NAME``, ``build_parser``) and the exit
    statuses' (``EXIT_STATUS``, ``EXIT_USAGE``), imported on first use: ``python -m
    ascend_p2p_lab.cli`` reaches :func:`main` (and its Ctrl-C handler) before it imports
    anything but this module (a Ctrl-C before then lands in Python's own start-up)."""
    if name in ("COMMANDS", "BY_NAME", "build_parser"):
        from . import parser

        return getattr(parser, name)
    if name in ("EXIT_STATUS", "EXIT_USAGE"):
        from . import exitstatus

        return getattr(exitstatus, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (see ``EXIT_STATUS``). Each command imports
    what it needs when it runs (``--help`` reads the parser alone)."""
    try:
        from .parser import BY_NAME, build_parser

        args = build_parser().parse_args(argv)
        return BY_NAME[args.command].run(args)
    except KeyboardInterrupt:
        from ..vocab import EXIT_INTERRUPTED

        print("ascend-p2p-lab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `ascend-p2p-lab probe --format json | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as exc:
        return _exit_for(exc)


def _imported(names: Sequence[tuple[str, str]]) -> tuple[type[BaseException], ...]:
    """The error classes named whose modules are imported."""
    return tuple(getattr(sys.modules[m], c) for m, c in names if m in sys.modules)


def _exit_for(exc: Exception) -> int:
    """exc's one line on stderr, and its exit status."""
    from .exitstatus import EXIT_FAILED, EXIT_USAGE, InternalError, UsageError

    if isinstance(exc, (UsageError, *_imported(_USAGE_ERRORS))):
        print(f"ascend-p2p-lab: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    # OSError: a path that cannot be read or written (the runtime's errors are no OSError)
    if isinstance(exc, (ValueError, TypeError, OSError, *_imported(_INPUT_ERRORS))):
        print(f"ascend-p2p-lab: error: {exc}".splitlines()[0], file=sys.stderr)
        return EXIT_USAGE
    if isinstance(exc, _imported(_RUNTIME_ERRORS)):
        print(f"ascend-p2p-lab: {exc}", file=sys.stderr)
        return EXIT_FAILED
    # a bug: one line, and the traceback in a file
    if isinstance(exc, InternalError) and exc.__cause__ is not None:
        exc = exc.__cause__  # type: ignore[assignment]
    where = _save_traceback(exc)
    text = f"{type(exc).__name__}: {exc}".splitlines()[0]
    print(f"ascend-p2p-lab: internal error: {text} (traceback in {where})", file=sys.stderr)
    return EXIT_FAILED


def _save_traceback(exc: BaseException) -> str:
    """Write exc's traceback to a file in the temporary folder; return its path."""
    import datetime as _dt
    import tempfile
    import traceback

    stamp = _dt.datetime.now().strftime("%Y%m%dT%H%M%S")
    try:
        fd, path = tempfile.mkstemp(prefix=f"ascend-p2p-lab-{stamp}-", suffix=".traceback")
        with os.fdopen(fd, "w") as fh:
            traceback.print_exception(type(exc), exc, exc.__traceback__, file=fh)
    except OSError as err:
        return f"nowhere: {err}"
    return path
