"""Text tables: the one printer of every aligned table the toolkit prints (the N x N
grids, ``presets``, ``patterns``, ``history``, ``check``'s items, and hccl_test's
layout of ``collectives`` and ``compare``: columns joined by :data:`HCCL_SEP`, its rows
right-trimmed). Standard library only: below every layer, light enough for ``--help``.

A column is at least ``width`` wide (``fit``: as wide as its widest cell), its cells
aligned left (``<``) or right (``>``); ``gap`` is the text before it (default: the
table's ``sep``). A cell wider than its column pushes the rest of its line right, as
Python's ``format`` does.

Example:
    >>> cols = [Column("name", fit=True), Column("n", 3, ">")]
    >>> print("\\n".join(table_lines([["a2", 8], ["a3-card", 16]], cols)))
    name       n
    a2         8
    a3-card   16
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: hccl_test's column separator (``data_size(Bytes) | aveg_time(us) | ...``).
HCCL_SEP = " | "


@dataclass(frozen=True)
class Column:
    """One column: its heading, least width, alignment, and the text before it."""

    head: str = ""
    width: int = 0
    align: str = "<"
    fit: bool = False
    gap: str | None = None


def _line(cells: Sequence[str], columns: Sequence[Column], widths: list[int], sep: str) -> str:
    parts = []
    for i, (cell, col, width) in enumerate(zip(cells, columns, widths)):
        if i:
            parts.append(sep if col.gap is None else col.gap)
        parts.append(f"{cell:{col.align}{width}}" if width else cell)
    return "".join(parts)


def table_lines(
    rows: Iterable[Sequence[object]],
    columns: Sequence[Column],
    *,
    sep: str = "  ",
    header: bool = True,
    strip: bool = False,
) -> list[str]:
    """The table's lines: the headings (``header``), then one line per row, each cell
    as ``str`` gives it; ``strip``: the rows right-trimmed (hccl_test's rows; its
    heading is printed as it is)."""
    cells = [[str(c) for c in row] for row in rows]
    for row in cells:
        if len(row) != len(columns):
            raise ValueError(f"a row of {len(row)} cells in a table of {len(columns)} columns")
    widths = [
        max([c.width, *(len(r[i]) for r in cells)]) if c.fit else c.width
        for i, c in enumerate(columns)
    ]
    out = [_line([c.head for c in columns], columns, widths, sep)] if header else []
    for row in cells:
        line = _line(row, columns, widths, sep)
        out.append(line.rstrip() if strip else line)
    return out


def row_line(cells: Sequence[object], columns: Sequence[Column], sep: str = "  ") -> str:
    """One row alone, aligned as in its table (a line printed as it is judged).

    Example:
        >>> cols = [Column(width=4), Column(width=14), Column()]
        >>> row_line(["PASS", "latency 0->1", "8.02 / 9.00 us"], cols)
        'PASS  latency 0->1    8.02 / 9.00 us'
    """
    return table_lines([cells], columns, sep=sep, header=False)[0]


def print_table(
    rows: Iterable[Sequence[object]],
    columns: Sequence[Column],
    *,
    title: str | None = None,
    sep: str = "  ",
    header: bool = True,
) -> None:
    """The table on stdout, under its title (when given)."""
    if title is not None:
        print(title)
    for line in table_lines(rows, columns, sep=sep, header=header):
        print(line)
