"""Health-check criteria as data: what a server should be, item by item, and where each
number comes from.

A criteria file is TOML with ``schema_version = 1``::

    schema_version = 1
    name = "atlas800t-a2 x 0.9"
    size_bytes = 67108864          # bandwidth criteria hold at this copy size
    latency_size_bytes = 4         # latency criteria: time per copy of this size
    [topology]                     # rows = source device, columns = destination
    links = [["X", "HCCS"],        # expected link class per ordered pair (an array
             ["HCCS", "X"]]        #   of rows, each an array of cells; X: the diagonal)
    peer_access = [["X", 1],       # expected: aclrtDeviceCanAccessPeer says 1 and the
                   [1, "X"]]       #   enable works (1), or not (0)
    basis = "preset atlas800t-a2"
    [[bandwidth]]                  # per link class (link = ...) or per pair (pair = [0, 1])
    link = "HCCS"
    direction = "uni"              # uni | bi (each direction while both run)
    initiator = "dst"              # dst pulls (a read) | src pushes (a write)
    min_GBps = 23.2
    basis = "..."                  # every criterion says where its number comes from
    [[latency]]                    # link or pair, max_us, basis
    [[host]]                       # direction = h2d | d2h, device (absent: every), min_GBps
    [[aggregate]]                  # pattern = one_to_all | all_to_one | card,
                                   # device or group (absent: every), min_GBps
    [[collective]]                 # operation (all_reduce, ...), size_bytes or size
                                   # ("256MiB"), min_busbw_GBps: the op on the check's
                                   # devices, as HCCL would run it (busbw nccl-tests' way)
    [verification]                 # required = true: every copy's bytes must arrive intact

:func:`load_criteria` refuses a bad file with :class:`CriteriaError`, whose message
starts ``FILE:LINE:`` (TOML syntax errors carry tomllib's line; for the others the key,
or the matrix row, is located in the text).

Example:
    >>> text = '''
    ... schema_version = 1
    ... [topology]
    ... links = [["X", "HCCS"], ["HCCS", "X"]]
    ... peer_access = [["X", 1], [1, "X"]]
    ... basis = "hand-written"
    ... [[bandwidth]]
    ... link = "HCCS"
    ... direction = "uni"
    ... initiator = "dst"
    ... min_GBps = 20
    ... basis = "half the link"
    ... '''
    >>> c = criteria_from_text(text, "c.toml")
    >>> c.device_count, c.table[["kind", "link", "bound", "value"]].values.tolist()
    (2, [['bandwidth', 'HCCS', 'min', 20.0]])
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

from .._version import schema_version_problem
from ..patterns.cards import group_name, parse_group_name
from ..schema import CARD_PATTERNS, COLLECTIVE_PATTERN, FANOUT_PATTERNS, HOST_PATTERNS
from ..topology.model import LINK_CLASSES, SELF
from ..vocab import CHECK_SAMPLES, DIRECTIONS, PAIR_INITIATORS
from .lines import locate, locate_row

CRITERIA_SCHEMA_VERSION = 1
MAX_CRITERIA_BYTES = 1 << 20
DEFAULT_SIZE_BYTES = 64 << 20  # past the A2/A3 saturation point (>= 2 MB) yet quick
DEFAULT_LATENCY_SIZE_BYTES = 4  # one word, as p2pBandwidthLatencyTest copies
DEFAULT_SAMPLES = CHECK_SAMPLES
DEFAULT_FRACTION = 0.9

HOST_DIRECTIONS = HOST_PATTERNS
#: The aggregates a criterion may name: a device with all its peers, card to card.
JUDGED_AGGREGATES = (*FANOUT_PATTERNS, *CARD_PATTERNS)

#: Columns of :attr:`Criteria.table`: one row per numeric criterion.
TABLE_COLUMNS = (
    "kind",
    "link",
    "src",
    "dst",
    "device",
    "group",
    "senders",
    "receivers",
    "pattern",
    "direction",
    "initiator",
    "bound",
    "value",
    "unit",
    "basis",
    "line",
    "operation",
    "size_bytes",
)

_TOP_KEYS = {
    "schema_version",
    "name",
    "description",
    "fraction",
    "size_bytes",
    "latency_size_bytes",
    "samples",
    "source",
    "topology",
    "bandwidth",
    "latency",
    "host",
    "aggregate",
    "collective",
    "verification",
}
#: per array of tables: its keys (required ones first), the bound key and its unit
_TABLES: dict[str, tuple[set[str], set[str], str, str]] = {
    "bandwidth": (
        {"direction", "initiator", "min_GBps", "basis"},
        {"link", "pair"},
        "min_GBps",
        "GB/s",
    ),
    "latency": ({"max_us", "basis"}, {"link", "pair"}, "max_us", "us"),
    "host": ({"direction", "min_GBps", "basis"}, {"device"}, "min_GBps", "GB/s"),
    "aggregate": ({"pattern", "min_GBps", "basis"}, {"device", "group"}, "min_GBps", "GB/s"),
    "collective": (
        {"operation", "min_busbw_GBps", "basis"},
        {"size_bytes", "size"},
        "min_busbw_GBps",
        "GB/s",
    ),
}


class CriteriaError(ValueError):
    """A criteria file that cannot be used: ``FILE:LINE: why`` (exit status 2)."""

    def __init__(self, source: str, line: int | None, message: str) -> None:
        self.source, self.line, self.message = source, line, message
        where = f"{source}:{line}" if line else source
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Criteria:
    """A server's expected state: link classes and peer access per ordered pair, numeric
    criteria as a table (:data:`TABLE_COLUMNS`), and whether every copy must verify."""

    links: tuple[tuple[str, ...], ...]
    peer_access: tuple[tuple[bool, ...], ...]
    table: pd.DataFrame
    topology_basis: str
    name: str = ""
    source: str = ""
    size_bytes: int = DEFAULT_SIZE_BYTES
    latency_size_bytes: int = DEFAULT_LATENCY_SIZE_BYTES
    samples: int = DEFAULT_SAMPLES
    fraction: float | None = None
    verification: bool = True
    verification_basis: str = "every copy's bytes must arrive intact"
    description: str = ""
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def device_count(self) -> int:
        """Number of devices the criteria describe."""
        return len(self.links)

    def kinds(self) -> set[str]:
        """The numeric criteria kinds present (bandwidth, latency, host, aggregate,
        collective)."""
        return set(self.table["kind"])


def empty_table() -> pd.DataFrame:
    """A criteria table with no rows and the right columns."""
    return pd.DataFrame({c: pd.Series(dtype=_dtype(c)) for c in TABLE_COLUMNS})


def _dtype(column: str) -> str:
    if column in ("src", "dst", "device", "line", "size_bytes"):
        return "Int64"
    return "float64" if column == "value" else "object"


def make_table(records: list[dict[str, Any]]) -> pd.DataFrame:
    """Criteria records (dicts with some of :data:`TABLE_COLUMNS`) as a typed table."""
    if not records:
        return empty_table()
    frame = pd.DataFrame.from_records(records)
    for c in TABLE_COLUMNS:
        if c not in frame:
            frame[c] = None
    frame = frame[list(TABLE_COLUMNS)]
    for c in TABLE_COLUMNS:
        frame[c] = frame[c].astype(_dtype(c)) if _dtype(c) != "object" else frame[c]
    return frame.reset_index(drop=True)


class _Reader:
    """Checks values of one file, raising CriteriaError at the line of the key."""

    def __init__(self, text: str, source: str) -> None:
        self.text, self.source = text, source

    def fail(
        self,
        message: str,
        table: str | None = None,
        index: int | None = None,
        key: str | None = None,
    ) -> CriteriaError:
        return CriteriaError(self.source, locate(self.text, table, index, key), message)

    def fail_row(self, message: str, key: str, row: int) -> CriteriaError:
        """An error at the line of row ``row`` of ``topology.<key>``."""
        return CriteriaError(self.source, locate_row(self.text, "topology", key, row), message)

    def number(
        self, value: Any, what: str, where: tuple[Any, ...], *, positive: bool = True
    ) -> float:
        ok = (
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and math.isfinite(value)
            and (value > 0 or not positive)
        )
        if not ok:
            raise self.fail(f"{what} must be a positive number, got {value!r}", *where)
        return float(value)

    def integer(
        self, value: Any, what: str, where: tuple[Any, ...], low: int = 1, high: int | None = None
    ) -> int:
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or value < low
            or (high is not None and value > high)
        ):
            span = f"{low}..{high}" if high is not None else f">= {low}"
            raise self.fail(f"{what} must be an integer {span}, got {value!r}", *where)
        return value

    def text_value(self, value: Any, what: str, where: tuple[Any, ...]) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(f"{what} must be a non-empty string, got {value!r}", *where)
        return value

    def choice(
        self, value: Any, what: str, allowed: tuple[str, ...], where: tuple[Any, ...]
    ) -> str:
        if value not in allowed:
            raise self.fail(f"{what} must be one of {', '.join(allowed)}; got {value!r}", *where)
        return value


# ---- the file -----------------------------------------------------------------------------


def load_criteria(path: str | os.PathLike[str]) -> Criteria:
    """Read and check a criteria file (see the module docstring).

    Raises :class:`CriteriaError` (a ValueError: exit status 2) with the file and line.
    """
    p = Path(path)
    if p.is_dir():
        raise CriteriaError(str(p), None, "is a folder; give the criteria file (TOML)")
    if not p.is_file():
        raise CriteriaError(str(p), None, "no such file")
    if p.stat().st_size > MAX_CRITERIA_BYTES:
        raise CriteriaError(str(p), None, f"larger than {MAX_CRITERIA_BYTES} bytes, refused")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CriteriaError(
            str(p), None, f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    return criteria_from_text(text, str(p))


def criteria_from_text(text: str, source: str = "<text>") -> Criteria:
    """Parse and check criteria TOML text; ``source`` names it in error messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None) or _line_of(str(exc))
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", " ".join(str(exc).split()))
        raise CriteriaError(source, line, f"malformed TOML: {reason}") from None
    r = _Reader(text, source)
    _check_top(data, r)
    links, peer, topo_basis = _topology(data, r)
    n = len(links)
    records = []
    for table in _TABLES:
        entries = data.get(table, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise r.fail(f"{table} must be an array of tables ([[{table}]])", None, None, table)
        for k, entry in enumerate(entries):
            records.append(_entry(table, k, entry, n, links, r))
    _no_duplicates(records, r)
    verification, v_basis = _verification(data, r)
    return Criteria(
        links=links,
        peer_access=peer,
        table=make_table(records),
        topology_basis=topo_basis,
        name=str(data.get("name", "")),
        source=str(data.get("source", "")),
        description=str(data.get("description", "")),
        size_bytes=r.integer(
            data.get("size_bytes", DEFAULT_SIZE_BYTES), "size_bytes", (None, None, "size_bytes")
        ),
        latency_size_bytes=r.integer(
            data.get("latency_size_bytes", DEFAULT_LATENCY_SIZE_BYTES),
            "latency_size_bytes",
            (None, None, "latency_size_bytes"),
        ),
        samples=r.integer(
            data.get("samples", DEFAULT_SAMPLES), "samples", (None, None, "samples"), 1, 1000
        ),
        fraction=(
            None
            if "fraction" not in data
            else r.number(data["fraction"], "fraction", (None, None, "fraction"))
        ),
        verification=verification,
        verification_basis=v_basis,
        meta={"path": source},
    )


def _line_of(message: str) -> int | None:
    m = re.search(r"line (\d+)", message)
    return int(m.group(1)) if m else None


def _check_top(data: dict[str, Any], r: _Reader) -> None:
    if "schema_version" not in data:
        raise r.fail(
            "no schema_version; criteria files start with schema_version = "
            f"{CRITERIA_SCHEMA_VERSION}"
        )
    problem = schema_version_problem(
        data["schema_version"], supported=CRITERIA_SCHEMA_VERSION, what="criteria"
    )
    if problem:
        raise r.fail(problem, None, None, "schema_version")
    for key in data:
        if key not in _TOP_KEYS:
            raise r.fail(
                f"unknown key {key!r}; known: {', '.join(sorted(_TOP_KEYS))}", None, None, key
            )
    for key in ("name", "description", "source"):
        if key in data and not isinstance(data[key], str):
            raise r.fail(f"{key} must be a string", None, None, key)


def _link_cell(value: Any) -> str | None:
    """Why a links cell off the diagonal is refused (None: a known class)."""
    if value in LINK_CLASSES:
        return None
    return f"unknown link class {value!r}; known: {', '.join(LINK_CLASSES)}"


def _peer_cell(value: Any) -> str | None:
    """Why a peer_access cell off the diagonal is refused (None: 0 or 1)."""
    ok = isinstance(value, int) and not isinstance(value, bool) and value in (0, 1)
    return None if ok else f"must be 0 or 1, got {value!r}"


def _matrix(rows: Any, key: str, r: _Reader, n: int | None, cell: Any) -> list[list[Any]]:
    """A square array of arrays, rows = source device, "X" on the diagonal; ``cell``
    says why an off-diagonal value is refused. Errors name the row's line."""
    if not isinstance(rows, list) or not rows or not all(isinstance(x, list) for x in rows):
        hint = (
            ' (a row is an array of cells, e.g. ["X", "HCCS"], not a string)'
            if isinstance(rows, list) and any(isinstance(x, str) for x in rows)
            else ""
        )
        raise r.fail(
            f"topology.{key} must be an array of rows, one per source device, "
            f"each an array of cells{hint}",
            "topology",
            None,
            key,
        )
    size = n or len(rows)
    widths = {len(row) for row in rows}
    if len(rows) != size or (n is None and len(widths) == 1 and widths != {size}):
        raise r.fail(
            f"topology.{key} must be {size} x {size} (rows = source device); it "
            f"has {len(rows)} rows of {max(widths)} cells",
            "topology",
            None,
            key,
        )
    for i, row in enumerate(rows):
        if len(row) != size:
            raise r.fail_row(
                f"topology.{key} row {i} has {len(row)} cells; the matrix is {size} x {size}",
                key,
                i,
            )
        if row[i] != SELF:
            raise r.fail_row(
                f"topology.{key} row {i}: the diagonal cell must be {SELF!r}, got {row[i]!r}",
                key,
                i,
            )
        for j, value in enumerate(row):
            why = None if i == j else cell(value)
            if why:
                raise r.fail_row(f"topology.{key} ({i},{j}): {why}", key, i)
    return rows


def _topology(
    data: dict[str, Any], r: _Reader
) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[bool, ...], ...], str]:
    topo = data.get("topology")
    if not isinstance(topo, dict):
        raise r.fail("no [topology] table: give links, peer_access and basis")
    for key in topo:
        if key not in ("links", "peer_access", "basis"):
            raise r.fail(f"unknown key topology.{key}", "topology", None, key)
    for key in ("links", "peer_access", "basis"):
        if key not in topo:
            raise r.fail(f"topology.{key} is missing", "topology", None, None)
    links = _matrix(topo["links"], "links", r, None, _link_cell)
    peer = _matrix(topo["peer_access"], "peer_access", r, len(links), _peer_cell)
    basis = r.text_value(topo["basis"], "topology.basis", ("topology", None, "basis"))
    return (
        tuple(tuple(row) for row in links),
        tuple(tuple(v == 1 for v in row) for row in peer),
        basis,
    )


def _pair(value: Any, n: int, where: tuple[Any, ...], r: _Reader) -> tuple[int, int]:
    ok = (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < n for v in value)
    )
    if not ok or value[0] == value[1]:
        raise r.fail(f"pair must be two different device ids below {n}, got {value!r}", *where)
    return int(value[0]), int(value[1])


def _entry(
    table: str,
    k: int,
    entry: dict[str, Any],
    n: int,
    links: tuple[tuple[str, ...], ...],
    r: _Reader,
) -> dict[str, Any]:
    """One [[table]] entry as a criteria record (checked)."""
    required, optional, bound_key, unit = _TABLES[table]
    for key in entry:
        if key not in required | optional:
            raise r.fail(
                f"unknown key {key!r} in [[{table}]]; known: "
                f"{', '.join(sorted(required | optional))}",
                table,
                k,
                key,
            )
    for key in sorted(required):
        if key not in entry:
            raise r.fail(f"[[{table}]] needs {key}", table, k, None)
    at = lambda key: (table, k, key)  # noqa: E731
    rec: dict[str, Any] = {
        "kind": table,
        "bound": "min" if bound_key.startswith("min") else "max",
        "value": r.number(entry[bound_key], bound_key, at(bound_key)),
        "unit": unit,
        "basis": r.text_value(entry["basis"], "basis", at("basis")),
        "line": locate(r.text, table, k, None),
    }
    if table in ("bandwidth", "latency"):
        rec.update(_link_or_pair(table, entry, n, links, r, at))
    if table == "bandwidth":
        rec["direction"] = r.choice(entry["direction"], "direction", DIRECTIONS, at("direction"))
        rec["initiator"] = r.choice(
            entry["initiator"], "initiator", PAIR_INITIATORS, at("initiator")
        )
    if table == "host":
        rec["direction"] = r.choice(
            entry["direction"], "direction", HOST_DIRECTIONS, at("direction")
        )
    if table == "aggregate":
        rec["pattern"] = r.choice(entry["pattern"], "pattern", JUDGED_AGGREGATES, at("pattern"))
        if "group" in entry:
            if rec["pattern"] not in CARD_PATTERNS:
                raise r.fail("group is for the card pattern; fan-outs take device", *at("group"))
            text = r.text_value(entry["group"], "group", at("group"))
            try:
                rec["senders"], rec["receivers"] = parse_group_name(text, n)
            except ValueError as exc:
                raise r.fail(str(exc), *at("group")) from None
            rec["group"] = group_name(rec["senders"], rec["receivers"])  # as rows name it
    if table == "collective":
        rec.update(_collective(entry, r, at))
    if "device" in entry:
        if table == "aggregate" and rec["pattern"] in CARD_PATTERNS:
            raise r.fail("the card pattern takes group, not device", *at("device"))
        rec["device"] = r.integer(entry["device"], "device", at("device"), 0, n - 1)
    return rec


def _collective(entry: dict[str, Any], r: _Reader, at: Any) -> dict[str, Any]:
    """A [[collective]] entry's operation and size (size_bytes, or a size as text)."""
    from ..collectives.busbw import OPERATIONS
    from ..units import parse_size

    op = r.choice(entry["operation"], "operation", OPERATIONS, at("operation"))
    if ("size_bytes" in entry) == ("size" in entry):
        raise r.fail(
            '[[collective]] needs size_bytes (a number) or size ("256MiB"), not both',
            *at("size" if "size" in entry else "operation"),
        )
    if "size_bytes" in entry:
        size = r.integer(entry["size_bytes"], "size_bytes", at("size_bytes"))
    else:
        try:
            size = parse_size(r.text_value(entry["size"], "size", at("size")))
        except ValueError as exc:
            raise r.fail(str(exc), *at("size")) from None
    return {"operation": op, "size_bytes": size, "pattern": COLLECTIVE_PATTERN}


def _link_or_pair(
    table: str,
    entry: dict[str, Any],
    n: int,
    links: tuple[tuple[str, ...], ...],
    r: _Reader,
    at: Any,
) -> dict[str, Any]:
    if ("link" in entry) == ("pair" in entry):
        raise r.fail(
            f"[[{table}]] needs link (a class) or pair ([src, dst]), not both",
            *at("link" if "link" in entry else "basis"),
        )
    if "pair" in entry:
        src, dst = _pair(entry["pair"], n, at("pair"), r)
        return {"src": src, "dst": dst, "link": links[src][dst]}
    cls = r.choice(entry["link"], "link", LINK_CLASSES, at("link"))
    present = {c for i, row in enumerate(links) for j, c in enumerate(row) if i != j}
    if cls not in present:
        raise r.fail(f"link class {cls} occurs in no pair of topology.links", *at("link"))
    return {"link": cls}


def _no_duplicates(records: list[dict[str, Any]], r: _Reader) -> None:
    seen: dict[tuple[Any, ...], int | None] = {}
    for rec in records:
        key = tuple(
            rec.get(c)
            for c in (
                "kind",
                "link",
                "src",
                "dst",
                "device",
                "senders",
                "receivers",
                "pattern",
                "direction",
                "initiator",
                "operation",
                "size_bytes",
            )
        )
        if key in seen:
            raise CriteriaError(
                r.source,
                rec["line"],
                f"a second [[{rec['kind']}]] for the same item (the first is at line {seen[key]})",
            )
        seen[key] = rec["line"]


def _verification(data: dict[str, Any], r: _Reader) -> tuple[bool, str]:
    table = data.get("verification", {"required": True})
    if not isinstance(table, dict):
        raise r.fail("verification must be a table ([verification])", None, None, "verification")
    for key in table:
        if key not in ("required", "basis"):
            raise r.fail(f"unknown key verification.{key}", "verification", None, key)
    required = table.get("required", True)
    if not isinstance(required, bool):
        raise r.fail(
            "verification.required must be true or false", "verification", None, "required"
        )
    basis = table.get("basis", "every copy's bytes must arrive intact")
    return required, r.text_value(basis, "verification.basis", ("verification", None, "basis"))
