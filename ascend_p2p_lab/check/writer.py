"""Criteria as TOML text: what ``criteria --out`` writes and :func:`.load_criteria` reads.

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
    >>> print(_matrix([["X", "SIO"], ["SIO", "X"]]))
    [
      #  0      1
        ["X",   "SIO"],  # 0
        ["SIO", "X"  ],  # 1
    ]
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from .criteria import CRITERIA_SCHEMA_VERSION, Criteria

#: per kind: the keys written, in order, and the key of the bound
_KEYS = {
    "bandwidth": ("link", "pair", "direction", "initiator"),
    "latency": ("link", "pair"),
    "host": ("direction", "device"),
    "aggregate": ("pattern", "device", "group"),
    "collective": ("operation", "size_bytes"),
}
_BOUND = {
    "bandwidth": "min_GBps",
    "latency": "max_us",
    "host": "min_GBps",
    "aggregate": "min_GBps",
    "collective": "min_busbw_GBps",
}


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    return repr(v) if isinstance(v, float) else str(int(v))


def _matrix(rows: list[list[Any]]) -> str:
    """An array of arrays, one row per line (rows = source device), cells aligned under
    a comment naming the destination columns, each row's source in a comment."""
    cells = [[_value(c) for c in row] for row in rows]
    width = max(len(c) for row in cells for c in row)
    head = "  #  " + "".join(str(j).ljust(width + 2) for j in range(len(cells)))
    lines = [head.rstrip()]
    for i, row in enumerate(cells):
        body = " ".join([*((c + ",").ljust(width + 1) for c in row[:-1]), row[-1].ljust(width)])
        lines.append(f"    [{body}],  # {i}")
    return "[\n" + "\n".join(lines) + "\n]"


def _entry(kind: str, row: pd.Series) -> list[str]:
    out = [f"[[{kind}]]"]
    for key in _KEYS[kind]:
        if key == "pair":
            if not pd.isna(row["src"]):
                out.append(f"pair = [{int(row['src'])}, {int(row['dst'])}]")
            continue
        if key == "link" and not pd.isna(row["src"]):
            continue  # a pair's criterion names the pair, not its class
        if not pd.isna(row[key]):
            out.append(f"{key} = {_value(row[key])}")
    out.append(f"{_BOUND[kind]} = {_value(float(row['value']))}")
    out.append(f"basis = {_value(row['basis'])}")
    return out


def to_toml(criteria: Criteria) -> str:
    """The criteria as TOML (schema_version 1), every number with its basis."""
    lines = [
        "# ascend-p2p-lab check criteria: what this server should be, item by item.",
        "# Every criterion says where its number comes from (basis). Edit freely; "
        "`check --criteria` reads it.",
        f"schema_version = {CRITERIA_SCHEMA_VERSION}",
        f"name = {_value(criteria.name)}",
        f"source = {_value(criteria.source)}",
    ]
    if criteria.description:
        lines.append(f"description = {_value(criteria.description)}")
    if criteria.fraction is not None:
        lines.append(
            f"fraction = {_value(float(criteria.fraction))}  # criteria = "
            "measured x fraction (latency: / fraction)"
        )
    lines += [
        f"size_bytes = {criteria.size_bytes}  # bandwidth criteria hold at this copy size",
        f"latency_size_bytes = {criteria.latency_size_bytes}  # latency: time per copy",
        f"samples = {criteria.samples}  # samples per point the check measures",
        "",
        "[topology]  # rows = source device, columns = destination",
        "links = " + _matrix([list(r) for r in criteria.links]),
        "peer_access = "
        + _matrix(
            [
                ["X" if i == j else int(v) for j, v in enumerate(r)]
                for i, r in enumerate(criteria.peer_access)
            ]
        ),
        f"basis = {_value(criteria.topology_basis)}",
        "",
        "[verification]",
        f"required = {_value(criteria.verification)}",
        f"basis = {_value(criteria.verification_basis)}",
    ]
    table = criteria.table
    for kind in _KEYS:
        for _, row in table[table["kind"] == kind].iterrows():
            lines += ["", *_entry(kind, row)]
    return "\n".join(lines) + "\n"
