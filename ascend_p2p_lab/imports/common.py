"""What every importer shares: the capture as read (text, hash), errors that name the file
and line, numbers with units, and finding the line a JSON value came from.

Example:
    >>> quantity("33554432 Bytes", "size", where="f:3")
    33554432.0
    >>> quantity("168.7 us", "time", where="f:3")
    168.7
    >>> quantity("500 ns", "time", where="f:3")
    0.5
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

#: Larger captures are not tool output (a DMI or hccl_test run prints kilobytes).
MAX_CAPTURE_BYTES = 16 << 20

#: Units the tools print, to the toolkit's unit of each kind (bytes, GB/s, microseconds).
#: Sizes: DMI prints "Bytes"; K/M/G as DMI's -s and hccl_test's -b/-e are binary.
UNITS: dict[str, dict[str, float]] = {
    "size": {
        "b": 1,
        "byte": 1,
        "bytes": 1,
        "kb": 1 << 10,
        "k": 1 << 10,
        "kib": 1 << 10,
        "mb": 1 << 20,
        "m": 1 << 20,
        "mib": 1 << 20,
        "gb": 1 << 30,
        "g": 1 << 30,
        "gib": 1 << 30,
    },
    "bandwidth": {"gb/s": 1.0, "gbps": 1.0, "mb/s": 1e-3, "kb/s": 1e-6, "b/s": 1e-9, "tb/s": 1e3},
    "time": {"us": 1.0, "μs": 1.0, "µs": 1.0, "ns": 1e-3, "ms": 1e3, "s": 1e6},
}
_NUMBER_UNIT = re.compile(r"^\s*([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s*([^\d\s].*?)?\s*$")


class ImportInputError(ValueError):
    """A capture the importer cannot read: ``FILE:LINE: what`` (exit status 2)."""

    def __init__(self, where: str, what: str) -> None:
        super().__init__(f"{where}: {what}")
        self.where, self.what = where, what


class ToolReportedError(Exception):
    """The tool itself reported an error in its output (exit status 1, with its code)."""

    def __init__(self, where: str, code: object, description: str) -> None:
        super().__init__(f"{where}: the tool reported error {code}: {description}")
        self.where, self.code, self.description = where, code, description


@dataclass(frozen=True)
class Capture:
    """One file of tool output: its path, text, lines and sha256 (of the bytes read)."""

    path: Path
    text: str
    sha256: str

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    def at(self, lineno: int | None) -> str:
        """``path:line`` (or just the path when the line is unknown)."""
        return f"{self.path}:{lineno}" if lineno else str(self.path)


def read_capture(path: str | Path) -> Capture:
    """Read a capture as UTF-8 text (a BOM dropped); ImportInputError for a missing,
    empty, binary or oversized file."""
    path = Path(path)
    if not path.is_file():
        raise ImportInputError(str(path), "no such file")
    data = path.read_bytes()
    if len(data) > MAX_CAPTURE_BYTES:
        raise ImportInputError(str(path), f"larger than {MAX_CAPTURE_BYTES} bytes: not a capture")
    if b"\0" in data:
        raise ImportInputError(str(path), "binary data, not tool output")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportInputError(
            str(path), f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    if not text.strip():
        raise ImportInputError(f"{path}:1", "empty file")
    return Capture(path, text, hashlib.sha256(data).hexdigest())


def quantity(text: object, kind: str, *, where: str, default_unit: str | None = None) -> float:
    """A number with a unit (``"198.9 GB/s"``) in the toolkit's unit for ``kind`` (size in
    bytes, bandwidth in GB/s, time in us). A bare number takes ``default_unit``; an
    unknown unit, a missing one without a default, or no finite number raise
    ImportInputError naming ``where``."""
    if isinstance(text, bool):
        raise ImportInputError(where, f"{kind} {text!r} is not a number")
    if isinstance(text, (int, float)):
        value, unit = float(text), None
    else:
        m = _NUMBER_UNIT.match(str(text))
        if not m:
            raise ImportInputError(where, f"{kind} {text!r} is not a number with a unit")
        value, unit = float(m.group(1)), m.group(2)
    if not math.isfinite(value):
        raise ImportInputError(where, f"{kind} {text!r} is not finite")
    unit = unit or default_unit
    if unit is None:
        raise ImportInputError(where, f"{kind} {text!r} has no unit")
    scale = UNITS[kind].get(unit.strip().lower())
    if scale is None:
        known = ", ".join(sorted(UNITS[kind]))
        raise ImportInputError(where, f"{kind} {text!r}: unknown unit {unit!r} (known: {known})")
    return value * scale


def number(token: str, *, where: str, what: str) -> float:
    """A bare finite number from a table cell; ImportInputError otherwise."""
    try:
        value = float(token)
    except ValueError:
        raise ImportInputError(where, f"{what} {token!r} is not a number") from None
    if not math.isfinite(value):
        raise ImportInputError(where, f"{what} {token!r} is not finite")
    return value


class LineFinder:
    """Line numbers of values in JSON text, found in document order: each :meth:`after`
    looks from where the last match was (so repeated values get their own lines)."""

    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def after(self, needle: str) -> int | None:
        """The 1-based line of the next occurrence of needle (None if absent)."""
        i = self.text.find(needle, self.pos)
        if i < 0:
            return None
        self.pos = i + len(needle)
        return self.text.count("\n", 0, i) + 1


@dataclass
class Parsed:
    """What one capture gave: rows (dicts of schema columns, each with its
    ``source_line``), the tool's version if it printed one, and its command line if the
    capture holds it."""

    rows: list[dict[str, object]]
    version: str | None = None
    command: str | None = None
    host: str | None = None


_VERSION = re.compile(r"(?i)\bversion\b[^:：\d]*[:：]?\s*v?(\d+(?:\.[0-9A-Za-z]+)+)")


def find_version(lines: list[str]) -> str | None:
    """The first ``version: 6.0.0``-like statement of the capture, or None."""
    return _first_group(lines, _VERSION.search)


_PROMPT_HOST = re.compile(r"^\s*\[[\w.-]+@([\w.-]+)[^\]]*\][#$]")


def find_host(lines: list[str]) -> str | None:
    """The host a shell prompt in the capture names (``[root@a2-server ~]#``), or None."""
    return _first_group(lines, _PROMPT_HOST.match)


def _first_group(lines: list[str], find: Callable[[str], re.Match[str] | None]) -> str | None:
    """The first group of the first line ``find`` matches, or None."""
    for line in lines:
        m = find(line)
        if m:
            return m.group(1)
    return None
