"""The command line's exit statuses, defined once: the numbers (``vocab`` holds the
run's three, this module adds bad input), the text every command's help ends with, and
the errors that choose them.

Example:
    >>> EXIT_USAGE
    2
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ..vocab import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK

__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_STATUS",
    "EXIT_USAGE",
    "InternalError",
    "UsageError",
    "bad_input",
    "past_input_checks",
]

#: Bad input (the vocabulary's word for it).
EXIT_USAGE = EXIT_BAD_INPUT


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


@contextmanager
def past_input_checks() -> Iterator[None]:
    """From here on a ValueError or TypeError is not bad input but a bug (exit 1)."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        raise InternalError(exc) from exc


@contextmanager
def bad_input(prefix: str = "", kind: type[Exception] = ValueError) -> Iterator[None]:
    """A ``kind`` error inside is bad input: a UsageError saying ``prefix`` and its text."""
    try:
        yield
    except kind as exc:
        raise UsageError(f"{prefix}{exc}") from None
