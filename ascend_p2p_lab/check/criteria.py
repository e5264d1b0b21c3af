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
    [[spread]]                     # link or pair, direction, initiator, max_cv_percent:
                                   # the CV of a pair's samples (check/spread.py)
    [verification]                 # required = true: every copy's bytes must arrive intact
    [severity]                     # per table: fail (the default) or warn, e.g.
    latency = "warn"               #   (peer_access, link_class, bandwidth, latency, host,
                                   #   aggregate, collective, verification)
    overlay = true                 # (top level) this file only overrides the bars of the
                                   #   criteria before it (:mod:`.layers`): no [topology]

Every entry of a numeric table may also say ``severity = "warn"`` (over its table's) and
``action = "..."`` (what an operator does next, over the item's default: :mod:`.severity`).

:func:`load_criteria` reads the file through :mod:`..typedfile` and refuses a bad one
with :class:`CriteriaError`: ``FILE:LINE: field 'x.y': why`` (the line of the key, the
matrix row or the table's header; a syntax error at the parser's line).

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

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

import msgspec
import pandas as pd

from .._version import schema_version_problem
from ..collectives.busbw import OPERATIONS
from ..patterns.cards import group_name, parse_group_name
from ..schema import CARD_PATTERNS, COLLECTIVE_PATTERN, FANOUT_PATTERNS, HOST_PATTERNS
from ..topology.model import LINK_CLASSES, SELF
from ..topology.tables import LinkName
from ..typedfile import Counting, Document, FileError, KeyPath, Positive, Text, Whole
from ..units import parse_size
from ..vocab import (
    AGGREGATE_ITEM,
    BANDWIDTH_ITEM,
    CHECK_SAMPLES,
    COLLECTIVE_ITEM,
    DIE_LINK_ITEM,
    DIRECTIONS,
    HOST_ITEM,
    ITEM_KINDS,
    LATENCY_ITEM,
    PAIR_INITIATORS,
    SPREAD_ITEM,
)
from .dieitems import DieLinkTable, die_record

CRITERIA_SCHEMA_VERSION = 1
DEFAULT_SIZE_BYTES = 64 << 20  # past the A2/A3 saturation point (>= 2 MB) yet quick
DEFAULT_LATENCY_SIZE_BYTES = 4  # one word, as p2pBandwidthLatencyTest copies
DEFAULT_SAMPLES = CHECK_SAMPLES
DEFAULT_FRACTION = 0.9

HOST_DIRECTIONS = HOST_PATTERNS
#: The aggregates a criterion may name: a device with all its peers, card to card.
JUDGED_AGGREGATES = (*FANOUT_PATTERNS, *CARD_PATTERNS)

#: The columns every kind's rows share (:data:`TABLE_COLUMNS` adds the kinds' own).
_SHARED_COLUMNS = (
    *("kind", "link", "src", "dst", "device", "group", "senders", "receivers", "pattern"),
    *("direction", "initiator", "bound", "value", "unit", "basis", "line", "operation"),
    *("size_bytes", "severity", "action", "file"),
)
#: The columns of an item's bar and its origin: every entry fills them.
BAR_COLUMNS = ("bound", "value", "unit", "basis", "line", "severity", "action", "file")
#: An item's severity: a failing ``fail`` item fails the check, a ``warn`` item warns.
SEVERITIES = ("fail", "warn")
#: The kinds a ``[severity]`` table may name.
SEVERITY_KINDS = ITEM_KINDS


class CriteriaError(FileError):
    """A criteria file that cannot be used: ``FILE:LINE: field 'x.y': why`` (exit 2)."""


# ---- the file's tables as typed structs -------------------------------------------------------


class _Table(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    basis: Text


class _TopologyTable(_Table):
    links: list[list[Any]]
    peer_access: list[list[Any]]


class _Judged(_Table, kw_only=True):
    """An entry of a numeric table: its bar, and how a failure of it counts."""

    severity: Literal[SEVERITIES] | None = None  # type: ignore[valid-type]
    action: Text | None = None


# An entry's fields are in the order the writer writes them (:attr:`Table.keys`).


class _LinkOrPair(_Judged, kw_only=True):
    link: LinkName | None = None
    pair: tuple[Whole, Whole] | None = None


class _Latency(_LinkOrPair, kw_only=True):
    max_us: Positive


class _Directed(_LinkOrPair, kw_only=True):
    direction: Literal[DIRECTIONS]  # type: ignore[valid-type]
    initiator: Literal[PAIR_INITIATORS]  # type: ignore[valid-type]


class _Bandwidth(_Directed, kw_only=True):
    min_GBps: Positive


class _Spread(_Directed, kw_only=True):
    max_cv_percent: Positive


class _Host(_Judged, kw_only=True):
    direction: Literal[HOST_DIRECTIONS]  # type: ignore[valid-type]
    device: Whole | None = None
    min_GBps: Positive


class _Aggregate(_Judged, kw_only=True):
    pattern: Literal[JUDGED_AGGREGATES]  # type: ignore[valid-type]
    device: Whole | None = None
    group: Text | None = None
    min_GBps: Positive


class _Collective(_Judged, kw_only=True):
    operation: Literal[OPERATIONS]  # type: ignore[valid-type]
    size_bytes: Counting | None = None
    size: Text | None = None
    min_busbw_GBps: Positive


class _Verification(_Table):
    required: bool = True
    basis: Text = "every copy's bytes must arrive intact"


_Severity = msgspec.defstruct(
    "_Severity",
    [(k, Literal[SEVERITIES] | None, None) for k in SEVERITY_KINDS],  # type: ignore[valid-type]
    forbid_unknown_fields=True,
    kw_only=True,
)


def _aggregate(doc: Document, at: KeyPath, entry: _Aggregate, links: Any) -> dict[str, Any]:
    """An [[aggregate]] entry's card group (senders, receivers), or its device."""
    rec: dict[str, Any] = {}
    if entry.group is not None:
        if entry.pattern not in CARD_PATTERNS:
            raise doc.fail((*at, "group"), "group is for the card pattern; fan-outs take device")
        try:
            rec["senders"], rec["receivers"] = parse_group_name(entry.group, len(links))
        except ValueError as exc:
            raise doc.fail((*at, "group"), str(exc)) from None
        rec["group"] = group_name(rec["senders"], rec["receivers"])  # as rows name it
    if entry.device is not None and entry.pattern in CARD_PATTERNS:
        raise doc.fail((*at, "device"), "the card pattern takes group, not device")
    return rec


def _collective(doc: Document, at: KeyPath, entry: _Collective, links: Any) -> dict[str, Any]:
    """A [[collective]] entry's size (size_bytes, or a size as text)."""
    if (entry.size_bytes is None) == (entry.size is None):
        raise doc.fail(
            (*at, "size" if entry.size is not None else "operation"),
            'needs size_bytes (a number) or size ("256MiB"), not both',
        )
    size = entry.size_bytes
    if entry.size is not None:
        try:
            size = parse_size(entry.size)
        except ValueError as exc:
            why = str(exc).replace(f"size {entry.size!r} ", "")
            raise doc.fail((*at, "size"), f"{why}, got {entry.size!r}") from None
    return {"size_bytes": size, "pattern": COLLECTIVE_PATTERN}


def _link_or_pair(doc: Document, at: KeyPath, entry: Any, links: list[list[Any]]) -> dict[str, Any]:
    if (entry.link is None) == (entry.pair is None):
        raise doc.fail(
            (*at, "link" if entry.link is not None else "basis"),
            "needs link (a class) or pair ([src, dst]), not both",
        )
    if entry.pair is not None:
        src, dst = entry.pair
        if src == dst or max(src, dst) >= len(links):
            raise doc.fail(
                (*at, "pair"),
                f"two different device ids below {len(links)}, got {list(entry.pair)}",
            )
        return {"src": src, "dst": dst, "link": links[src][dst]}
    present = {c for i, row in enumerate(links) for j, c in enumerate(row) if i != j}
    if entry.link not in present:
        raise doc.fail(
            (*at, "link"), f"link class {entry.link} occurs in no pair of topology.links"
        )
    return {"link": entry.link}


@dataclass(frozen=True)
class Table:
    """``[[name]]``, a table of numeric criteria (the ``kind`` of its rows, a ``[severity]``
    key): its entry's struct, the key of its bar (``min_`` a floor, ``max_`` a ceiling) and
    unit, what checks an entry beyond its types giving its columns, the columns only it
    fills, a comment written above it."""

    name: str
    entry: type[msgspec.Struct]
    bound: str
    unit: str
    fill: Callable[[Document, KeyPath, Any, Any], dict[str, Any]] | None = None
    columns: tuple[str, ...] = ()
    above: str = ""

    @property
    def keys(self) -> tuple[str, ...]:
        """The keys naming an entry's item, in the order written: its fields that are table
        columns (and ``pair``: src and dst), but its bar's."""
        fields = self.entry.__struct_fields__
        return tuple(
            f for f in fields if f == "pair" or (f in TABLE_COLUMNS and f not in BAR_COLUMNS)
        )


_SPREAD = (
    "spread: the coefficient of variation of a pair's samples at size_bytes, in percent, at "
    "most max_cv_percent (derived: an upper quantile of the CV the jitter alone gives, x a "
    "margin; see each basis)"
)
#: The numeric tables, in the order a file is written.
TABLES = (
    Table(BANDWIDTH_ITEM, _Bandwidth, "min_GBps", "GB/s", _link_or_pair),
    Table(LATENCY_ITEM, _Latency, "max_us", "us", _link_or_pair),
    Table(HOST_ITEM, _Host, "min_GBps", "GB/s"),
    Table(AGGREGATE_ITEM, _Aggregate, "min_GBps", "GB/s", _aggregate),
    Table(COLLECTIVE_ITEM, _Collective, "min_busbw_GBps", "GB/s", _collective),
    Table(SPREAD_ITEM, _Spread, "max_cv_percent", "% CV", _link_or_pair, above=_SPREAD),
    Table(DIE_LINK_ITEM, DieLinkTable, "min_GBps", "GB/s", die_record, columns=("die_link",)),
)
#: Columns of :attr:`Criteria.table`: one row per numeric criterion.
TABLE_COLUMNS = (*_SHARED_COLUMNS, *(c for t in TABLES for c in t.columns))
#: What makes two entries the same item's bar (a second one in a file is refused; a later
#: layer's replaces an earlier layer's: :mod:`.layers`): every column but the bar's and
#: ``group`` (the name of ``senders`` and ``receivers``).
ENTRY_KEYS = tuple(c for c in TABLE_COLUMNS if c not in (*BAR_COLUMNS, "group"))


class _Head(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    schema_version: int
    topology: _TopologyTable | None = None
    overlay: bool = False
    severity: _Severity = msgspec.field(default_factory=_Severity)  # type: ignore[valid-type]
    name: str = ""
    description: str = ""
    source: str = ""
    fraction: Positive | None = None
    size_bytes: Counting = DEFAULT_SIZE_BYTES
    latency_size_bytes: Counting = DEFAULT_LATENCY_SIZE_BYTES
    samples: Annotated[int, msgspec.Meta(ge=1, le=1000)] = DEFAULT_SAMPLES
    verification: _Verification = msgspec.field(default_factory=_Verification)


#: A criteria file: its head, and a list of entries per numeric table.
_CriteriaFile = msgspec.defstruct(
    "_CriteriaFile",
    [(t.name, list[t.entry], []) for t in TABLES],  # type: ignore[name-defined]
    bases=(_Head,),
    forbid_unknown_fields=True,
    kw_only=True,
)


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
    #: per kind, the severity of its items when their entry says none (absent: fail)
    severity: dict[str, str] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def device_count(self) -> int:
        """Number of devices the criteria describe."""
        return len(self.links)

    def misfit(self, what: str) -> ValueError:
        """The refusal of these criteria for a server or run they do not describe: at
        their file's ``topology.links`` when they came from a file."""
        at = self.meta.get("links_at")
        return ValueError(what) if at is None else CriteriaError(*at, "topology.links", what)


def _dtype(column: str) -> str:
    if column in ("src", "dst", "device", "line", "size_bytes"):
        return "Int64"
    return "float64" if column == "value" else "object"


def make_table(records: list[dict[str, Any]]) -> pd.DataFrame:
    """Criteria records (dicts with some of :data:`TABLE_COLUMNS`) as a typed table."""
    if not records:
        return pd.DataFrame({c: pd.Series(dtype=_dtype(c)) for c in TABLE_COLUMNS})
    frame = pd.DataFrame.from_records(records)
    for c in TABLE_COLUMNS:
        if c not in frame:
            frame[c] = None
    frame = frame[list(TABLE_COLUMNS)]
    for c in TABLE_COLUMNS:
        frame[c] = frame[c].astype(_dtype(c)) if _dtype(c) != "object" else frame[c]
    return frame.reset_index(drop=True)


# ---- the file -----------------------------------------------------------------------------


def load_criteria(path: str | os.PathLike[str]) -> Criteria:
    """Read and check a criteria file (see the module docstring).

    Raises :class:`CriteriaError` (a ValueError: exit status 2) with the file and line.
    """
    return _criteria(Document.from_path(path, error=CriteriaError))


def criteria_from_text(text: str, source: str = "<text>") -> Criteria:
    """Parse and check criteria TOML text; ``source`` names it in error messages."""
    return _criteria(Document.from_text(text, source, error=CriteriaError))


def _criteria(doc: Document, base: Criteria | None = None) -> Criteria:
    """The criteria of one file; an ``overlay = true`` file (no [topology] needed) is read
    on the devices and link classes of ``base``, the criteria below it (:mod:`.layers`
    stacks them)."""
    if "schema_version" not in doc.data:
        raise doc.fail(
            ("schema_version",),
            f"missing: criteria files start with schema_version = {CRITERIA_SCHEMA_VERSION}",
        )
    file = doc.convert(doc.data, _CriteriaFile)
    problem = schema_version_problem(
        file.schema_version, supported=CRITERIA_SCHEMA_VERSION, what="criteria"
    )
    if problem:
        raise doc.fail(("schema_version",), problem)
    if file.topology is None and not (file.overlay and base is not None):
        raise doc.fail(
            ("topology",),
            "missing (a file that only overrides bars of the criteria before it says "
            "overlay = true, after a complete one)"
            if not file.overlay
            else "missing: an overlay = true file overrides the criteria before it; give a "
            "complete criteria file (or none: the preset's model) first",
        )
    if file.topology is None:
        links, peer = [list(r) for r in base.links], None  # type: ignore[union-attr]
    else:
        links = _matrix(doc, file.topology.links, "links", len(file.topology.links), _link_cell)
        peer = _matrix(doc, file.topology.peer_access, "peer_access", len(links), _peer_cell)
    records = [
        _entry(doc, table, k, entry, links)
        for table in TABLES
        for k, entry in enumerate(getattr(file, table.name))
    ]
    _no_duplicates(doc, records)
    severity = {k: v for k in SEVERITY_KINDS if (v := getattr(file.severity, k)) is not None}
    meta: dict[str, Any] = {"path": doc.source, "overlay": file.overlay, "given": set(doc.data)}
    meta["layers"] = [f"file {doc.source}"]
    meta["severity_at"] = {k: (doc.source, doc.line(("severity", k))) for k in severity}
    if "verification" in doc.data:
        meta["verification_at"] = (doc.source, doc.line(("verification",)))
    if peer is not None:
        meta["links_at"] = (doc.source, doc.line(("topology", "links")))
        meta["topology_rows"] = {
            kind: (doc.source, [doc.line(("topology", key, i)) for i in range(len(links))])
            for kind, key in (("link_class", "links"), ("peer_access", "peer_access"))
        }
    topology = file.topology
    return Criteria(
        links=tuple(tuple(row) for row in links),
        peer_access=base.peer_access  # type: ignore[union-attr]
        if peer is None
        else tuple(tuple(v == 1 for v in row) for row in peer),
        table=make_table(records),
        topology_basis=base.topology_basis if topology is None else topology.basis,  # type: ignore[union-attr]
        name=file.name,
        source=file.source,
        description=file.description,
        size_bytes=file.size_bytes,
        latency_size_bytes=file.latency_size_bytes,
        samples=file.samples,
        fraction=file.fraction,
        verification=file.verification.required,
        verification_basis=file.verification.basis,
        severity=severity,
        meta=meta,
    )


def _link_cell(value: Any) -> str | None:
    """Why a links cell off the diagonal is refused (None: a known class)."""
    if value in LINK_CLASSES:
        return None
    return f"unknown link class {value!r}; known: {', '.join(LINK_CLASSES)}"


def _peer_cell(value: Any) -> str | None:
    """Why a peer_access cell off the diagonal is refused (None: 0 or 1)."""
    ok = isinstance(value, int) and not isinstance(value, bool) and value in (0, 1)
    return None if ok else f"must be 0 or 1, got {value!r}"


def _matrix(doc: Document, rows: list[list[Any]], key: str, n: int, cell: Any) -> list[list[Any]]:
    """A square array of arrays, rows = source device, "X" on the diagonal; ``cell``
    says why an off-diagonal value is refused. Errors name the row's line."""
    at = ("topology", key)
    if not rows:
        raise doc.fail(at, "needs one row per source device")
    widths = {len(row) for row in rows}
    if len(rows) != n or (len(widths) == 1 and widths != {n}):
        raise doc.fail(
            at,
            f"must be {n} x {n} (rows = source device); it has {len(rows)} rows of "
            f"{max(widths)} cells",
        )
    for i, row in enumerate(rows):
        if len(row) != n:
            raise doc.fail((*at, i), f"row {i} has {len(row)} cells; the matrix is {n} x {n}")
        if row[i] != SELF:
            raise doc.fail((*at, i), f"row {i}: the diagonal cell must be {SELF!r}, got {row[i]!r}")
        for j, value in enumerate(row):
            why = None if i == j else cell(value)
            if why:
                raise doc.fail((*at, i), f"({i},{j}): {why}")
    return rows


def _entry(doc: Document, table: Table, k: int, entry: Any, links: Any) -> dict[str, Any]:
    """One [[table]] entry as a criteria record (what its types cannot say checked)."""
    at = (table.name, k)
    rec: dict[str, Any] = {
        "kind": table.name,
        "bound": "min" if table.bound.startswith("min") else "max",
        "value": float(getattr(entry, table.bound)),
        "unit": table.unit,
        "basis": entry.basis,
        "line": doc.line(at),
        "severity": entry.severity,
        "action": entry.action,
        "file": doc.source,
    }
    for key in ("direction", "initiator", "pattern", "operation"):
        if hasattr(entry, key):
            rec[key] = getattr(entry, key)
    if table.fill is not None:
        rec.update(table.fill(doc, at, entry, links))
    if getattr(entry, "device", None) is not None:
        rec["device"] = _device(doc, (*at, "device"), entry.device, len(links))
    return rec


def _device(doc: Document, at: KeyPath, device: int, n: int) -> int:
    if device >= n:
        raise doc.fail(at, f"device {device} is not on this server (its devices: 0..{n - 1})")
    return device


def _no_duplicates(doc: Document, records: list[dict[str, Any]]) -> None:
    seen: dict[tuple[Any, ...], int | None] = {}
    for k, rec in enumerate(records):
        key = tuple(rec.get(c) for c in ENTRY_KEYS)
        if key in seen:
            index = sum(1 for r in records[:k] if r["kind"] == rec["kind"])
            raise doc.fail(
                (rec["kind"], index),
                f"a second [[{rec['kind']}]] for the same item (the first is at line {seen[key]})",
            )
        seen[key] = rec["line"]
