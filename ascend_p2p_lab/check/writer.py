"""Criteria as TOML text (through tomlkit, a comment beside the values it explains): what
``criteria --out`` writes and :func:`.load_criteria` reads.

Example:
    >>> from ascend_p2p_lab.check.criteria import criteria_from_text, make_table
    >>> c = criteria_from_text('''schema_version = 1
    ... [topology]
    ... links = [["X", "SIO"], ["SIO", "X"]]
    ... peer_access = [["X", 1], [1, "X"]]
    ... basis = "doc"
    ... ''')
    >>> criteria_from_text(to_toml(c)).links == c.links
    True
    >>> print(tomlkit.dumps({"links": _matrix([["X", "SIO"], ["SIO", "X"]])}), end="")
    links = [
        # columns: destination 0..1
        ["X", "SIO"], # 0
        ["SIO", "X"], # 1
    ]
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import tomlkit
from tomlkit.items import Array, Item

from .criteria import CRITERIA_SCHEMA_VERSION, TABLES, Criteria, Table


def _said(value: Any, comment: str) -> Item:
    """A value with a comment beside it."""
    item = tomlkit.item(value)
    item.comment(comment)
    return item


def _matrix(rows: list[list[Any]]) -> Array:
    """An array of arrays, one row per line (rows = source device), each row's source in
    a comment, the destination columns named above them."""
    out = tomlkit.array()
    out.add_line(comment=f"columns: destination 0..{len(rows) - 1}")
    for i, row in enumerate(rows):
        cells = tomlkit.array()
        cells.extend(row)
        out.add_line(cells, comment=str(i))
    out.add_line(indent="")
    return out


def _entry(kind: Table, row: pd.Series) -> Any:
    out = tomlkit.table()
    for key in kind.keys:
        if key == "pair":
            if not pd.isna(row["src"]):
                out.add("pair", [int(row["src"]), int(row["dst"])])
            continue
        if key == "link" and not pd.isna(row["src"]):
            continue  # a pair's criterion names the pair, not its class
        if not pd.isna(row[key]):
            value = row[key]
            out.add(key, value if isinstance(value, str) else int(value))
    out.add(kind.bound, float(row["value"]))
    out.add("basis", row["basis"])
    for key in ("severity", "action"):  # only where the entry said it (check/severity.py)
        if isinstance(row.get(key), str):
            out.add(key, row[key])
    return out


def to_toml(criteria: Criteria) -> str:
    """The criteria as TOML (schema_version 1), every number with its basis."""
    doc = tomlkit.document()
    doc.add(
        tomlkit.comment("ascend-p2p-lab check criteria: what this server should be, item by item.")
    )
    doc.add(
        tomlkit.comment(
            "Every criterion says where its number comes from (basis). Edit freely; "
            "`check --criteria` reads it."
        )
    )
    doc.add("schema_version", CRITERIA_SCHEMA_VERSION)
    doc.add("name", criteria.name)
    doc.add("source", criteria.source)
    if criteria.description:
        doc.add("description", criteria.description)
    if criteria.fraction is not None:
        why = "criteria = measured x fraction (latency: / fraction)"
        doc.add("fraction", _said(float(criteria.fraction), why))
    doc.add("size_bytes", _said(criteria.size_bytes, "bandwidth criteria hold at this copy size"))
    doc.add("latency_size_bytes", _said(criteria.latency_size_bytes, "latency: time per copy"))
    doc.add("samples", _said(criteria.samples, "samples per point the check measures"))
    doc.add(tomlkit.nl())
    topology = tomlkit.table()
    topology.comment("rows = source device, columns = destination")
    topology.add("links", _matrix([list(r) for r in criteria.links]))
    peer = [
        ["X" if i == j else int(v) for j, v in enumerate(r)]
        for i, r in enumerate(criteria.peer_access)
    ]
    topology.add("peer_access", _matrix(peer))
    topology.add("basis", criteria.topology_basis)
    topology.add(tomlkit.nl())
    doc.add("topology", topology)
    table = criteria.table
    for kind in TABLES:
        rows = table[table["kind"] == kind.name]
        if len(rows):
            if kind.above:
                doc.add(tomlkit.comment(kind.above))
            doc.add(kind.name, tomlkit.aot())
            for _, row in rows.iterrows():
                doc[kind.name].append(_entry(kind, row))
            doc[kind.name][-1].add(tomlkit.nl())
    verification = tomlkit.table()
    verification.add("required", criteria.verification)
    verification.add("basis", criteria.verification_basis)
    doc.add("verification", verification)
    if criteria.severity:  # per table: fail or warn
        doc.add("severity", dict(criteria.severity))
    return tomlkit.dumps(doc)
