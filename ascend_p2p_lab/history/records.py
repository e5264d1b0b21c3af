"""What a command measured and judged, as history records (pure pandas).

- a check's items (``check``, ``fleet --criteria``): one record per item, its ``id`` as
  the item, ``measured`` as the value, ``status`` as the verdict, and what the item
  judges (kind, pair or device, direction, initiator, size) so that a baseline can
  become criteria again;
- a run's rows (``sweep``, ``run``, ``collectives``, each host of ``fleet``): one record
  per measured point, the median of its samples (GB/s; time per copy in µs for latency),
  no verdict. The item names the point: ``pair uni on pull 2->5 64 MiB``; a collective
  (``collectives``) its operation, algorithm and size, its value the median busbw.

Example:
    >>> import pandas as pd
    >>> items = pd.DataFrame({"id": ["bandwidth uni pull 2->5"], "kind": ["bandwidth"],
    ...     "pattern": ["pair"], "status": ["FAIL"], "measured": [13.1], "unit": ["GB/s"],
    ...     "src": [2], "dst": [5], "direction": ["uni"], "initiator": ["dst"]})
    >>> check_records(items)[["item", "value", "verdict", "src"]].values.tolist()
    [['bandwidth uni pull 2->5', 13.1, 'FAIL', 2]]
"""

from __future__ import annotations

import pandas as pd

from ..results import summarize
from ..run import Run
from ..schema import COLLECTIVE_PATTERN, LATENCY_PATTERN
from ..units import format_size
from ..vocab import IN_PROCESS, INITIATOR_WORDS

#: item columns a record keeps from a check item (its own name: the store's)
_FROM_ITEM = {
    "id": "item",
    "kind": "kind",
    "pattern": "pattern",
    "src": "src",
    "dst": "dst",
    "device": "device",
    "group": "grp",
    "direction": "direction",
    "initiator": "initiator",
    "size_bytes": "size_bytes",
    "measured": "value",
    "unit": "unit",
    "bound": "bound",
    "status": "verdict",
}


def check_records(items: pd.DataFrame) -> pd.DataFrame:
    """A check's items as records (with ``host`` when the items have it: a fleet)."""
    cols = {k: v for k, v in _FROM_ITEM.items() if k in items}
    out = items[[*(["host"] if "host" in items else []), *cols]].rename(columns=cols)
    out["value"] = pd.to_numeric(out["value"], errors="coerce")
    return out.reset_index(drop=True)


def _point_name(row: pd.Series) -> str:
    parts = [row["pattern"], row["direction"], row["peer"]]
    if isinstance(row["initiator"], str):
        parts.append(INITIATOR_WORDS.get(row["initiator"], row["initiator"]))
    for key in ("test", "transfer", "group"):
        if isinstance(row[key], str) and row[key]:
            parts.append(row[key])
    ends = [str(int(row[k])) for k in ("src", "dst") if not pd.isna(row[k])]
    if ends:  # a pair, or the device of a host copy or fan-out
        parts.append("->".join(ends) if len(ends) == 2 else f"device {ends[0]}")
    if isinstance(row["process_mode"], str) and row["process_mode"] != IN_PROCESS:
        parts.append(row["process_mode"])
    parts.append(format_size(int(row["size_bytes"])))
    return " ".join(str(p) for p in parts if isinstance(p, str) and p)


def _collectives(rows: pd.DataFrame) -> pd.DataFrame:
    """A collectives run's operations: the median busbw per operation, algorithm and
    size (the whole operation's rows, not its phases')."""
    if rows.empty:
        return rows.iloc[:0]
    whole = rows[rows["phase"].isna()] if "phase" in rows else rows
    keys = ["operation", "algorithm", "size_bytes"]
    med = whole.groupby(keys, dropna=False, sort=True)["busbw_GBps"].median().reset_index()
    return pd.DataFrame(
        {
            "item": [
                f"collective {o} {a} {format_size(int(z))}"
                for o, a, z in zip(med["operation"], med["algorithm"], med["size_bytes"])
            ],
            "kind": "point",
            "pattern": COLLECTIVE_PATTERN,
            "size_bytes": med["size_bytes"],
            "value": med["busbw_GBps"],
            "unit": "GB/s busbw",
        }
    )


def run_records(run: Run) -> pd.DataFrame:
    """A run's measured points as records: the median per point, no verdict (with
    ``host`` when the rows name one: a fleet's)."""
    run = Run.of(run)
    rows = run.samples
    if rows.empty:
        return pd.DataFrame(columns=["item", "value", "unit"])
    out = []
    by_host = rows.groupby("host", dropna=False) if "host" in rows else [(None, rows)]
    for host, part in by_host:
        ops = part["pattern"].eq(COLLECTIVE_PATTERN)
        part, ops = part[~ops], _collectives(part[ops])
        if len(ops):
            out.append(ops if host is None else ops.assign(host=host))
        if part.empty:
            continue
        points = summarize(part)
        latency = points["pattern"].eq(LATENCY_PATTERN)
        rec = pd.DataFrame(
            {
                "item": [_point_name(r) for _, r in points.iterrows()],
                "kind": "point",
                "pattern": points["pattern"],
                "src": points["src"],
                "dst": points["dst"],
                "direction": points["direction"],
                "initiator": points["initiator"],
                "size_bytes": points["size_bytes"],
                "value": points["bandwidth_GBps_median"].where(
                    ~latency, points["us_per_copy_median"]
                ),
                "unit": latency.map({True: "us", False: "GB/s"}),
            }
        )
        if host is not None:
            rec.insert(0, "host", host)
        out.append(rec)
    if not out:
        return pd.DataFrame(columns=["item", "value", "unit"])
    return pd.concat(out, ignore_index=True)
