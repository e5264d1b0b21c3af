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

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser as the tomli package
    import tomli as tomllib  # type: ignore[no-redef]

from ..units import format_size, parse_size
from .model import Test, TransferError, make_test

#: The test-file schema this release reads; newer files are refused.
TEST_FILE_SCHEMA_VERSION = 1
#: Keys a ``[[test]]`` table may hold.
TEST_KEYS = ("name", "sizes", "transfers", "description")
_HEADER = re.compile(r"^\s*\[\[\s*test\s*\]\]")


class TestFileError(ValueError):
    """A test file that cannot be run: ``file:line: what is wrong``."""

    __test__ = False  # not a pytest class


def read_tests(path: str | os.PathLike[str], device_count: int | None) -> list[Test]:
    """The tests of a file, checked against a server of device_count devices (None: any
    device number, to check a file before the runtime is open)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TestFileError(f"{p}: no such test file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TestFileError(f"{p}: cannot read it ({exc})") from None
    return read_tests_text(text, device_count, str(p))


def read_tests_text(text: str, device_count: int | None, where: str = "<tests>") -> list[Test]:
    """The tests in TOML text (``where`` names it in errors)."""
    lines = text.splitlines()

    def fail(line: int, what: str) -> TestFileError:
        return TestFileError(f"{where}:{line}: {what}")

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise fail(int(m.group(1)) if m else 1, f"not valid TOML: {exc}") from None
    version = data.get("schema_version")
    vline = _line_of(lines, r"^\s*schema_version\s*=", 0, len(lines)) or 1
    if version is None:
        raise fail(
            1,
            "schema_version is missing (write schema_version = "
            f"{TEST_FILE_SCHEMA_VERSION} at the top)",
        )
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise fail(vline, f"schema_version must be a positive integer; got {version!r}")
    if version > TEST_FILE_SCHEMA_VERSION:
        raise fail(
            vline,
            f"schema_version {version} is newer than this release reads "
            f"({TEST_FILE_SCHEMA_VERSION}); upgrade ascend-p2p-lab",
        )
    unknown = sorted(set(data) - {"schema_version", "test"})
    if unknown:
        raise fail(
            _line_of(lines, rf"^\s*{re.escape(unknown[0])}\b", 0, len(lines)) or 1,
            f"unknown key {unknown[0]!r} (a file holds schema_version and [[test]] tables)",
        )
    tables = data.get("test")
    if not isinstance(tables, list) or not tables:
        raise fail(1, "no [[test]] table: a file holds at least one test")
    starts = [i + 1 for i, s in enumerate(lines) if _HEADER.match(s)]
    tests: list[Test] = []
    for k, table in enumerate(tables):
        first = starts[k] if k < len(starts) else 1
        last = starts[k + 1] - 1 if k + 1 < len(starts) else len(lines)
        tests.append(_test(table, device_count, lines, first, last, fail))
    names = [t.name for t in tests]
    for k, name in enumerate(names):
        if name in names[:k]:
            raise fail(starts[k] if k < len(starts) else 1, f"test name {name!r} is used twice")
    return tests


def _line_of(lines: list[str], pattern: str, first: int, last: int) -> int | None:
    """The first line number (from 1) in [first, last] that matches pattern."""
    rx = re.compile(pattern)
    for i in range(max(first, 1), last + 1):
        if rx.search(lines[i - 1]):
            return i
    return None


def _test(
    table: Any, device_count: int | None, lines: list[str], first: int, last: int, fail: Any
) -> Test:
    """One [[test]] table (lines first..last of the file), checked."""

    def line(key: str) -> int:
        return _line_of(lines, rf"^\s*{key}\s*=", first, last) or first

    unknown = sorted(set(table) - set(TEST_KEYS))
    if unknown:
        raise fail(
            line(unknown[0]),
            f"unknown key {unknown[0]!r} in [[test]] (keys: {', '.join(TEST_KEYS)})",
        )
    for key in ("name", "sizes", "transfers"):
        if key not in table:
            raise fail(first, f"[[test]] is missing {key!r}")
    name = table["name"]
    if not isinstance(name, str) or not name.strip():
        raise fail(line("name"), f"name must be a non-empty string; got {name!r}")
    sizes = table["sizes"]
    if not isinstance(sizes, list) or not sizes:
        raise fail(
            line("sizes"), f'test {name!r}: sizes must be a list of sizes such as ["256MiB"]'
        )
    parsed_sizes = []
    for s in sizes:
        try:
            parsed_sizes.append(parse_size(s))  # refuses 0 and negative sizes
        except (ValueError, TypeError) as exc:
            raise fail(
                _where(lines, s, first, last, line("sizes")), f"test {name!r}: size {s!r}: {exc}"
            ) from None
    transfers = table["transfers"]
    if not isinstance(transfers, list) or not transfers:
        raise fail(
            line("transfers"),
            f'test {name!r}: transfers must be a non-empty list such as ["0->1", "host->2"]',
        )
    try:
        return make_test(
            name,
            transfers,
            device_count,
            sorted(set(parsed_sizes)),
            str(table.get("description", "")),
        )
    except TransferError as exc:
        bad = next(
            (
                t
                for t in transfers
                if (isinstance(t, str) and repr(t) in str(exc)) or str(t) in str(exc)
            ),
            None,
        )
        at = (
            _where(lines, bad, first, last, line("transfers"))
            if bad is not None
            else line("transfers")
        )
        raise fail(at, f"test {name!r}: {exc}") from None


def _where(lines: list[str], value: Any, first: int, last: int, default: int) -> int:
    """The line in first..last where a string value is written (else default)."""
    if not isinstance(value, str):
        return default
    return (
        _line_of(lines, re.escape(f'"{value}"') + "|" + re.escape(f"'{value}'"), first, last)
        or default
    )


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
    lines = [f"schema_version = {TEST_FILE_SCHEMA_VERSION}", ""]
    for t in tests:
        lines += ["[[test]]", f"name = {json.dumps(t.name)}"]
        if t.description:
            lines.append(f"description = {json.dumps(t.description)}")
        own = t.sizes or tuple(sizes)
        lines.append(
            "sizes = [" + ", ".join(json.dumps(format_size(s).replace(" ", "")) for s in own) + "]"
        )
        lines.append("transfers = [" + ", ".join(json.dumps(str(x)) for x in t.transfers) + "]")
        lines.append("")
    return "\n".join(lines)
