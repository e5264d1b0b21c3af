"""The one typed layer every file the toolkit reads goes through: text -> parsed data ->
typed structs (msgspec), each refusal one line ``FILE:LINE: field 'x.y': what``.

A :class:`Document` holds a file's text, its parsed data and where each value sits (a
key path such as ``("link", "HCCS", "bandwidth_GBps")`` or ``("fault", 0, "link", 1)``
-> its line, for TOML and JSON alike). :meth:`Document.convert` turns a value into a
``msgspec.Struct`` (strict: no string taken for a number, unknown keys refused) and
:meth:`Document.fail` is how a reader refuses a value its types cannot express (a
device the server lacks): both raise the reader's :class:`FileError` subclass, a
``ValueError`` the command line maps to exit status 2.

Example:
    >>> import msgspec
    >>> class Link(msgspec.Struct, forbid_unknown_fields=True):
    ...     bandwidth_GBps: Positive
    >>> doc = Document.from_text('[link.HCCS]\\nbandwidth_GBps = "fast"\\n', "t.toml")
    >>> try:
    ...     doc.convert(doc.data["link"]["HCCS"], Link, ("link", "HCCS"))
    ... except FileError as exc:
    ...     print(exc)
    t.toml:2: field 'link.HCCS.bandwidth_GBps': expected a number, got a string
"""

from __future__ import annotations

import bisect
import contextlib
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, TypeVar

import msgspec

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

T = TypeVar("T")
KeyPath = tuple[str | int, ...]
#: Largest file any reader accepts (bytes).
MAX_FILE_BYTES = 1 << 20
#: Numbers a file may give: finite (TOML and JSON both allow inf and nan otherwise).
_BIG = 1e300
Positive = Annotated[float, msgspec.Meta(gt=0, le=_BIG)]
NonNegative = Annotated[float, msgspec.Meta(ge=0, le=_BIG)]
Fraction = Annotated[float, msgspec.Meta(gt=0, le=1)]
Whole = Annotated[int, msgspec.Meta(ge=0)]
Counting = Annotated[int, msgspec.Meta(ge=1)]
Text = Annotated[str, msgspec.Meta(min_length=1, pattern=r"\S")]


class FileError(ValueError):
    """A file, or one value in it, that a reader cannot use (exit status 2).

    ``source``, ``line`` (None: the file as a whole) and ``field`` (the key path as
    written, ``link.HCCS.latency_us``; empty: none) are kept for programs.
    """

    def __init__(
        self, source: str, line: int | None = None, field: str = "", what: str | None = None
    ) -> None:
        if what is None:  # one sentence already, about no place in a file
            self.source, self.line, self.field, self.what = "", None, "", source
            self.path = ()
            super().__init__(source)
            return
        self.source, self.line, self.field, self.what = source, line, field, what
        self.path: KeyPath = ()  # the key path of field, when Document.fail made it
        where = f"{source}:{line}: " if line else f"{source}: " if source else ""
        named = f"field '{field}': " if field else ""
        super().__init__(f"{where}{named}{what}")


def field_name(path: KeyPath) -> str:
    """A key path as written in messages: ``fault[0].link[1]``."""
    out = ""
    for part in path:
        if not isinstance(part, int) and not _BARE.fullmatch(part):
            part = json.dumps(part)  # a key of any text, on one line: "a\nb"
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


class Document:
    """One file's text and data, and the lines of its values (see the module docstring)."""

    def __init__(
        self, text: str, data: Any, source: str, fmt: str, error: type[FileError] = FileError
    ) -> None:
        self.text, self.data, self.source, self.fmt, self.error = text, data, source, fmt, error
        self._lines: dict[KeyPath, int] | None = None

    @classmethod
    def from_text(
        cls,
        text: str,
        source: str,
        fmt: str = "toml",
        error: type[FileError] = FileError,
        max_bytes: int = MAX_FILE_BYTES,
    ) -> Document:
        """Parse TOML or JSON text; a syntax error is ``error`` at the parser's line."""
        if len(text) > max_bytes or len(text.encode("utf-8", "surrogatepass")) > max_bytes:
            raise error(source, None, "", f"larger than {max_bytes} bytes, refused")
        try:
            data = tomllib.loads(text) if fmt == "toml" else json.loads(text)
        except tomllib.TOMLDecodeError as exc:
            m = re.search(r"line (\d+)", str(exc))
            line = getattr(exc, "lineno", None) or (int(m.group(1)) if m else None)
            reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", " ".join(str(exc).split()))
            raise error(source, line, "", f"malformed TOML: {reason}") from None
        except (json.JSONDecodeError, RecursionError) as exc:
            line = getattr(exc, "lineno", None)
            reason = getattr(exc, "msg", type(exc).__name__)
            raise error(source, line, "", f"malformed JSON: {reason}") from None
        return cls(text, data, source, fmt, error)

    @classmethod
    def from_path(
        cls,
        path: str | os.PathLike[str],
        fmt: str = "toml",
        error: type[FileError] = FileError,
        max_bytes: int = MAX_FILE_BYTES,
    ) -> Document:
        """Read and parse a file: missing, a folder, too large or not UTF-8 is ``error``."""
        p, source = Path(path), str(path)
        if p.is_dir():
            raise error(source, None, "", f"is a folder; give the file ({fmt.upper()})")
        try:
            if p.stat().st_size > max_bytes:
                raise error(source, None, "", f"larger than {max_bytes} bytes, refused")
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise error(source, None, "", "no such file") from None
        except UnicodeDecodeError as exc:
            why = f"not UTF-8 text ({exc.reason} at byte {exc.start})"
            raise error(source, None, "", why) from None
        except OSError as exc:
            raise error(source, None, "", f"cannot read it ({exc.strerror})") from None
        return cls.from_text(text, source, fmt, error, max_bytes)

    def line(self, path: KeyPath) -> int | None:
        """The line of the value at ``path``, else of its nearest located parent (1);
        None for data that came without its text."""
        if not self.text:
            return None
        if self._lines is None:
            self._lines = key_lines(self.text, self.fmt)
        for n in range(len(path), 0, -1):
            if path[:n] in self._lines:
                return self._lines[path[:n]]
        return 1

    def fail(self, path: KeyPath, what: str) -> FileError:
        """The reader's error at the value ``path`` (raise it)."""
        error = self.error(self.source, self.line(path), field_name(path), what)
        error.path = path
        return error

    def convert(self, value: Any, type_: type[T], path: KeyPath = ()) -> T:
        """``value`` (at ``path`` in the file) as ``type_``, strictly; else :meth:`fail`."""
        fields = getattr(type_, "__struct_fields__", None)
        if isinstance(value, Mapping) and fields is not None:  # a misspelt table first
            for key in value:
                if key not in fields and type_.__struct_config__.forbid_unknown_fields:
                    known = ", ".join(sorted(fields))
                    raise self.fail((*path, key), f"unknown key (known: {known})")
        try:
            return msgspec.convert(value, type=type_, strict=True)
        except msgspec.ValidationError as exc:
            where, what = _validation(str(exc))
            if self.fmt == "json":
                what = what.replace("a table", "an object")
            if what == "unknown key":
                what = f"unknown key (known: {_known(type_, where[:-1])})"
            if what.startswith("invalid enum value "):
                what = f"expected {_choices(type_, where)}, got {what[19:]}"
            raise self.fail(path + where, what) from None

    def table(self, path: KeyPath) -> Mapping[str, Any]:
        """The table (object) at ``path``: its keys are names a reader checks itself."""
        value: Any = self.data
        for part in path:
            value = value[part]
        if not isinstance(value, Mapping):
            raise self.fail(path, f"expected a table, got {_kind(type(value).__name__)}")
        return value


def refusal(path: KeyPath, what: str) -> FileError:
    """The refusal of a value made in memory (no file) at ``path``: ``field 'x.y': what``;
    a reader that read it from a file puts its line in (:meth:`Document.fail`)."""
    return Document("", None, "", "json").fail(path, what)


def check(value: Any, type_: type[T], path: KeyPath = ()) -> T:
    """``value`` as ``type_``, strictly, for data made in memory (no file): else a
    :class:`FileError` of one line, ``field 'x.y': what``."""
    return Document("", value, "", "json").convert(value, type_, path)


# ---- msgspec's words into ours --------------------------------------------------------------

_KINDS = {
    "str": "a string",
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "array": "an array",
    "list": "an array",
    "tuple": "an array",
    "object": "a table",
    "dict": "a table",
    "null": "nothing",
    "NoneType": "nothing",
    "datetime": "a date-time",
    "date": "a date",
    "time": "a time",
}


def _kind(name: str) -> str:
    return _KINDS.get(name, name)


def _validation(message: str) -> tuple[KeyPath, str]:
    """msgspec's ``Expected `int`, got `str` - at `$.a[0].b``` as a key path and words."""
    text, _, at = message.partition(" - at `")
    path = _path(at.rstrip("`")) if at else ()
    if m := re.fullmatch(r"Object contains unknown field `(.*)`", text):
        return (*path, m.group(1)), "unknown key"
    if m := re.fullmatch(r"Object missing required field `(.*)`", text):
        return (*path, m.group(1)), "missing (a required key)"
    if m := re.fullmatch(r"Expected `([\w |]+)`, got `(\w+)`", text):
        kinds = [k for k in m.group(1).split(" | ") if k != "null"] or ["null"]
        wanted = " or ".join(_kind(k) for k in kinds)
        return path, f"expected {wanted}, got {_kind(m.group(2))}"
    if m := re.fullmatch(r"Expected `(\w+)` of length (.*)", text):
        return path, f"expected {_kind(m.group(1))} of length {m.group(2)}"
    if m := re.fullmatch(r"Expected `(\w+)` (.*)", text):
        if m.group(2) in (f"<= {_BIG:g}", f"<= {_BIG}"):  # inf
            return path, f"expected a finite {_kind(m.group(1)).removeprefix('a ')}"
        return path, f"expected {_kind(m.group(1))} {m.group(2)}"
    return path, text[:1].lower() + text[1:]


def _choices(type_: Any, path: KeyPath) -> str:
    """The values a Literal field at ``path`` of ``type_`` allows, as words."""
    infos = [msgspec.inspect.type_info(type_)]
    for part in path:
        infos = [step for info in infos for step in _steps(info, part)]
    values = ", ".join(str(v) for info in infos for v in _literals(info)) or "the allowed values"
    others = [
        _kind(type(t).__name__.removesuffix("Type").lower())
        for info in infos
        for t in getattr(info, "types", ())
        if not isinstance(t, (msgspec.inspect.LiteralType, msgspec.inspect.NoneType))
        and type(t).__name__ != "UnsetType"
    ]
    return " or ".join([*others, f"one of: {values}"])


def _known(type_: Any, path: KeyPath) -> str:
    """The keys the struct at ``path`` of ``type_`` declares."""
    infos = [msgspec.inspect.type_info(type_)]
    for part in path:
        infos = [step for info in infos for step in _steps(info, part)]
    names = {f.encode_name for i in infos for f in getattr(i, "fields", ())}
    return ", ".join(sorted(names))


def _steps(info: Any, part: str | int) -> list[Any]:
    ins = msgspec.inspect
    if isinstance(info, ins.UnionType):
        return [s for t in info.types for s in _steps(t, part)]
    if isinstance(info, ins.StructType) and isinstance(part, str):
        return [f.type for f in info.fields if f.encode_name == part]
    if isinstance(info, (ins.ListType, ins.VarTupleType, ins.SetType)):
        return [info.item_type]
    if isinstance(info, ins.TupleType) and isinstance(part, int) and part < len(info.item_types):
        return [info.item_types[part]]
    if isinstance(info, ins.DictType):
        return [info.value_type]
    return []


def _literals(info: Any) -> list[Any]:
    if isinstance(info, msgspec.inspect.UnionType):
        return [v for t in info.types for v in _literals(t)]
    return list(getattr(info, "values", ()))


def _path(at: str) -> KeyPath:
    """``$.a[0].b`` as ``("a", 0, "b")`` (``[...]``, a dict's key msgspec hides, dropped)."""
    out: list[str | int] = []
    for name, index in re.findall(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]", at.removeprefix("$")):
        if name:
            out.append(name)
        elif index != "...":
            out.append(int(index))
    return tuple(out)


# ---- where each value sits: one scanner for TOML and JSON -----------------------------------

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def key_lines(text: str, fmt: str = "toml") -> dict[KeyPath, int]:
    """The line (from 1) of every key, table header and array item of valid TOML or JSON
    text, by key path; a value spanning lines is at its first. Never raises: text it
    cannot follow gives the lines found so far.

    Example:
        >>> lines = key_lines('a = 1\\n[[t]]\\nm = [\\n  [1, 2],\\n  [3, 4],\\n]\\n[[t]]\\n')
        >>> lines[("t", 0, "m", 1)], lines[("t", 1)]
        (5, 7)
    """
    scan = _Scanner(text)
    with contextlib.suppress(IndexError, ValueError, RecursionError):
        scan.document() if fmt == "toml" else scan.value(())
    return scan.lines


class _Scanner:
    def __init__(self, text: str) -> None:
        self.t, self.i = text, 0
        self.lines: dict[KeyPath, int] = {}
        self.breaks = [m.start() for m in re.finditer("\n", text)]
        self.arrays: dict[KeyPath, int] = {}  # array-of-tables path -> its last index

    def at(self, path: KeyPath) -> None:
        self.lines.setdefault(path, bisect.bisect_left(self.breaks, self.i) + 1)

    def blank(self, newlines: bool = True) -> None:
        while self.i < len(self.t):
            c = self.t[self.i]
            if c == "#":
                end = self.t.find("\n", self.i)
                self.i = len(self.t) if end < 0 else end
            elif c in " \t\r" or (newlines and c == "\n"):
                self.i += 1
            else:
                return

    def key(self) -> list[str]:
        parts: list[str] = []
        while True:
            self.blank(newlines=False)
            if self.t[self.i] in "\"'":
                start = self.i
                self.string()
                raw = self.t[start : self.i]
                parts.append(json.loads(raw) if raw[0] == '"' else raw[1:-1])
            else:
                m = _BARE.match(self.t, self.i)
                if not m:
                    raise ValueError("no key")
                parts.append(m.group())
                self.i = m.end()
            self.blank(newlines=False)
            if self.t[self.i] != ".":
                return parts
            self.i += 1

    def resolve(self, parts: list[str], prefix: KeyPath = ()) -> KeyPath:
        path = prefix
        for part in parts:
            path = (*path, part)
            if path in self.arrays:
                path = (*path, self.arrays[path])
        return path

    def document(self) -> None:
        table: KeyPath = ()
        while True:
            self.blank()
            if self.i >= len(self.t):
                return
            if self.t[self.i] == "[":
                double = self.t.startswith("[[", self.i)
                self.i += 2 if double else 1
                parts = self.key()
                self.i += 2 if double else 1
                if double:
                    base = self.resolve(parts[:-1])
                    name = (*base, parts[-1])
                    self.arrays[name] = self.arrays.get(name, -1) + 1
                    self.at(name)
                table = self.resolve(parts)
                self.at(table)
                continue
            path = self.resolve(self.key(), table)
            self.blank(newlines=False)
            self.i += 1  # '='
            self.value(path)

    def value(self, path: KeyPath) -> None:
        self.blank()
        self.at(path)
        c = self.t[self.i]
        if c in "\"'":
            self.string()
        elif c in "[{":
            self.items(path, c)
        else:
            m = re.compile(r"[^,\]}\n#]*").match(self.t, self.i)
            self.i = m.end() if m and m.end() > self.i else self.i + 1

    def items(self, path: KeyPath, opener: str) -> None:
        closer, k = ("]" if opener == "[" else "}"), 0
        self.i += 1
        while True:
            self.blank()
            if self.t[self.i] == closer:
                self.i += 1
                return
            if opener == "[":
                self.value((*path, k))
                k += 1
            else:
                parts = self.key()
                self.blank()
                self.i += 1  # '=' or ':'
                self.value((*path, *parts))
            self.blank()
            if self.t[self.i] == ",":
                self.i += 1

    def string(self) -> None:
        q = self.t[self.i]
        if self.t.startswith(q * 3, self.i):
            end = self.t.find(q * 3, self.i + 3)
            while q == '"' and end > 0 and _escaped(self.t, end):
                end = self.t.find(q * 3, end + 1)
            self.i = len(self.t) if end < 0 else end + 3
            while self.i < len(self.t) and self.t[self.i] == q:  # """a"""" ends later
                self.i += 1
            return
        j = self.i + 1
        while j < len(self.t) and self.t[j] != q:
            j += 2 if (q == '"' and self.t[j] == "\\") else 1
        self.i = j + 1


def _escaped(text: str, pos: int) -> bool:
    n = 0
    while pos - n - 1 >= 0 and text[pos - n - 1] == "\\":
        n += 1
    return n % 2 == 1
