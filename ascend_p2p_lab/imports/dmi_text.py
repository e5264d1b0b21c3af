"""``ascend-dmi --bw`` text output, read by structure: p2p matrices and bandwidth tables.

Two shapes (MindCluster ToolBox user guide, "Bandwidth Test"; the layout FlagRT/FlagPerf's
A3 fixtures for DMI 26.1 show, ``base/toolkits/_common/ascend/A3/tests/fixtures/``):

- a titled matrix: "Unidirectional Peer to Peer Test" or "Bidirectional Peer to Peer
  Test", a header row of device (or, with ``-m card``, card) numbers, then one row per
  source, 0 on the diagonal (rows = source, columns = destination). Columns are matched
  by the header's numbers, never by position; a missing or repeated source row, or a row
  with another number of cells, is an error naming its line;
- a table led by a header naming ``Size(Bytes)``, ``Bandwidth(GB/s)`` and optionally
  ``ID``, ``Execute Times``, ``Elapsed Time(us)`` in any order (step mode: one row per
  size, 2 B to 32 MB; fixed mode: one size); its direction (h2d, d2h, d2d or p2p) and
  device come from the lines above it, the command line in the capture, or ``kind=``;
  a host table no line names a device for (``-s N`` without ``-d``: every device, one
  row each) takes each row's ``ID`` as its device.

Chinese-localised titles and headers are read through the aliases below (单向/双向 with
点对点 or P2P; 大小, 带宽, 执行次数, 耗时). They are our reading of the localised builds:
no public raw capture of them was found.

Example:
    >>> from pathlib import Path
    >>> from ascend_p2p_lab.imports.common import Capture
    >>> text = ("Unidirectional Peer to Peer Test\\n   0     1\\n0  0     26.2\\n"
    ...         "1  25.9  0\\n")
    >>> rows = parse(Capture(Path("p2p.txt"), text, ""), size=1 << 28).rows
    >>> [(r["src"], r["dst"], r["bandwidth_GBps"], r["source_line"]) for r in rows]
    [(0, 1, 26.2, 3), (1, 0, 25.9, 4)]
"""

from __future__ import annotations

import dataclasses
import math
import re
import shlex
from dataclasses import dataclass, field

from ..schema import CARD_PATTERNS, PAIR_PATTERN, PAIR_PATTERNS
from ..vocab import BI, UNI
from .common import Capture, ImportInputError, Parsed, find_host, find_version, number, quantity
from .diagnosis import DIAG_LINE, device_ends, diagnosis_row

#: Matrix titles -> direction.
TITLES: dict[str, re.Pattern[str]] = {
    "uni": re.compile(r"(?i)unidirectional\s+peer\s+to\s+peer|单向.*(点对点|p2p)"),
    "bi": re.compile(r"(?i)bidirectional\s+peer\s+to\s+peer|双向.*(点对点|p2p)"),
}
#: Table columns -> how the header names them (English; Chinese aliases).
COLUMNS: dict[str, re.Pattern[str]] = {
    "id": re.compile(r"(?i)(?<![a-z])id(?![a-z(])|序号"),
    "size": re.compile(r"(?i)size\s*\(([^)]*)\)|(?:数据)?大小\s*\(([^)]*)\)"),
    "times": re.compile(r"(?i)execute\s+times|执行次数|拷贝次数"),
    "bandwidth": re.compile(r"(?i)bandwidth\s*\(([^)]*)\)|带宽\s*\(([^)]*)\)"),
    "elapsed": re.compile(r"(?i)elapsed\s+time\s*\(([^)]*)\)|(?:总)?耗时\s*\(([^)]*)\)"),
}
#: Words above a table that name its direction.
KIND_WORDS: dict[str, re.Pattern[str]] = {
    "h2d": re.compile(r"(?i)\bh2d\b|host\s+to\s+device"),
    "d2h": re.compile(r"(?i)\bd2h\b|device\s+to\s+host"),
    "d2d": re.compile(r"(?i)\bd2d\b|device\s+to\s+device"),
    "p2p": re.compile(r"(?i)\bp2p\b|peer\s+to\s+peer"),
}
_DEVICE = re.compile(r"(?i)(?:\bdevice(?:\s*id)?|设备)\s*[:：]?\s*(\d+)\b")
_PAIR = re.compile(r"(?i)from\s+device\s+(\d+)\s+to\s+device\s+(\d+)")
_SIZE_LINE = re.compile(r"(?i)(?:\bsize\b|大小)[^:：=\d|]*[:：=]\s*(\d+(?:\.\d+)?\s*[a-z]*)")
#: Cells of a matrix that say "not measured".
EMPTY_CELLS = ("n/a", "na", "-", "--")
#: A figure printed with d decimals is good to half a unit in its last place; beyond that
#: a time that does not give the printed bandwidth is not the window of those copies.
RATE_TOLERANCE = 0.05


@dataclass
class Command:
    """What the ascend-dmi command line in a capture (a prompt echo) asks for."""

    text: str | None = None
    kind: str | None = None
    card: bool = False
    size: int | None = None
    device: int | None = None
    pair: tuple[int, int] | None = None
    options: dict[str, str] = field(default_factory=dict)


def read_command(lines: list[str], name: str) -> Command:
    """The first line invoking ``ascend-dmi`` (its options), or an empty Command."""
    for i, line in enumerate(lines, 1):
        if "ascend-dmi" not in line:
            continue
        try:
            words = shlex.split(line[line.index("ascend-dmi") :])
        except ValueError:
            words = line[line.index("ascend-dmi") :].split()
        opts: dict[str, str] = {}
        for k, word in enumerate(words[1:], 1):
            if word.startswith("-") and k + 1 < len(words) and not words[k + 1].startswith("-"):
                opts[word.lstrip("-")] = words[k + 1]
        where = f"{name}:{i}"
        cmd = Command(text=" ".join(words), options=opts)
        cmd.kind = (opts.get("t") or opts.get("type") or "").lower() or None
        cmd.card = (opts.get("m") or opts.get("mode") or "").lower() == "card"
        if "s" in opts or "size" in opts:
            cmd.size = int(
                quantity(opts.get("s") or opts["size"], "size", where=where, default_unit="bytes")
            )
        dev = opts.get("d") or opts.get("device")
        cmd.device = int(dev) if dev and dev.isdigit() else None
        if opts.get("ds", "").isdigit() and opts.get("dd", "").isdigit():
            cmd.pair = (int(opts["ds"]), int(opts["dd"]))
        return cmd
    return Command()


def _ints(tokens: list[str]) -> list[int] | None:
    return [int(t) for t in tokens] if tokens and all(t.isdigit() for t in tokens) else None


def _matrix_header(lines: list[str], start: int, name: str) -> tuple[int, list[int]]:
    """(index, column numbers) of the header row after a title at ``start``."""
    for i in range(start + 1, len(lines)):
        tokens = lines[i].split()
        if not tokens:
            continue
        cols = _ints(tokens) or _ints(tokens[1:])  # a leading label ("src\\dst") allowed
        if cols is None or len(set(cols)) != len(cols):
            raise ImportInputError(
                f"{name}:{i + 1}",
                "expected the matrix's header row of "
                f"device numbers after the title, got {lines[i].strip()!r}",
            )
        return i, cols
    raise ImportInputError(
        f"{name}:{start + 1}", "a matrix title with no matrix after it (truncated?)"
    )


def _cell(token: str, where: str) -> float | None:
    if token.lower() in EMPTY_CELLS:
        return None
    return number(token, where=where, what="matrix cell")


def parse_matrix(
    lines: list[str], start: int, name: str
) -> tuple[dict[tuple[int, int], tuple[float, int]], int]:
    """The cells {(src, dst): (GB/s, line)} of the matrix titled at ``start`` (off the
    diagonal; "N/A" cells left out), and the index of the line after it."""
    head, cols = _matrix_header(lines, start, name)
    cells: dict[tuple[int, int], tuple[float, int]] = {}
    seen: dict[int, int] = {}
    i = head + 1
    while i < len(lines):
        tokens = lines[i].split()
        if not tokens or not tokens[0].isdigit():
            break
        where = f"{name}:{i + 1}"
        src = int(tokens[0])
        if src in seen:
            raise ImportInputError(where, f"source row {src} again (first on line {seen[src]})")
        if src not in cols:
            raise ImportInputError(
                where, f"source row {src} is not among the header's columns {cols}"
            )
        if len(tokens) - 1 != len(cols):
            raise ImportInputError(
                where, f"row {src} has {len(tokens) - 1} cells, the header {len(cols)} columns"
            )
        seen[src] = i + 1
        for dst, token in zip(cols, tokens[1:]):
            value = _cell(token, where)
            if dst != src and value is not None:
                cells[(src, dst)] = (value, i + 1)
        i += 1
    missing = [c for c in cols if c not in seen]
    if missing:
        raise ImportInputError(
            f"{name}:{head + 1}",
            f"the matrix has no row for source "
            f"{missing[0]} ({len(seen)} of {len(cols)} rows; truncated?)",
        )
    return cells, i


def _header_columns(line: str) -> dict[str, tuple[int, str | None]] | None:
    """{column: (position in the header, unit)} when line is a bandwidth table header."""
    found: dict[str, tuple[int, str | None]] = {}
    for col, pattern in COLUMNS.items():
        m = pattern.search(line)
        if m:
            unit = next((g for g in m.groups() if g), None) if m.groups() else None
            found[col] = (m.start(), unit)
    return found if "size" in found and "bandwidth" in found else None


def _context(
    lines: list[str], upto: int, stop: int
) -> tuple[str | None, int | None, tuple[int, int] | None]:
    """(kind, device, pair) named by the lines between ``stop`` and ``upto`` (nearest
    first)."""
    kind = device = pair = None
    for line in reversed(lines[stop:upto]):
        if pair is None and (m := _PAIR.search(line)):
            pair = (int(m.group(1)), int(m.group(2)))
        if kind is None:
            kind = next((k for k, p in KIND_WORDS.items() if p.search(line)), None)
        if device is None and (m := _DEVICE.search(line)) and not _PAIR.search(line):
            device = int(m.group(1))
    return kind, device, pair


def rate_window(
    size: float, gbps: float, token: str, elapsed: float | None, times: int | None
) -> tuple[float, int | None]:
    """(elapsed_us, copies) such that size * copies / elapsed_us is the printed rate: the
    tool's time is the window of all ``times`` copies, or of one; NaN when neither fits
    (the rate is kept, the time is not read as something it is not).

    Example:
        >>> rate_window(1000, 1.0, "1.0", 5.0, 5), rate_window(1000, 1.0, "1.0", 1.0, 5)
        ((5.0, 5), (1.0, 1))
    """
    if elapsed is None or elapsed <= 0 or gbps <= 0:
        return math.nan, times
    decimals = len(token.split(".")[1]) if "." in token else 0
    tol = max(RATE_TOLERANCE * gbps, 0.5 * 10**-decimals)
    for copies in ([times] if times else []) + [1]:
        if abs(size * copies / elapsed / 1e3 - gbps) <= tol:
            return elapsed, copies
    return math.nan, times


@dataclass
class _Table:
    kind: str
    device: int | None
    pair: tuple[int, int] | None
    direction: str = "uni"


def _table_kind(
    lines: list[str], head: int, stop: int, cmd: Command, kind: str | None, name: str
) -> _Table:
    found, device, pair = _context(lines, head, stop)
    what = found or cmd.kind or kind
    if what not in KIND_WORDS:
        raise ImportInputError(
            f"{name}:{head + 1}",
            "a bandwidth table whose direction (h2d, d2h, d2d, p2p) neither the lines above it nor "
            "a command line says; name it with --type",
        )
    if what == "p2p" and (pair or cmd.pair) is None:
        raise ImportInputError(
            f"{name}:{head + 1}",
            'a p2p bandwidth table without its pair ("from device S to device D" or -ds/-dd)',
        )
    titled = (d for line in reversed(lines[stop:head]) for d, p in TITLES.items() if p.search(line))
    return _Table(
        what, device if device is not None else cmd.device, pair or cmd.pair, next(titled, "uni")
    )


def _table_rows(
    lines: list[str], head: int, cols: dict[str, tuple[int, str | None]], table: _Table, name: str
) -> tuple[list[dict[str, object]], int]:
    order = sorted(cols, key=lambda c: cols[c][0])
    rows: list[dict[str, object]] = []
    i = head + 1
    while i < len(lines):
        tokens = lines[i].split()
        if not tokens or not re.match(r"^[-+]?\d", tokens[0]):
            break
        where = f"{name}:{i + 1}"
        if len(tokens) != len(order):
            raise ImportInputError(
                where,
                f"{len(tokens)} cells under a header of {len(order)} columns ({', '.join(order)})",
            )
        cell = dict(zip(order, tokens))
        size = quantity(cell["size"], "size", where=where, default_unit=cols["size"][1])
        gbps = quantity(
            cell["bandwidth"], "bandwidth", where=where, default_unit=cols["bandwidth"][1]
        )
        times = (
            int(number(cell["times"], where=where, what="execute times"))
            if "times" in cell
            else None
        )
        elapsed = (
            quantity(cell["elapsed"], "time", where=where, default_unit=cols["elapsed"][1])
            if "elapsed" in cell
            else None
        )
        window, copies = rate_window(size, gbps, cell["bandwidth"], elapsed, times)
        rows.append(
            _table_row(_row_device(table, cell, where), int(size), gbps, window, copies, i + 1)
        )
        i += 1
    if not rows:
        raise ImportInputError(
            f"{name}:{head + 1}", "a bandwidth table header with no rows under it (truncated?)"
        )
    return rows, i


def _row_device(table: _Table, cell: dict[str, str], where: str) -> _Table:
    """The table as one row sees it: a host or d2d table whose device no line names
    (``ascend-dmi --bw -t h2d -s N`` without ``-d`` tests every device, one row each) has
    the row's ``ID`` as its device; where a device is named, ``ID`` counts the rows."""
    if table.device is not None or table.kind == "p2p" or "id" not in cell:
        return table
    if not cell["id"].isdigit():
        raise ImportInputError(where, f"ID {cell['id']!r} is not a device number")
    return dataclasses.replace(table, device=int(cell["id"]))


def _table_row(
    table: _Table, size: int, gbps: float, elapsed: float, copies: int | None, line: int
) -> dict[str, object]:
    # a pair's bidirectional test (-ds/-dd under "Bidirectional Peer to Peer Test"): the
    # pair's total, as in the matrix
    value = "bidir_total_GBps" if table.direction == BI else "bandwidth_GBps"
    row: dict[str, object] = {
        "operation": table.kind,
        "direction": table.direction,
        "size_bytes": size,
        value: gbps,
        "elapsed_us": elapsed,
        "copies": copies,
        "sample": 0,
        "source_line": line,
    }
    if table.kind in ("h2d", "d2h", "d2d"):  # d2d: DMI's memory bandwidth of one device
        row.update(device_ends(table.kind, table.device))
    else:
        assert table.pair is not None
        row.update(
            pattern=PAIR_PATTERN, src=table.pair[0], dst=table.pair[1], peer="on", path="p2p"
        )
    return row


def _table_follows(lines: list[str], title: int) -> bool:
    """Whether the first non-blank line after a title is a bandwidth table's header."""
    nxt = next((ln for ln in lines[title + 1 :] if ln.strip()), "")
    return _header_columns(nxt) is not None


def _size_stated(lines: list[str], upto: int, stop: int, name: str) -> int | None:
    for i in range(upto - 1, stop - 1, -1):
        m = _SIZE_LINE.search(lines[i])
        if m:
            return int(quantity(m.group(1), "size", where=f"{name}:{i + 1}", default_unit="bytes"))
    return None


def _matrix_rows(
    cells: dict[tuple[int, int], tuple[float, int]], direction: str, card: bool, size: int
) -> list[dict[str, object]]:
    value = "bandwidth_GBps" if direction == UNI else "bidir_total_GBps"
    # card rows: src/dst and the group name card ids (the capture does not say which
    # devices form each card)
    pattern = CARD_PATTERNS[0] if card else PAIR_PATTERNS[0]
    return [
        {
            "operation": "p2p",
            "pattern": pattern,
            "src": s,
            "dst": d,
            "group": f"{s}->{d}" if card else None,
            "direction": direction,
            "peer": "on",
            "path": "p2p",
            "size_bytes": size,
            value: gbps,
            "sample": 0,
            "source_line": line,
        }
        for (s, d), (gbps, line) in sorted(cells.items())
    ]


def parse(
    capture: Capture, *, size: int | None = None, kind: str | None = None, card: bool | None = None
) -> Parsed:
    """Every p2p matrix and bandwidth table of a DMI text capture, as rows.

    A matrix's copy size comes from a ``size: N`` line above it, the command line's
    ``-s``, or ``size=`` (DMI's full matrix runs at a fixed size it does not print);
    bi cells are the pair's total (``bidir_total_GBps``): DMI does not give the two
    directions apart, so ``bandwidth_GBps`` stays empty on them. ``card`` (or ``-m card``
    on the command line) marks a card x card matrix (pattern ``card``, src/dst card ids).
    """
    lines, name = capture.lines, str(capture.path)
    cmd = read_command(lines, name)
    card = cmd.card if card is None else card
    rows: list[dict[str, object]] = []
    i, last = 0, 0
    while i < len(lines):
        direction = next((d for d, p in TITLES.items() if p.search(lines[i])), None)
        cols = None if direction else _header_columns(lines[i])
        if direction and _table_follows(lines, i):  # one pair (-ds/-dd): a table, no matrix
            i += 1
        elif direction:
            cells, end = parse_matrix(lines, i, name)
            n = _size_stated(lines, i, last, name) or cmd.size or size
            if n is None:
                raise ImportInputError(
                    f"{name}:{i + 1}",
                    "the p2p matrix does not say its copy size (DMI's full matrix runs at a fixed "
                    "size it does not print); give it with --size",
                )
            rows += _matrix_rows(cells, direction, card, n)
            i = last = end
        elif cols:
            table = _table_kind(lines, i, last, cmd, kind, name)
            found, end = _table_rows(lines, i, cols, table, name)
            rows += found
            i = last = end
        else:  # a --dg bandwidth line in text output
            m = DIAG_LINE.search(lines[i])
            if m:
                rows.append(diagnosis_row(m, f"{name}:{i + 1}", i + 1))
            i += 1
    if not rows:
        raise ImportInputError(
            f"{name}:1",
            'no p2p matrix ("Unidirectional Peer to Peer Test") and no bandwidth table '
            "(Size(Bytes) ... Bandwidth(GB/s)) and no --dg bandwidth line found: not ascend-dmi "
            "--bw output?",
        )
    return Parsed(rows, find_version(lines), cmd.text, find_host(lines))
