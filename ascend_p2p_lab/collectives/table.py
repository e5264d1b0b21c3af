"""Collective rows as a table the way hccl_test prints one: per operation and size the
medians over samples (``data_size``, time, algorithm and bus bandwidth, the check), with
the prediction from links and the measured / predicted ratio beside them, and the
bottleneck. Pure pandas: the ``collectives`` command, ``report`` (an hccl_test import
too), the figures and the dashboard read it.

Example:
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"operation": ["all_gather"] * 2, "ranks": [8, 8],
    ...     "size_bytes": [1 << 20] * 2, "time_us": [60.0, 62.0],
    ...     "algbw_GBps": [17.5, 16.9], "busbw_GBps": [15.3, 14.8],
    ...     "check_result": ["success"] * 2})
    >>> summary(rows)[["size_bytes", "samples", "time_us", "check_result"]].values.tolist()
    [[1048576, 2, 61.0, 'success']]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pandas as pd

from ..texttable import HCCL_SEP, Column, table_lines
from .busbw import OPERATIONS

#: What names a collective point: its operation, ranks, devices, algorithm and size.
OP_KEYS = ["operation", "ranks", "devices", "algorithm", "size_bytes"]
#: The bottleneck's columns: its link's ends (where it is a link) and its budget.
NECK_COLUMNS = ("bottleneck_src", "bottleneck_dst", "bottleneck_budget")
#: Columns of :func:`summary`, one row per operation, devices, algorithm and size.
SUMMARY_COLUMNS = [
    *OP_KEYS,
    "samples",
    "time_us",
    "algbw_GBps",
    "busbw_GBps",
    "check_result",
    "predicted_busbw_GBps",
    "ratio",
    *NECK_COLUMNS,
    "bottleneck_samples",
    "bottleneck_candidates",
    "error",
]
_OPTIONAL = (
    "devices",
    "algorithm",
    "predicted_busbw_GBps",
    *NECK_COLUMNS,
    "phase",
    "error",
    "check_result",
)


def op_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of a run that are one collective op each (own or imported): an operation
    the toolkit builds, no phase (a phase row is part of an op).

    Example:
        >>> op_rows(pd.DataFrame({"operation": ["p2p", "broadcast"], "ranks": [None, 4]}))
        ... # doctest: +NORMALIZE_WHITESPACE
           operation  ranks
        1  broadcast    4.0
    """
    if "operation" not in frame or frame.empty:
        return frame.iloc[0:0]
    keep = frame["operation"].isin(OPERATIONS).fillna(False).astype(bool)
    if "phase" in frame:
        keep &= frame["phase"].isna()
    return frame[keep.to_numpy()]


def _key(src: object, dst: object, budget: object) -> tuple[object, object, object]:
    """One sample's bottleneck as a hashable key with no NA in it (a nullable column's
    NA compares ambiguously): ``(src, dst, None)`` for a link, ``(None, None, name)``
    for a budget, all None when the sample names nothing."""
    if isinstance(budget, str) and budget:
        return (None, None, budget)
    if src is None or pd.isna(src):  # type: ignore[arg-type]
        return (None, None, None)
    return (int(src), int(dst), None)  # type: ignore[call-overload]


def _candidates(names: list[tuple[object, object, object]]) -> str:
    """What the samples name when they disagree (``;``-joined, most named first, then
    in first-named order); empty when they agree."""
    texts = [bottleneck_text(*n) for n in names if n != (None, None, None)]
    if len(set(texts)) < 2:
        return ""
    return ";".join(sorted(dict.fromkeys(texts), key=lambda t: -texts.count(t)))


def _check(words: pd.Series) -> str:
    """failed if any sample failed its check, success if every one passed, else NULL."""
    got = set(words.dropna())
    return "failed" if "failed" in got else "success" if got == {"success"} else "NULL"


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Medians per operation, devices, algorithm and size (see the module doc); the
    bottleneck the one most samples name (``bottleneck_samples`` of them)."""
    rows = op_rows(frame).copy()
    for col in _OPTIONAL:
        if col not in rows:
            rows[col] = None
    if rows.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    for col in ("devices", "algorithm"):
        rows[col] = rows[col].astype(object).where(rows[col].notna(), "")
    out = []
    for key, g in rows.groupby(OP_KEYS, sort=False, dropna=False):
        neck = g[list(NECK_COLUMNS)].astype(object)
        names = [_key(s, d, b) for s, d, b in neck.itertuples(index=False, name=None)]
        top = max(dict.fromkeys(names), key=names.count) if names else (None, None, None)
        med = {
            c: float(g[c].median())
            for c in ("time_us", "algbw_GBps", "busbw_GBps", "predicted_busbw_GBps")
        }
        ratio = (
            med["busbw_GBps"] / med["predicted_busbw_GBps"]
            if med["predicted_busbw_GBps"] > 0
            else math.nan
        )
        out.append(
            {
                **dict(zip(OP_KEYS, key)),
                "samples": len(g),
                **med,
                "check_result": _check(g["check_result"]),
                "ratio": ratio,
                **dict(zip(NECK_COLUMNS, top)),
                "bottleneck_samples": names.count(top),
                "bottleneck_candidates": _candidates(names),
                "error": next(iter(g["error"].dropna().mode()), None),
            }
        )
    table = pd.DataFrame(out, columns=SUMMARY_COLUMNS)
    order = {op: i for i, op in enumerate(OPERATIONS)}
    table["_order"] = table["operation"].map(order)
    table = table.sort_values(["_order", "ranks", "devices", "size_bytes"], kind="stable")
    return table.drop(columns="_order").reset_index(drop=True)


def bottleneck_text(src: object, dst: object, budget: object) -> str:
    """``2->5``, a budget's name, or ``-``."""
    if isinstance(budget, str) and budget:
        return budget
    if src is None or pd.isna(src):
        return "-"
    return f"{int(src)}->{int(dst)}"  # type: ignore[call-overload]


def _neck(r: object) -> str:
    """The bottleneck the samples name; ``varies`` when they disagree (the candidates are
    in ``bottleneck_candidates``: even links, whose slowest copy is a matter of jitter)."""
    if r.bottleneck_candidates:  # type: ignore[attr-defined]
        return "varies"
    return bottleneck_text(*(getattr(r, c) for c in NECK_COLUMNS))


def _present(texts: pd.Series) -> bool:
    """Whether any cell holds a non-empty text."""
    return bool(texts.astype(object).where(texts.notna(), "").astype(str).str.len().gt(0).any())


def _num(v: object, fmt: str) -> str:
    return "-" if v is None or pd.isna(v) else format(v, fmt)  # type: ignore[arg-type]


def table_text(table: pd.DataFrame) -> str:
    """The summary as hccl_test's table, one block per operation and devices: its
    columns (data_size, aveg_time, alg_bandwidth, check_result) and bus bandwidth, then
    what the rows know beyond hccl_test: the prediction and the ratio, the algorithm and
    the bottleneck (left out where no row has them, as for an hccl_test import)."""
    if table.empty:
        return ""
    cols: list[tuple[str, int, Callable[[Any], str]]] = [
        ("data_size(Bytes)", 18, lambda r: str(int(r.size_bytes))),
        ("aveg_time(us)", 13, lambda r: _num(r.time_us, ".2f")),
        ("alg_bandwidth(GB/s)", 19, lambda r: _num(r.algbw_GBps, ".4f")),
        ("bus_bandwidth(GB/s)", 19, lambda r: _num(r.busbw_GBps, ".4f")),
        ("check_result", 12, lambda r: r.check_result),
    ]
    if table["predicted_busbw_GBps"].notna().any():
        cols += [
            ("predicted_busbw", 15, lambda r: _num(r.predicted_busbw_GBps, ".4f")),
            ("ratio", 5, lambda r: _num(r.ratio, ".2f")),
        ]
    if _present(table["algorithm"]):
        cols.append(("algorithm", -12, lambda r: r.algorithm or "-"))
    if table["bottleneck_src"].notna().any() or _present(table["bottleneck_budget"]):
        cols.append(("bottleneck", -10, _neck))
    columns = [Column(name, abs(w), ">" if w > 0 else "<") for name, w, _ in cols]
    blocks = []
    for (op, ranks, devices), g in table.groupby(["operation", "ranks", "devices"], sort=False):
        where = f" (devices {devices})" if devices else ""
        rows = list(g.itertuples(index=False))
        head, *lines = table_lines(
            ([fn(r) for _, _, fn in cols] for r in rows), columns, sep=HCCL_SEP, strip=True
        )
        lines = [
            line + (f"  ({r.error})" if isinstance(r.error, str) and r.error else "")
            for line, r in zip(lines, rows)
        ]
        blocks.append("\n".join([f"{op} on {int(ranks)} ranks{where}:", head, *lines]))
    extra = "; ratio = busbw / predicted" if len(cols) > 5 else ""
    return "\n\n".join(blocks) + (
        f"\n(medians over samples; busbw = algbw x the nccl-tests factor{extra})"
    )
