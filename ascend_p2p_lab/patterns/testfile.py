"""Test files users write: versioned TOML, one ``[[test]]`` table per test.

    schema_version = 1

    [[test]]
    name = "pull-push-host"
    sizes = ["64MiB", "256MiB"]
    transfers = ["0->1", "2->3 by 2", "host->4"]

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
from collections.abc import Sequence
from typing import Annotated, Any

import msgspec
import tomlkit

from ..typedfile import Document, FileError, Text
from ..units import format_size, parse_size
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


class _TestFile(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    schema_version: Annotated[int, msgspec.Meta(ge=1)]
    test: list[_TestTable]


#: Keys a ``[[test]]`` table may hold.
TEST_KEYS = tuple(_TestTable.__struct_fields__)


def read_tests(path: str | os.PathLike[str], device_count: int | None) -> list[Test]:
    """The tests of a file, checked against a server of device_count devices (None: any
    device number, to check a file before the runtime is open)."""
    return _tests(Document.from_path(path, error=TestFileError), device_count)


def read_tests_text(text: str, device_count: int | None, where: str = "<tests>") -> list[Test]:
    """The tests in TOML text (``where`` names it in errors)."""
    return _tests(Document.from_text(text, where, error=TestFileError), device_count)


def _tests(doc: Document, device_count: int | None) -> list[Test]:
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
    tests = [_test(doc, k, table, device_count) for k, table in enumerate(file.test)]
    names = [t.name for t in tests]
    for k, name in enumerate(names):
        if name in names[:k]:
            raise doc.fail(("test", k, "name"), f"test name {name!r} is used twice")
    return tests


def _test(doc: Document, k: int, table: _TestTable, device_count: int | None) -> Test:
    """One [[test]] table, checked: its sizes, then its transfers on the server."""
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
        return make_test(table.name, transfers, device_count, sorted(set(sizes)), table.description)
    except TransferError as exc:
        raise doc.fail(("test", k, "transfers"), str(exc)) from None


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
        table.add("transfers", [str(x) for x in t.transfers])
        tables.append(table)
    doc.add("test", tables)
    return tomlkit.dumps(doc).rstrip("\n") + "\n"
