"""Run against run: per-point bandwidth ratios, the points below a threshold, and the rest.

:func:`compare` pairs the measured points of a *baseline* run and a later *run* (one row
per point both runs planned, with the baseline's median bandwidth), and gives
``ratio = run / baseline`` and ``below = ratio < threshold``. A point the baseline
measured but the run did not (its rows carry an ``error_kind``: a runtime failure, a lost
device, a refusal, ...) is a regression: it is kept, with ``run_GBps`` NaN,
``ratio`` :data:`LOST_RATIO` (0.0), ``below`` True and the run's ``run_error_kind``.
Points only one run has, or that the baseline did not measure, are never dropped
silently: :func:`unmatched` lists them with a reason. :func:`ratio_grid` lays one case
out as an N x N matrix (rows = source, columns = destination) for the terminal and the
ratio heatmap, and :func:`to_dict` / :func:`to_json` give the machine-readable verdict.

Pure pandas on the frames of :mod:`ascend_p2p_lab.schema`; nothing here touches a device.
Each run is a :class:`~ascend_p2p_lab.run.Run`; :func:`compare` gives a :class:`Comparison`:
its ``points`` (a DataFrame) and its own metadata (threshold, both run ids and sources,
the device count) as typed fields.

Example:
    >>> from ascend_p2p_lab.run import Run, RunMeta
    >>> from ascend_p2p_lab.schema import to_frame
    >>> def row(src, dst, gbps):
    ...     return {"src": src, "dst": dst, "link": "HCCS", "pattern": "pair",
    ...             "direction": "uni", "peer": "on", "path": "p2p", "initiator": "src",
    ...             "size_bytes": 1 << 24, "bandwidth_GBps": gbps}
    >>> base = Run(to_frame([row(0, 1, 25.0), row(1, 0, 25.0)]), RunMeta(run_id="base"))
    >>> new = Run(to_frame([row(0, 1, 12.5), row(1, 0, 25.0)]), RunMeta(run_id="new"))
    >>> cmp = compare(base, new)
    >>> cmp.points[["src", "dst", "ratio", "below"]].values.tolist()
    [[0, 1, 0.5, True], [1, 0, 1.0, False]]
    >>> [(p["src"], p["dst"], p["ratio"]) for p in to_dict(cmp)["below"]]
    [(0, 1, 0.5)]
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pandas as pd

from .results import summarize
from .run import Run, samples_of
from .run.value import FrameUse
from .schema import LOCAL_PATTERN, PAIR_PATTERN, POINT_KEYS, SCHEMA
from .units import format_size
from .vocab import IN_PROCESS, IPC

__all__ = [
    "COLUMNS",
    "DEFAULT_THRESHOLD",
    "KEYS",
    "LOST_RATIO",
    "REASONS",
    "Comparison",
    "RatioGrid",
    "check_threshold",
    "compare",
    "match_keys",
    "ratio_grid",
    "to_dict",
    "to_json",
    "unmatched",
]

#: What identifies a point in both runs (the result schema's point keys).
KEYS: list[str] = list(POINT_KEYS)
#: ``below`` is ``ratio < threshold``; 0.9 flags a point that lost more than 10 %.
DEFAULT_THRESHOLD = 0.9
#: The ratio of a point the baseline measured and the run lost (failed, refused, ...).
LOST_RATIO = 0.0
#: The columns :func:`compare` returns, in order. ``value`` names what baseline_GBps and
#: run_GBps hold: ``bandwidth_GBps`` (per direction), or ``bidir_total_GBps`` for a
#: bidirectional point one run gives only as the pair's total (an imported ascend-dmi run).
COLUMNS: list[str] = [
    *KEYS,
    "baseline_GBps",
    "run_GBps",
    "ratio",
    "below",
    "run_error_kind",
    "value",
]
#: Why :func:`unmatched` lists a point instead of comparing it.
REASONS: dict[str, str] = {
    "only_in_baseline": "the run did not plan this point",
    "only_in_run": "the baseline did not plan this point",
    "not_measured_in_baseline": "the baseline has the point without a bandwidth; the run "
    "measured it",
    "measured_in_neither": "neither run has a bandwidth for the point",
    "not_measured_in_run": "the run has the point without a bandwidth or a failure (an "
    "imported bidirectional total, say)",
}
_GBPS = "bandwidth_GBps_median"
_TOTAL = "bidir_total_GBps_median"


@dataclass(frozen=True, eq=False)
class Comparison(FrameUse):
    """What :func:`compare` gives: one row per compared point (``points``, columns
    :data:`COLUMNS`) and the comparison's metadata. For one release, what a DataFrame
    offers, asked of it, goes to ``points`` with a DeprecationWarning (and ``.attrs``
    gives ``{"comparison": meta()}``, the frame compare() returned before)."""

    points: pd.DataFrame
    threshold: float
    baseline_run_id: str | None = None
    run_id: str | None = None
    baseline_source: str | None = None
    run_source: str | None = None
    device_count: int | None = None

    ROWS = "comparison.points"
    FIELD = "points"

    def meta(self) -> dict[str, Any]:
        """The metadata as a dict (every field but ``points``)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "points"}

    def __getattr__(self, name: str) -> Any:
        if name == "attrs" and "points" in self.__dict__:  # compare()'s old frame's
            self._warn(".attrs")
            return {"comparison": self.meta()}
        return super().__getattr__(name)

    def __len__(self) -> int:
        """The number of points compared."""
        return len(self.points)

    def __repr__(self) -> str:
        return f"Comparison({self.meta()})\n{self.points!r}"

    def _repr_html_(self) -> str:
        return f"<p><code>Comparison({self.meta()})</code></p>\n{self.points._repr_html_()}"


#: The largest threshold: a run at least as fast as its baseline (or its class median).
MAX_THRESHOLD = 1.0


def check_threshold(threshold: Any) -> float:
    """``threshold`` as a float in (0, 1] (a fraction of the baseline or of a link class's
    median: above 1 every point would be "below"); else ValueError with a one-line message.

    Example:
        >>> check_threshold(0.9)
        0.9
        >>> check_threshold(2)
        Traceback (most recent call last):
        ...
        ValueError: threshold must be a number above 0 and at most 1; got 2
    """
    ok = (
        not isinstance(threshold, bool)
        and isinstance(threshold, (int, float, np.number))
        and math.isfinite(threshold)
        and 0 < threshold <= MAX_THRESHOLD
    )
    if not ok:
        raise ValueError(
            f"threshold must be a number above 0 and at most {MAX_THRESHOLD:g}; got {threshold!r}"
        )
    return float(threshold)


def _points(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per point of frame: its keys, its median bandwidth over the samples without
    an ``error_kind`` (NaN when none has one) and the first ``error_kind`` of its rows."""
    keys = frame[KEYS].drop_duplicates()
    good = frame[frame["error_kind"].isna() & frame["bandwidth_GBps"].notna()]
    medians = summarize(good)[[*KEYS, _GBPS]] if len(good) else None
    out = keys if medians is None else keys.merge(medians, on=KEYS, how="left")
    if medians is None:
        out = out.assign(**{_GBPS: np.nan})
    bad = frame[frame["error_kind"].notna()]
    if len(bad):
        kinds = bad.groupby(KEYS, dropna=False, sort=False)["error_kind"].first()
        out = out.merge(kinds.reset_index(), on=KEYS, how="left")
    else:
        out = out.assign(error_kind=pd.Series(pd.NA, index=out.index, dtype="string"))
    fine = frame[frame["error_kind"].isna() & frame["bidir_total_GBps"].notna()]
    totals = fine.groupby(KEYS, dropna=False, sort=False)["bidir_total_GBps"].median()
    out = (
        out.merge(totals.rename(_TOTAL).reset_index(), on=KEYS, how="left")
        if len(fine)
        else out.assign(**{_TOTAL: np.nan})
    )
    for col in (_GBPS, _TOTAL):  # a zero or negative median is no measurement
        measured = out[col].astype("float64")
        out[col] = measured.where(measured > 0)
    return out.reset_index(drop=True)


def _on_totals(both: pd.DataFrame) -> pd.Series:
    """Points compared on the pair's bidirectional total: both runs have it and one of
    them has no per-direction bandwidth (ascend-dmi gives only the total). Their
    bandwidth medians are replaced by the totals, in place; the mask is returned."""
    mask = (
        (both[f"{_GBPS}_b"].isna() | both[f"{_GBPS}_r"].isna())
        & both[f"{_TOTAL}_b"].notna()
        & both[f"{_TOTAL}_r"].notna()
    )
    for side in ("b", "r"):
        both.loc[mask, f"{_GBPS}_{side}"] = both.loc[mask, f"{_TOTAL}_{side}"]
    return mask


def match_keys(baseline: pd.DataFrame, run: pd.DataFrame) -> list[str]:
    """The :data:`KEYS` points are matched on: a key one run records and the other leaves
    empty in every row (an imported ascend-dmi run says neither the initiator nor,
    without a topology capture, the link class) cannot tell that run's points apart, so
    it is not matched on; the other run's value is kept.

    Example:
        >>> from ascend_p2p_lab.schema import to_frame
        >>> a = to_frame([{"src": 0, "dst": 1, "initiator": "dst", "size_bytes": 4}])
        >>> b = to_frame([{"src": 0, "dst": 1, "size_bytes": 4}])
        >>> "initiator" in match_keys(a, b), "initiator" in match_keys(a, a)
        (False, True)
    """
    return [k for k in KEYS if baseline[k].notna().any() == run[k].notna().any()]


def _merged(
    base: pd.DataFrame, new: pd.DataFrame, keys: list[str], how: str, **kwargs: Any
) -> pd.DataFrame:
    """base and new merged on ``keys``, with every key of :data:`KEYS` as one column
    (a key left out of the match takes whichever side has it)."""
    both = base.merge(new, on=keys, how=how, suffixes=("_b", "_r"), **kwargs)
    for k in KEYS:
        if k not in keys:
            both[k] = both[f"{k}_b"].fillna(both[f"{k}_r"])
    return both


def _source(run: Run) -> dict[str, Any]:
    """The run id and where the numbers come from: ``simulated atlas800t-a2`` or
    ``acl Ascend910B3 on host1``."""
    meta, frame = run.meta, run.samples
    run_id = meta.run_id
    if run_id is None and "run_id" in frame and frame["run_id"].notna().any():
        run_id = str(frame["run_id"].dropna().iloc[0])
    backend = meta.backend or (
        str(frame["backend"].dropna().iloc[0]) if frame["backend"].notna().any() else "unknown"
    )
    if backend == "sim":
        where = f"simulated {meta.preset or meta.topology or '?'}"
    else:
        where = f"{backend} {meta.soc_name or 'Ascend'} on {meta.hostname or '?'}"
    return {"run_id": run_id, "source": where, "device_count": meta.device_count}


def compare(baseline: Run, run: Run, *, threshold: float = DEFAULT_THRESHOLD) -> Comparison:
    """Per-point bandwidth of ``run`` relative to ``baseline``: one row per point both runs
    planned and the baseline measured (columns :data:`COLUMNS`), sorted by the keys.

    ``ratio = run_GBps / baseline_GBps`` of the per-point medians
    (:func:`ascend_p2p_lab.results.summarize`; rows with an ``error_kind`` are not
    measurements) and ``below = ratio < threshold``. A bidirectional point one run gives
    only as the pair's total (``bidir_total_GBps``: ascend-dmi) is compared on both runs'
    totals (``value`` says which). A point the run did not measure
    counts as below with ``ratio`` :data:`LOST_RATIO` and ``run_GBps`` NaN;
    ``run_error_kind`` says why. Everything else is in :func:`unmatched`.
    The :class:`Comparison`'s fields hold the threshold, both run ids, where each run's
    numbers come from and the device count.

    Example:
        >>> cmp = compare(baseline_run, later_run, threshold=0.8)  # doctest: +SKIP
        >>> cmp.points[cmp.points["below"]][["src", "dst", "ratio"]]  # doctest: +SKIP
    """
    threshold = check_threshold(threshold)
    b_run, r_run = Run.of(baseline), Run.of(run)
    baseline, run = b_run.samples, r_run.samples
    base, new = _points(baseline), _points(run)
    both = _merged(base, new, match_keys(baseline, run), "inner")
    totals = _on_totals(both)
    # a point the run has with neither a bandwidth nor a failure was not measured by it
    # (a bidirectional total the baseline lacks): unmatched, not lost
    silent = both[f"{_GBPS}_r"].isna() & both["error_kind_r"].isna()
    keep = both[f"{_GBPS}_b"].notna() & ~silent
    both, totals = both[keep], totals[keep]
    out = both[KEYS].copy()
    out["baseline_GBps"] = both[f"{_GBPS}_b"].astype("float64")
    out["run_GBps"] = both[f"{_GBPS}_r"].astype("float64")
    lost = out["run_GBps"].isna()
    out["ratio"] = (out["run_GBps"] / out["baseline_GBps"]).where(~lost, LOST_RATIO)
    out["below"] = (out["ratio"] < threshold) | lost
    kinds = both["error_kind_r"].astype("string")
    out["run_error_kind"] = kinds.where(lost, pd.NA)
    out["value"] = np.where(totals, "bidir_total_GBps", "bandwidth_GBps")
    out = out.astype({k: SCHEMA[k] for k in KEYS}).sort_values(KEYS).reset_index(drop=True)
    b, r = _source(b_run), _source(r_run)
    counts = [int(c) for c in (b["device_count"], r["device_count"]) if c]
    return Comparison(
        out[COLUMNS],
        threshold=threshold,
        baseline_run_id=b["run_id"],
        run_id=r["run_id"],
        baseline_source=b["source"],
        run_source=r["source"],
        device_count=max(counts) if counts else None,
    )


def unmatched(baseline: Run, run: Run) -> pd.DataFrame:
    """The points :func:`compare` does not compare, each with a ``reason`` (a key of
    :data:`REASONS`): planned by one run only, or without a baseline bandwidth.

    Example:
        >>> from ascend_p2p_lab.schema import empty_frame
        >>> list(unmatched(empty_frame(), empty_frame()).columns)[-2:]
        ['die_split', 'reason']
    """
    baseline, run = samples_of(baseline), samples_of(run)
    base, new = _points(baseline), _points(run)
    both = _merged(base, new, match_keys(baseline, run), "outer", indicator=True)
    _on_totals(both)
    measured_b, measured_r = both[f"{_GBPS}_b"].notna(), both[f"{_GBPS}_r"].notna()
    reason = pd.Series(pd.NA, index=both.index, dtype="string")
    reason[both["_merge"] == "left_only"] = "only_in_baseline"
    reason[both["_merge"] == "right_only"] = "only_in_run"
    in_both = both["_merge"] == "both"
    reason[in_both & ~measured_b & measured_r] = "not_measured_in_baseline"
    reason[in_both & ~measured_b & ~measured_r] = "measured_in_neither"
    reason[in_both & measured_b & ~measured_r & both["error_kind_r"].isna()] = "not_measured_in_run"
    out = both.loc[reason.notna(), KEYS].copy()
    out["reason"] = reason[reason.notna()]
    out = out.astype({k: SCHEMA[k] for k in KEYS})
    return out.sort_values(KEYS).reset_index(drop=True)


@dataclass(frozen=True)
class RatioGrid:
    """One case of a comparison as N x N frames (rows = source, columns = destination):
    ``ratios`` (NaN where not compared), ``below`` and ``lost`` (booleans), at one
    ``size`` and ``path``."""

    ratios: pd.DataFrame
    below: pd.DataFrame
    lost: pd.DataFrame
    size: int
    path: str

    @property
    def title(self) -> str:
        """``"at 16 MiB"``."""
        return f"at {format_size(self.size)}"


def ratio_grid(
    comparison: Comparison,
    *,
    size: int | None = None,
    direction: str = "uni",
    peer: str | None = "on",
    path: str | None = None,
    pattern: str = PAIR_PATTERN,
    device_count: int | None = None,
) -> RatioGrid:
    """The ratios of one case (``pattern``, ``direction``, ``peer``, ``path``) at one size
    as a :class:`RatioGrid`; the diagonal holds the device-local copy if compared.

    ``size=None`` takes the largest size the case has in the comparison (both runs have
    it). ``path=None`` takes the case's only path (ValueError if it has several).

    Example:
        >>> grid = ratio_grid(compare(baseline_run, later_run))  # doctest: +SKIP
        >>> grid.ratios.loc[0, 1], grid.below.loc[0, 1]           # doctest: +SKIP
        (0.5, True)
    """
    rows = comparison.points
    sel = rows[(rows["pattern"] == pattern) & (rows["direction"] == direction)]
    if peer is not None:
        sel = sel[sel["peer"] == peer]
    paths = sorted(set(sel["path"].dropna()))
    if path is None and len(paths) > 1:
        raise ValueError(
            f"the comparison has several paths {paths} for direction="
            f"{direction!r}, peer={peer!r}; choose one with path="
        )
    path = path if path is not None else (paths[0] if paths else "")
    sel = sel[sel["path"] == path] if path else sel
    if sel.empty:
        raise ValueError(
            f"nothing compared for pattern={pattern!r}, direction={direction!r}, "
            f"peer={peer!r}, path={path or None!r}"
        )
    local = rows[(rows["pattern"] == LOCAL_PATTERN) & (rows["direction"] == direction)]
    sizes = sorted(int(s) for s in sel["size_bytes"].unique())
    size = sizes[-1] if size is None else int(size)
    if size not in sizes:
        have = ", ".join(format_size(s) for s in sizes)
        raise ValueError(f"size {format_size(size)} was not compared; compared: {have}")
    cells = pd.concat([sel, local])
    cells = cells[cells["size_bytes"] == size]
    n = device_count or comparison.device_count or 0
    n = max(int(n), int(pd.concat([rows["src"], rows["dst"]]).max()) + 1)
    frames = {}
    for col, fill in (("ratio", np.nan), ("below", False), ("lost", False)):
        values = cells.assign(lost=cells["run_GBps"].isna()).pivot_table(
            index="src", columns="dst", values=col, aggfunc="first"
        )
        mat = values.reindex(index=range(n), columns=range(n))
        mat = mat.astype("float64") if col == "ratio" else mat.fillna(fill).astype(bool)
        mat.index.name, mat.columns.name = "src", "dst"
        frames[col] = mat
    return RatioGrid(frames["ratio"], frames["below"], frames["lost"], int(size), path)


def plain(value: Any, digits: int | None = None) -> Any:
    """A JSON-ready scalar: NaN and NA as None, numpy numbers as Python numbers (floats
    rounded to ``digits`` decimals, if given), anything else as text."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return None
        return float(value) if digits is None else round(float(value), digits)
    return str(value)


def records(
    frame: pd.DataFrame, cols: list[str] | None = None, digits: int | None = None
) -> list[dict[str, Any]]:
    """``frame``'s rows (its ``cols``, by default all) as dicts of :func:`plain` values."""
    cols = list(frame.columns) if cols is None else cols
    return [
        {c: plain(v, digits) for c, v in zip(cols, row)}
        for row in frame[cols].itertuples(index=False, name=None)
    ]


#: The fields of each point below the threshold in :func:`to_dict`.
BELOW_FIELDS = [
    "src",
    "dst",
    "group",
    "direction",
    "peer",
    "path",
    "pattern",
    "size_bytes",
    "ratio",
    "baseline_GBps",
    "run_GBps",
    "run_error_kind",
    "value",
]


def to_dict(comparison: Comparison, missing: pd.DataFrame | None = None) -> dict[str, Any]:
    """The verdict as plain data (NaN as None): ``below`` (:data:`BELOW_FIELDS` of each
    point below the threshold, lowest ratio first), ``pairs_compared`` (distinct
    ``src -> dst``, a card pair's group), ``points_compared`` (rows), ``threshold``,
    ``baseline_run_id``, ``run_id``, where each run's numbers come from, and with ``missing`` (what
    :func:`unmatched` returns) the ``unmatched`` points.

    Example:
        >>> sorted(to_dict(compare(baseline_run, run)))  # doctest: +SKIP
        ['baseline_run_id', 'baseline_source', 'below', 'pairs_compared', ...]
    """
    meta: Mapping[str, Any] = comparison.meta()
    rows = comparison.points
    below = rows[rows["below"].astype(bool)].sort_values(["ratio", *KEYS])
    out: dict[str, Any] = {
        "threshold": plain(meta.get("threshold")),
        **{k: meta.get(k) for k in ("baseline_run_id", "run_id", "baseline_source", "run_source")},
        # a card pair's ends are its group (its src and dst are empty)
        "pairs_compared": len(rows[["src", "dst", "group"]].astype(object).drop_duplicates()),
        "points_compared": len(rows),
        "below": records(below, BELOW_FIELDS),
    }
    if missing is not None:
        out["unmatched"] = records(
            missing, ["src", "dst", "direction", "peer", "path", "pattern", "size_bytes", "reason"]
        )
    return out


def to_json(
    comparison: Comparison, missing: pd.DataFrame | None = None, *, indent: int | None = 2
) -> str:
    """:func:`to_dict` as strict JSON text (``null`` for NaN, never ``NaN``).

    Example:
        >>> print(to_json(compare(baseline_run, run)))  # doctest: +SKIP
    """
    return json.dumps(to_dict(comparison, missing), indent=indent, allow_nan=False)


def split_process_modes(run: Run) -> tuple[Run, Run]:
    """A ``sweep --processes`` run as (baseline, run) for :func:`compare`: its in-process
    rows, and its IPC rows named like them, so that ``ratio`` is IPC / in-process per point.

    Example:
        >>> cmp = compare(*split_process_modes(run))  # doctest: +SKIP
    """
    whole = Run.of(run)
    mode = whole.samples["process_mode"].fillna("in_process")
    inside, across = whole.select(mode == IN_PROCESS), whole.select(mode == IPC)
    if not len(inside) or not len(across):
        raise ValueError("the run does not hold both process modes (sweep --processes)")
    # the same points: compare matches them
    across = across.replace(across.samples.assign(process_mode="in_process"))
    return inside.replace(run_id="in-process rows"), across.replace(run_id="ipc rows")
