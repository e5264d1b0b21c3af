"""Where a value sits in TOML text: the line of a key, and of one row of an array of
arrays, so that a refusal names ``FILE:LINE``.

Example:
    >>> text = 'a = 1\\n[t]\\nm = [\\n  # a comment [\\n  ["X", "1]"],\\n  [1, "X"],\\n]\\n'
    >>> locate(text, "t", None, "m"), locate_row(text, "t", "m", 1)
    (3, 6)
"""

from __future__ import annotations

import re

#: A table header line, ``[name]`` or ``[[name]]`` (not a row of a multi-line array).
_HEADER = re.compile(r"^\s*\[\[?\s*[A-Za-z_][\w.-]*\s*\]\]?\s*(#.*)?$")


def locate(text: str, table: str | None, index: int | None, key: str | None) -> int | None:
    """The 1-based line of ``key`` in the ``index``-th ``[[table]]`` (or in ``[table]``,
    or at the top level when table is None); the table's header line when the key is
    absent (or the header of a table named ``key``, ``[[key]]`` or ``[table.key]``);
    None when not found.

    Example:
        >>> locate("a = 1\\n[[b]]\\nx = 1\\n[[b]]\\nx = 2\\n", "b", 1, "x")
        5
    """
    lines = text.splitlines()
    if table is None:
        start, header = 0, None
    else:
        pattern = re.compile(
            rf"^\s*\[\[\s*{re.escape(table)}\s*\]\]"
            if index is not None
            else rf"^\s*\[\s*{re.escape(table)}\s*\]"
        )
        hits = [i for i, line in enumerate(lines) if pattern.match(line)]
        k = index or 0
        if k >= len(hits):
            return None
        header = hits[k]
        start = header + 1
    want = re.compile(rf"^\s*\"?{re.escape(key)}\"?\s*=") if key else None
    for i in range(start, len(lines)):
        if _HEADER.match(lines[i]):
            break
        if want is not None and want.match(lines[i]):
            return i + 1
    if key:  # a table of that name (a misspelt [[pairr]], [topology.extra]): its header
        name = re.escape(key if table is None else f"{table}.{key}")
        opens = re.compile(rf"^\s*\[\[?\s*{name}\s*(\]|\.)")
        for i, line in enumerate(lines):
            if opens.match(line):
                return i + 1
    return None if header is None else header + 1


def locate_row(text: str, table: str | None, key: str, row: int) -> int | None:
    """The 1-based line where row ``row`` (0-based) of the array of arrays ``key`` opens;
    the key's line when the value has no such row (strings and comments are skipped, so
    a ``[`` inside them is no row)."""
    first = locate(text, table, None, key)
    if first is None:
        return None
    offsets = [m.start() for m in re.finditer(r"^", text, flags=re.M)]
    pos = text.index("=", offsets[first - 1]) + 1
    depth, seen, quote = 0, -1, ""
    while pos < len(text):
        ch = text[pos]
        if depth == 0 and ch not in " \t[":
            break  # not an array: no rows
        if quote:
            if ch == "\\" and quote == '"':
                pos += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            pos = text.find("\n", pos)
            if pos < 0:
                break
        elif ch == "[":
            depth += 1
            if depth == 2:
                seen += 1
                if seen == row:
                    return text.count("\n", 0, pos) + 1
        elif ch == "]":
            depth -= 1
            if depth <= 0:
                break
        pos += 1
    return first
