"""Test files users write: versioned TOML, one ``[[test]]`` table per test.

    schema_version = 1

    [[test]]
    name = "pull-push-host"
    sizes = ["64MiB", "256MiB"]
    transfers = ["0->1", "2->3 by 2", "host->4"]

    [[test]]                      # the A3's die links (docs/die-links.md)
    name = "card1-dual"
    sizes = ["256MiB"]
    transfers = ["2->3"]
    die_link = "both"             # sio, hccs, or both at once
    die_split = 0.6               # with both: SIO's share of the bytes

Every error names the file and the line (``file:LINE: what``) and is raised before any
device work, as :class:`TestFileError` (a ValueError: exit status 2 on the command line).

Example:
    >>> tests = read_tests_text('schema_version = 1\\n[[test]]\\nname = "a"\\n'
    ...                         'sizes = ["4KiB"]\\ntransfers = ["0->1"]\\n', 8)
    >>> tests[0].name, tests[0].sizes, str(tests[0].transfers[0])
    ('a', (4096,), '0->1')
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

import msgspec
import tomlkit

from ..typedfile import Document, FileError, Text
from ..units import format_size, parse_size
from ..vocab import DIE_LINK_CHOICES
from .dielink import over_die_link
from .model import Test, TransferError, make_test, parse_transfer

#: The test-file schema this release reads; newer files are refused.
TEST_FILE_SCHEMA_VERSION = 1
_Some = Annotated[list[Any], msgspec.Meta(min_length=1)]


class TestFileError(FileError):
    """A test file that cannot be run: ``file:line: field 'x.y': what is wrong``."""

    __test__ = False  # not a pytest class


class _TestTable(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    name: Text
    sizes: _Some
    transfers: _Some
    description: str = ""
    die_link: Literal[DIE_LINK_CHOICES] | None = None  # type: ignore[valid-type]
    die_split: float | None = None


class _TestFile(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    schema_version: Annotated[int, msgspec.Meta(ge=1)]
    test: list[_TestTable]


#: Whether two devices are the two dies of one card with a choice of die link, and the
#: server's name: what a test's ``die_link`` is checked against once the runtime is open.
Twins = tuple[Callable[[int, int], bool], str]


def read_tests(
    path: str | os.PathLike[str], device_count: int | None, twins: Twins | None = None
) -> list[Test]:
    """The tests of a file, checked against a server of device_count devices (None: any
    device number, to check a file before the runtime is open) and, with ``twins``, each
    die-link test's pair against the server's twin dies."""
    return _tests(Document.from_path(path, error=TestFileError), device_count, twins)


def read_tests_text(text: str, device_count: int | None, where: str = "<tests>") -> list[Test]:
    """The tests in TOML text (``where`` names it in errors)."""
    return _tests(Document.from_text(text, where, error=TestFileError), device_count)


def _tests(doc: Document, device_count: int | None, twins: Twins | None = None) -> list[Test]:
    for key, why in (
        (
            "schema_version",
            f"missing (write schema_version = {TEST_FILE_SCHEMA_VERSION} at the top)",
        ),
        ("test", "no [[test]] table: a file holds at least one test"),
    ):
        if key not in doc.data:
            raise doc.fail((key,), why)
    file = doc.convert(doc.data, _TestFile)
    if file.schema_version > TEST_FILE_SCHEMA_VERSION:
        raise doc.fail(
            ("schema_version",),
            f"{file.schema_version} is newer than this release reads "
            f"({TEST_FILE_SCHEMA_VERSION}); upgrade ascend-p2p-lab",
        )
    tests = [_test(doc, k, table, device_count, twins) for k, table in enumerate(file.test)]
    names = [t.name for t in tests]
    for k, name in enumerate(names):
        if name in names[:k]:
            raise doc.fail(("test", k, "name"), f"test name {name!r} is used twice")
    return tests


def _test(
    doc: Document, k: int, table: _TestTable, device_count: int | None, twins: Twins | None
) -> Test:
    """One [[test]] table, checked: its sizes, then its transfers on the server, then its
    die link (patterns.dielink)."""
    sizes, transfers = [], []
    for i, size in enumerate(table.sizes):
        try:
            sizes.append(parse_size(size))  # refuses 0 and negative sizes
        except (ValueError, TypeError) as exc:
            raise doc.fail(("test", k, "sizes", i), str(exc)) from None
    for i, text in enumerate(table.transfers):
        try:
            transfers.append(parse_transfer(text, device_count))
        except TransferError as exc:
            raise doc.fail(("test", k, "transfers", i), str(exc)) from None
    try:
        test = make_test(table.name, transfers, device_count, sorted(set(sizes)), table.description)
    except TransferError as exc:
        raise doc.fail(("test", k, "transfers"), str(exc)) from None
    if table.die_link is None:
        if table.die_split is not None:
            raise doc.fail(("test", k, "die_split"), "a split is given only with die_link both")
        return test
    try:
        test = over_die_link(test, table.die_link, table.die_split)
    except TransferError as exc:
        raise doc.fail(("test", k, "die_link"), str(exc)) from None
    t = test.transfers[0]
    if twins is not None and t.src is not None and t.dst is not None:
        twin, server = twins
        if not twin(t.src, t.dst):
            raise doc.fail(
                ("test", k, "die_link"),
                f"transfer {t} is not between the two dies of one card of server {server} "
                "(die links: A3 twin dies only)",
            )
    return test


def to_toml(tests: Sequence[Test], sizes: Sequence[int]) -> str:
    """Tests as the text of a test file (``read_tests_text`` reads it back); each test at
    its own sizes, or at ``sizes`` when it has none.

    Example:
        >>> from ascend_p2p_lab.patterns.model import make_test
        >>> print(to_toml([make_test("t", ["0->1", "2->3 by 2"], 8)], [256 << 20]))
        schema_version = 1
        <BLANKLINE>
        [[test]]
        name = "t"
        sizes = ["256MiB"]
        transfers = ["0->1", "2->3 by 2"]
        <BLANKLINE>
    """
    doc = tomlkit.document()
    doc.add("schema_version", TEST_FILE_SCHEMA_VERSION)
    doc.add(tomlkit.nl())
    tables = tomlkit.aot()
    for t in tests:
        table = tomlkit.table()
        table.add("name", t.name)
        if t.description:
            table.add("description", t.description)
        table.add("sizes", [format_size(s).replace(" ", "") for s in t.sizes or tuple(sizes)])
        table.add("transfers", [str(x) for x in t.transfers[: 1 if t.die_link else None]])
        if t.die_link:
            table.add("die_link", t.die_link)
            if t.die_split is not None:
                table.add("die_split", t.die_split)
        tables.append(table)
    doc.add("test", tables)
    return tomlkit.dumps(doc).rstrip("\n") + "\n"
