"""Baselines from history: criteria from a server's (or a model's) own last healthy runs.

A **healthy run** is a run of ``check`` (or a host of ``fleet --criteria``) none of whose
items failed. From the last ``runs`` (10) of them, per item (bandwidth, latency, host
copies, aggregates): the median of its values, and its spread (1.4826 x the MAD over the
median: a coefficient of variation robust to one odd run). The criterion is the median x
(1 - tolerance) (latency: x (1 + tolerance)), the tolerance being the larger of
``tolerance`` (5 %) and 4 x the item's spread; the item's ``basis`` says all of it. The
topology (link classes, peer access) and the verification come from the model's preset,
as ``criteria --preset`` writes them; the file is written with ``check.writer.to_toml``.

Example:
    >>> import pandas as pd
    >>> recs = pd.DataFrame({"run_id": ["a", "b", "c"], "time": ["1", "2", "3"],
    ...     "kind": "bandwidth", "item": "bandwidth uni pull 0->1", "value": [20.0, 21.0, 22.0],
    ...     "verdict": ["PASS", "PASS", "FAIL"]})
    >>> healthy_runs(recs, 10)
    ['a', 'b']
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd

from ..check.criteria import TABLE_COLUMNS, Criteria
from ..check.derive import criteria_from_preset
from ..vocab import BASELINE_TOLERANCE, FAIL, LATENCY_ITEM

#: the item kinds a baseline bounds (the topology and verification come from the model)
BASELINE_KINDS = ("bandwidth", "latency", "host", "aggregate")
#: the least tolerance, and how many spreads the tolerance is at least
TOLERANCE, SPREADS = BASELINE_TOLERANCE, 4.0
#: the item columns that say what a criterion bounds (history's name -> the table's)
_WHAT = {
    "src": "src",
    "dst": "dst",
    "device": "device",
    "grp": "group",
    "pattern": "pattern",
    "direction": "direction",
    "initiator": "initiator",
}
_KEYS_OF = {
    "bandwidth": ("src", "dst", "direction", "initiator"),
    "latency": ("src", "dst"),
    "host": ("device", "direction"),
    "aggregate": ("pattern", "device", "grp"),
}


def healthy_runs(records: pd.DataFrame, runs: int) -> list[str]:
    """The last ``runs`` run ids (by time) of check items none of which failed."""
    judged = records[records["kind"].isin(BASELINE_KINDS)]
    if judged.empty:
        return []
    by_run = judged.groupby("run_id", sort=False).agg(
        time=("time", "max"), failed=("verdict", lambda v: bool((v == FAIL).any()))
    )
    ok = by_run[~by_run["failed"]].sort_values("time", kind="stable")
    return list(ok.index[-runs:])


def _row(kind: str, part: pd.DataFrame, tolerance: float, who: str) -> dict[str, Any]:
    v = part["value"].to_numpy(float)
    median = float(np.median(v))
    spread = float(1.4826 * np.median(np.abs(v - median)) / median) if median else 0.0
    tol = max(tolerance, SPREADS * spread)
    first = part.iloc[0]
    bound = "max" if kind == LATENCY_ITEM else "min"
    value = median * (1 + tol) if bound == "max" else median * (1 - tol)
    row: dict[str, Any] = {c: None for c in TABLE_COLUMNS}
    for k in _KEYS_OF[kind]:
        row[_WHAT[k]] = None if pd.isna(first[k]) else first[k]
    row.update(
        kind=kind,
        bound=bound,
        value=round(value, 3),
        unit=first["unit"],
        basis=(
            f"baseline of {who}: median {median:.4g} {first['unit']} of {len(v)} healthy runs "
            f"({part['time'].min()[:10]} to {part['time'].max()[:10]}), spread {spread:.1%} "
            f"(1.4826 MAD / median); x (1 {'-' if bound == 'min' else '+'} {tol:.1%}): the larger "
            f"of {tolerance:.0%} and {SPREADS:g} spreads"
        ),
    )
    return row


def baseline_criteria(
    records: pd.DataFrame, model: str, who: str, *, runs: int = 10, tolerance: float = TOLERANCE
) -> tuple[Criteria, list[str]]:
    """Criteria from the records' last healthy runs (and the run ids used). ValueError
    when there is no healthy run."""
    ids = healthy_runs(records, runs)
    if not ids:
        raise ValueError(
            f"{who}: no healthy run of check in the history (none, or every one failed)"
        )
    use = records[records["run_id"].isin(ids) & records["kind"].isin(BASELINE_KINDS)]
    use = use.dropna(subset=["value"])
    if "size_bytes" not in use:
        use = use.assign(size_bytes=pd.NA)
    rows = [
        _row(kind, part, tolerance, who)
        for (kind, _item), part in use.groupby(["kind", "item"], sort=True)
    ]
    table = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    counts = dict.fromkeys(["src", "dst", "device", "line", "size_bytes"], "Int64")
    table = table.astype({**counts, "value": "float64"})
    sizes = use.loc[use["kind"] != LATENCY_ITEM, "size_bytes"].dropna()
    lat = use.loc[use["kind"] == LATENCY_ITEM, "size_bytes"].dropna()
    size = int(sizes.mode().iloc[0]) if len(sizes) else None
    base = criteria_from_preset(model, **({} if size is None else {"size": size}))
    return (
        dataclasses.replace(
            base,
            table=table,
            name=f"baseline-{who.split(' ', 1)[-1]}",
            source=f"history: the last {len(ids)} healthy runs of {who}",
            fraction=None,
            latency_size_bytes=int(lat.mode().iloc[0]) if len(lat) else base.latency_size_bytes,
            description=(
                f"{who}'s own baseline: per item, the median of its last {len(ids)} healthy "
                f"runs less the larger of {tolerance:.0%} and {SPREADS:g} spreads; the "
                f"topology and verification from the model {model}"
            ),
        ),
        ids,
    )
