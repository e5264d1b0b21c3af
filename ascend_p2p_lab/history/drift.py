"""Trends and drift: each item's values over time, its baseline band, and whether its
recent values have left it (pure pandas).

The rule (:class:`DriftRule`), and its basis:

- **baseline**: the median of the item's first ``baseline`` values (10) in the selection
  that did not FAIL (a run's own verdict; values with no verdict count), once it has at
  least ``min_baseline`` (5) of them. Its band is the median ± the larger of
  ``tolerance`` (5 %) of it and ``mad_k`` (4) scaled MADs (1.4826 x the median absolute
  deviation: one standard deviation for normal noise). 5 % is half of the 10 % drift the
  rule must find, and about the run-to-run range of a bandwidth median of a few samples
  (cuda-samples#449 measured 5-10 % over 5 repeats); the MAD term widens the band for an
  item noisier than that, so noise alone does not leave it.
- **drift**: the median of the item's last ``recent`` values (3) after its baseline lies
  outside the band (below or above). A median of three ignores one transient dip (a
  single bad run), and a drift is named at the latest two runs after its median crossed
  the band's edge.

Example:
    >>> import pandas as pd
    >>> days = [f"2026-01-{d:02d}" for d in range(1, 21)]
    >>> values = [20.0] * 12 + [18.0] * 8  # 10 % down from day 13
    >>> recs = pd.DataFrame({"host": "a", "item": "x", "time": days, "value": values,
    ...                      "verdict": "PASS"})
    >>> t = trends(recs)
    >>> t.loc[0, "baseline"]["median"], t.loc[0, "drift"]["direction"]
    (20.0, 'down')
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..vocab import FAIL

#: the scale of a MAD that makes it one standard deviation of normal noise
MAD_SCALE = 1.4826


@dataclass(frozen=True)
class DriftRule:
    """The drift rule's parameters (see the module docstring)."""

    baseline: int = 10
    min_baseline: int = 5
    recent: int = 3
    tolerance: float = 0.05
    mad_k: float = 4.0

    def describe(self) -> str:
        """The rule in one sentence (the JSON's and the table's ``rule``)."""
        return (
            f"baseline: median of the first {self.baseline} values that did not fail (at least "
            f"{self.min_baseline}), band +- max({self.tolerance:.0%}, {self.mad_k:g} x 1.4826 x "
            f"MAD); drift: median of the last {self.recent} values after it outside the band"
        )


def _baseline(
    times: np.ndarray, values: np.ndarray, failed: np.ndarray, rule: DriftRule
) -> dict[str, Any] | None:
    ok = np.flatnonzero(~failed)[: rule.baseline]
    if len(ok) < rule.min_baseline:
        return None
    v = values[ok]
    median = float(np.median(v))
    mad = float(np.median(np.abs(v - median)))
    half = max(rule.tolerance * abs(median), rule.mad_k * MAD_SCALE * mad)
    return {
        "median": median,
        "low": median - half,
        "high": median + half,
        "values": len(ok),
        "from": str(times[ok[0]]),
        "to": str(times[ok[-1]]),
        "_end": int(ok[-1]),
    }


def _drift(
    times: np.ndarray, values: np.ndarray, base: dict[str, Any], rule: DriftRule
) -> dict[str, Any] | None:
    after = values[base.pop("_end") + 1 :]
    if len(after) < rule.recent:
        return None
    recent = float(np.median(after[-rule.recent :]))
    if base["low"] <= recent <= base["high"]:
        return None
    return {
        "direction": "down" if recent < base["low"] else "up",
        "recent_median": recent,
        "change": recent / base["median"] - 1.0 if base["median"] else None,
        "since": str(times[len(values) - rule.recent]),
    }


def trends(records: pd.DataFrame, rule: DriftRule | None = None) -> pd.DataFrame:
    """One row per host and item: ``values`` (time, value, verdict; oldest first),
    ``baseline`` (None with too few values) and ``drift`` (None: none), the records'
    numeric values only."""
    rule = rule or DriftRule()
    cols = ["host", "item", "values", "baseline", "drift"]
    recs = records.dropna(subset=["value"]).sort_values(["host", "item", "time"], kind="stable")
    if recs.empty:
        return pd.DataFrame(columns=cols)
    hosts, items = recs["host"].astype(str).to_numpy(), recs["item"].astype(str).to_numpy()
    times = recs["time"].astype(str).to_numpy()
    values = recs["value"].to_numpy(float)
    verdicts = recs["verdict"].astype(object).where(recs["verdict"].notna(), None).to_numpy()
    failed = verdicts == FAIL
    new = np.r_[True, (hosts[1:] != hosts[:-1]) | (items[1:] != items[:-1])]
    bounds = [*np.flatnonzero(new), len(recs)]
    out = []
    for a, b in itertools.pairwise(bounds):
        t, v = times[a:b], values[a:b]
        base = _baseline(t, v, failed[a:b], rule)
        drift = None if base is None else _drift(t, v, base, rule)
        out.append(
            {
                "host": hosts[a],
                "item": items[a],
                "values": [
                    {"time": tt, "value": float(vv), "verdict": dd}
                    for tt, vv, dd in zip(t, v, verdicts[a:b])
                ],
                "baseline": base,
                "drift": drift,
            }
        )
    return pd.DataFrame(out, columns=cols)


def of_run(
    records: pd.DataFrame, run_id: str, item: str | None = None, rule: DriftRule | None = None
) -> pd.DataFrame:
    """The trends (:func:`trends`, over all the records of its hosts) of each host's items
    that run ``run_id`` recorded (whose name contains ``item``), with a ``mark`` column:
    that run's time on the host. Empty when the run recorded none."""
    mine = records[records["run_id"].eq(run_id)]
    if item is not None:
        mine = mine[mine["item"].astype(str).str.contains(item, regex=False)]
    marks = mine.groupby(["host", "item"], sort=False)["time"].max()
    keys = pd.MultiIndex.from_frame(records[["host", "item"]])
    table = trends(records[keys.isin(marks.index)], rule)
    at = pd.MultiIndex.from_frame(table[["host", "item"]]) if len(table) else marks.index[:0]
    return table.assign(mark=marks.reindex(at).to_numpy())


def drifting(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`trends` that drift."""
    return table[table["drift"].notna()].reset_index(drop=True)


def rule_dict(rule: DriftRule) -> dict[str, Any]:
    """The rule as plain data, with its sentence."""
    return {**asdict(rule), "text": rule.describe()}
