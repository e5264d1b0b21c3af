"""Table or JSON, chosen once per command (nvbandwidth's ``Output`` / ``JsonOutput``):
:func:`output_for` reads ``--format`` once; the command then says everything to the
object it got, and each kind does its part: :class:`Output` prints the table and
ignores the JSON, :class:`JsonOutput` prints the JSON document and ignores the table.
A note beside either (a figure written, a file saved) goes to stdout under a table and
to stderr under JSON, whose stdout holds the document alone.

Example:
    >>> out = output_for("json", indent=None)
    >>> out.table(lambda: print("a table"))
    >>> out.json({"exit_status": 0})
    {"exit_status": 0}
    >>> output_for("table").json({"exit_status": 0})
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from typing import Any, TextIO

#: A JSON document, or what makes it (made only when JSON is asked for).
Document = Mapping[str, Any] | Callable[[], Mapping[str, Any]]


class Output:
    """The table: what people read (``--format table``)."""

    #: Whether this output is JSON (for what both kinds write alike, e.g. a file).
    is_json = False

    def table(self, show: Callable[[], object]) -> None:
        """Print the table: ``show`` prints it."""
        show()

    def json(self, document: Document) -> None:
        """The JSON document: not printed under a table."""

    @property
    def notes(self) -> TextIO:
        """Where a note beside the output goes: stdout under a table."""
        return sys.stdout

    def note(self, *text: object) -> None:
        """A note beside the output (a figure written, a file saved)."""
        print(*text, file=self.notes)


class JsonOutput(Output):
    """The JSON document (``--format json``): ``indent``, ``allow_nan`` and ``plain`` (a
    function over the document before it is written) as the command's documented JSON
    has them."""

    is_json = True

    def __init__(
        self,
        indent: int | None = 1,
        *,
        allow_nan: bool = True,
        plain: Callable[[Any], Any] | None = None,
    ) -> None:
        self.indent, self.allow_nan, self.plain = indent, allow_nan, plain

    def table(self, show: Callable[[], object]) -> None:
        """The table: not printed under JSON."""

    def json(self, document: Document) -> None:
        """Print the document, flushed (a script reads it at once)."""
        data = document() if callable(document) else document
        if self.plain is not None:
            data = self.plain(data)
        print(json.dumps(data, indent=self.indent, allow_nan=self.allow_nan), flush=True)

    @property
    def notes(self) -> TextIO:
        """Where a note goes: stderr (stdout holds the document alone)."""
        return sys.stderr


def output_for(
    fmt: str | Output,
    indent: int | None = 1,
    *,
    allow_nan: bool = True,
    plain: Callable[[Any], Any] | None = None,
) -> Output:
    """The output ``--format`` asks for (``table`` or ``json``): the one place a command
    decides between them (an :class:`Output` given is taken as it is)."""
    if isinstance(fmt, Output):
        return fmt
    if fmt == "json":
        return JsonOutput(indent, allow_nan=allow_nan, plain=plain)
    return Output()
