"""Tidy results: summaries, matrices, fits, failures, and saving or loading a run.

Pure pandas on the frames of :mod:`ascend_p2p_lab.schema` (re-exported here); nothing
here touches a device. Every function takes a run frame or an
:class:`~ascend_p2p_lab.run.Run`; a run's metadata (package and runtime versions, SoC,
device count, every parameter, timestamp, hostname) travels in the Run's
:class:`~ascend_p2p_lab.run.RunMeta`, in ``run.json`` next to the samples, and as a
convenience copy in the ``attrs["run"]`` of the frames :func:`load_run` and
:func:`~ascend_p2p_lab.measure.sweep` return.

Example:
    >>> import pandas as pd
    >>> frame = empty_frame()
    >>> list(frame.columns[:5])
    ['run_id', 'backend', 'preset', 'host', 'src']
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .patterns.cards import group_name
from .run import Run, RunMeta, deprecated, samples_of
from .run import folder as run_folder
from .run.folder import ResultsError
from .run.meta import RUN_SCHEMA_VERSION
from .schema import (
    ADDED_COLUMNS,
    CARD_PATTERNS,
    COLUMNS,
    ERROR_KINDS,
    FAILURE_KINDS,
    GROUP_PATTERNS,
    LOCAL_PATTERN,
    POINT_KEYS,
    PULL_FANOUT,
    RESULT_KINDS,
    SCHEMA,
    TEST_PATTERN,
    VOCABULARY,
    empty_frame,
    to_frame,
)
from .vocab import DIE_BOTH, DIE_HCCS, OFF, PAIR, SRC

__all__ = [
    "ADDED_COLUMNS",
    "COLUMNS",
    "ERROR_KINDS",
    "FAILURE_KINDS",
    "POINT_KEYS",
    "RESULT_KINDS",
    "RUN_SCHEMA_VERSION",
    "SCHEMA",
    "VOCABULARY",
    "ResultsError",
    "empty_frame",
    "failures",
    "fit_latency_bandwidth",
    "load_run",
    "matrix",
    "save_run",
    "summarize",
    "to_frame",
]

#: What :func:`fit_latency_bandwidth` gives per group, after the group's keys.
FIT_COLUMNS = [
    "latency_us",
    "bandwidth_GBps",
    "nominal_GBps",
    "efficiency",
    "sizes",
    "host_bound_left_out",
]


def summarize(frame: Run) -> pd.DataFrame:
    """Median, p10 and p90 of bandwidth and of time per copy, per measured point.

    Example: ``summarize(run)[["src", "dst", "size_bytes", "bandwidth_GBps_median"]]``.
    """
    frame = samples_of(frame)
    if frame.empty:
        return pd.DataFrame(columns=[*POINT_KEYS, "samples", "bandwidth_GBps_median"])
    df = frame[[*dict.fromkeys(SUMMARIZED)]].copy()  # only what it reads
    df["us_per_copy"] = df["elapsed_us"] / df["copies"].astype("float64")
    # verified: True when every checked sample passed, False if any failed, NA if none
    # was checked (min over 1.0/0.0 floats, NaN for unchecked)
    df["_verified"] = df["verified"].astype("Float64").astype("float64")
    df["_error"] = df["error"].where(df["error"].str.len() > 0)
    grouped = df.groupby(POINT_KEYS, dropna=False, sort=True)
    # column by column: what a named aggregation does, without its ~3 ms of parsing
    out = pd.DataFrame(
        {
            "samples": grouped["bandwidth_GBps"].count(),
            "bandwidth_GBps_median": grouped["bandwidth_GBps"].median(),
            "us_per_copy_median": grouped["us_per_copy"].median(),
            "host_bound": grouped["host_bound"].any(),
            "_verified": grouped["_verified"].min(),
            "nominal_GBps": grouped["nominal_GBps"].first(),
            "error": grouped["_error"].first(),
        }
    )
    # by group number, not by key: keys with NA (no src, no group) do not align
    point = grouped.ngroup()
    quantiles = df["bandwidth_GBps"].groupby(point).quantile([0.10, 0.90]).unstack()
    out.insert(2, "bandwidth_GBps_p10", quantiles[0.10].to_numpy())
    out.insert(3, "bandwidth_GBps_p90", quantiles[0.90].to_numpy())
    out["verified"] = out.pop("_verified").map({1.0: True, 0.0: False}).astype("boolean")
    out = out[
        [
            "samples",
            "bandwidth_GBps_median",
            "bandwidth_GBps_p10",
            "bandwidth_GBps_p90",
            "us_per_copy_median",
            "host_bound",
            "verified",
            "nominal_GBps",
            "error",
        ]
    ]
    out = out.reset_index()
    return out


#: The columns :func:`matrix` reads besides the value (a caller may hand it only these:
#: ``plots.cells`` does).
MATRIX_READS = ("pattern", "direction", "peer", "initiator", "path", "size_bytes", "src", "dst")
#: The columns :func:`summarize` reads: the point's keys and what it summarises (a caller
#: may hand it only these: ``plots.prepare.point_stats`` does).
SUMMARIZED = (
    *POINT_KEYS,
    *("bandwidth_GBps", "elapsed_us", "copies", "verified", "error", "host_bound"),
    "nominal_GBps",
)


def failures(frame: Run) -> pd.DataFrame:
    """Rows that cost data (an ``error_kind`` in :data:`FAILURE_KINDS`), counted per kind,
    code and call: ``kind, code, call, rows, points, example``.

    Refusals that are results (``unreachable``, ``refused``) are not failures.

    Example:
        >>> failures(empty_frame()).empty
        True
    """
    cols = ["kind", "code", "call", "rows", "points", "example"]
    frame = samples_of(frame)
    bad = frame[frame["error_kind"].isin(FAILURE_KINDS).fillna(False).astype(bool)]
    if bad.empty:
        return pd.DataFrame(columns=cols)
    keys = ["error_kind", "error_code", "error_call"]
    points = bad.drop_duplicates([*POINT_KEYS, *keys])
    out = (
        bad.groupby(keys, dropna=False, sort=True)
        .agg(rows=("error_kind", "size"), example=("error", "first"))
        .reset_index()
    )
    npoints = points.groupby(keys, dropna=False, sort=True).size().rename("points")
    out = out.merge(npoints.reset_index(), on=keys, how="left")
    out = out.rename(columns={"error_kind": "kind", "error_code": "code", "error_call": "call"})
    return out[cols]


#: Paths whose copies go device to device: their matrices show the device-local copy on
#: the diagonal. Through the host (staged, host) they do not: 621 GB/s beside 7.8 says
#: nothing about the path.
DEVICE_PATHS = ("p2p", "direct")


def shows_local(path: str) -> bool:
    """Whether a matrix of ``path`` shows the device-local copy on its diagonal.

    Example:
        >>> shows_local("p2p"), shows_local("staged")
        (True, False)
    """
    return path in DEVICE_PATHS


#: The pattern whose rows carry a value column, where it is not ``pair``.
VALUE_PATTERN = {"latency_us": "latency"}


def _pattern_for(frame: pd.DataFrame, value: str, pattern: str | None) -> str:
    """The pattern a matrix of value is taken from: the one given, else the value's own;
    ValueError when no row of it has the value while rows of other patterns do."""
    pattern = VALUE_PATTERN.get(value, PAIR) if pattern is None else pattern
    if value not in frame.columns:
        raise ValueError(f"unknown value column {value!r}")
    has = frame.loc[frame[value].notna(), "pattern"]
    if len(has) and not (has == pattern).any():
        others = sorted(set(has) - {"local"})
        if others:
            raise ValueError(
                f"no {pattern!r} row has {value}; the run has it for pattern "
                f"{', '.join(map(repr, others))}: pass pattern="
            )
    return pattern


def matrix(
    frame: Run,
    size: int | None = None,
    *,
    value: str = "bandwidth_GBps",
    stat: str = "median",
    pattern: str | None = None,
    direction: str = "uni",
    peer: str | None = None,
    path: str | Iterable[str] | None = None,
    device_count: int | None = None,
    initiator: str | None = None,
) -> pd.DataFrame:
    """N x N matrix (rows = src, columns = dst) of one statistic at one size.

    ``size=None`` takes each pair's largest measured size (the asymptote); a size the
    selected rows were not measured at raises ValueError naming the sizes they have.
    Cells never measured are NaN; the diagonal holds the device-local copy when the run
    has one. ``pattern`` None is inferred from ``value`` (``latency_us``: the latency
    pattern, else ``pair``), so ``matrix(run, value="latency_us")`` is the latency matrix;
    a pattern none of whose rows has ``value`` while others do raises ValueError naming
    them, never a matrix of nothing. ``initiator`` keeps the copies one side issued (a
    run with pulls and pushes; the diagonal's local copies stay).
    """
    run = Run.of(frame)
    frame = run.samples
    pattern = _pattern_for(frame, value, pattern)
    # the rows are filtered several times: only the columns read below are carried
    frame = frame[[c for c in dict.fromkeys([*MATRIX_READS, value]) if c in frame.columns]]
    df = frame[
        (frame["pattern"].isin([pattern, LOCAL_PATTERN])) & (frame["direction"] == direction)
    ]
    if peer is not None:
        df = df[(df["peer"] == peer) | (df["pattern"] == LOCAL_PATTERN)]
    if initiator is not None:
        df = df[(df["initiator"] == initiator).fillna(False) | (df["pattern"] == LOCAL_PATTERN)]
    if path is not None:
        paths = [path] if isinstance(path, str) else list(path)
        df = df[df["path"].isin(paths) | (df["pattern"] == LOCAL_PATTERN)]
    else:
        paths = sorted(set(df.loc[df["pattern"] != LOCAL_PATTERN, "path"].dropna()))
        if len(paths) > 1:
            raise ValueError(
                f"the run has several paths {paths} for direction={direction!r}, "
                f"peer={peer!r}; choose one with path= (or peer=)"
            )
    if not all(shows_local(p) for p in paths):  # through the host: no local copy beside it
        df = df[df["pattern"] != LOCAL_PATTERN]
    if size is not None:
        _check_size(
            df[df["pattern"] == pattern] if (df["pattern"] == pattern).any() else df, size, pattern
        )
    df = df[df[value].notna()]
    if size is not None:
        df = df[df["size_bytes"] == size]
    else:
        largest = df.groupby(["src", "dst"])["size_bytes"].transform("max")
        df = df[df["size_bytes"] == largest]
    n = device_count or run.meta.device_count or 0
    if not n:
        n = int(pd.concat([frame["src"], frame["dst"]]).dropna().max() + 1) if len(frame) else 0
    # what pivot_table(index="src", columns="dst", aggfunc=stat) gives once reindexed
    # below, in ~1 ms instead of ~2.5
    mat = df.groupby(["src", "dst"])[value].agg(stat).unstack()
    mat = mat.reindex(index=range(n), columns=range(n)).astype("float64")
    mat.index.name, mat.columns.name = "src", "dst"
    return mat


def _check_size(rows: pd.DataFrame, size: int, pattern: str) -> None:
    """Refuse a size the rows were not measured at (one line naming the sizes they have)."""
    have = sorted(int(v) for v in rows["size_bytes"].dropna().unique())
    if size not in have:
        raise ValueError(
            f"size {size} bytes is not among the selected {pattern} rows' sizes "
            f"{have or 'none'} (bytes)"
        )


def _group_id(key: tuple[Any, ...]) -> tuple[str, ...]:
    """A group key that compares equal across groupbys (missing values as one text)."""
    return tuple("<NA>" if pd.isna(v) else str(v) for v in key)


def fit_latency_bandwidth(frame: Run, *, keep_host_bound: bool = False) -> pd.DataFrame:
    """Fit ``t = latency + size / bandwidth`` per (pattern, direction, peer, path, pair).

    Uses the median time per copy at each size, weighted by 1/t so that small and large
    copies count alike. Returns latency_us, bandwidth_GBps (asymptotic), the link's
    nominal bandwidth, the efficiency against it, the sizes fitted, and
    ``host_bound_left_out``: the samples left out as ``host_bound`` (enqueueing took at
    least ``host_bound_ratio`` of the window: the host may have set the pace). A group
    left with fewer than two sizes gets NaN figures when samples were left out (and no
    row otherwise). ``keep_host_bound=True`` fits every sample.
    """
    keys = [k for k in POINT_KEYS if k != "size_bytes"]  # one fit per pair or group pair
    frame = samples_of(frame)
    numeric = frame[frame["bandwidth_GBps"].notna()]
    bound = numeric["host_bound"].fillna(False).astype(bool) & (not keep_host_bound)
    left_out = {
        _group_id(k): (k, int(n))
        for k, n in numeric[bound].groupby(keys, dropna=False, sort=True).size().items()
    }
    summary = summarize(numeric[~bound])
    at: dict[tuple[str, ...], Any] = {}  # each group's timed sizes: their rows in timed
    groups: dict[tuple[str, ...], Any] = {}
    if len(summary):  # the groups in summary's order
        timed = summary[summary["us_per_copy_median"].notna()]
        found = timed.groupby(keys, dropna=False, sort=True).indices
        at = {_group_id(k): found[k] for k in found}
        sizes = timed["size_bytes"].to_numpy(float, na_value=np.nan)
        times = timed["us_per_copy_median"].to_numpy(float)
        nominals = timed["nominal_GBps"]
        groups = {_group_id(k): k for k in summary.groupby(keys, dropna=False).size().index}
    for gid, (key, _n) in left_out.items():
        groups.setdefault(gid, key)
    rows = []
    for gid, key in groups.items():  # summary's order, then those with none left
        pos = at.get(gid, ())
        dropped = left_out.get(gid, (key, 0))[1]
        if len(pos) < 2:
            if dropped:  # no figures: too few sizes left
                figures = dict.fromkeys(FIT_COLUMNS[:4], math.nan)
                row = {**figures, "sizes": len(pos), "host_bound_left_out": dropped}
                rows.append({**dict(zip(keys, key)), **row})
            continue
        x, y = sizes[pos], times[pos]
        w = 1.0 / y
        a = np.vstack([np.ones_like(x), x]).T * w[:, None]
        (lat, slope), *_ = np.linalg.lstsq(a, y * w, rcond=None)
        bw = 1.0 / slope / 1e3 if slope > 0 else math.nan
        nominal = float(nominals.iloc[pos[0]])
        rows.append(
            {
                **dict(zip(keys, key)),
                "latency_us": float(lat),
                "bandwidth_GBps": bw,
                "nominal_GBps": nominal,
                "efficiency": bw / nominal if nominal else math.nan,
                "sizes": len(pos),
                "host_bound_left_out": dropped,
            }
        )
    return pd.DataFrame(rows, columns=[*keys, *FIT_COLUMNS])


# ---------------------------------------------------------------------- save / load
#: Which rows of a run an inferred preset behaviour (run.json ``inferred``) touches.
_INFERRED_TOUCHES: dict[str, Any] = {
    "peer_off_copy": lambda r: r["peer"] == OFF,
    "peer_off_error": lambda r: r["peer"] == OFF,
    "push_efficiency": lambda r: r["initiator"] == SRC,  # one_to_all pushes too
    "ingress_GBps": lambda r: r["pattern"].isin([*GROUP_PATTERNS, PULL_FANOUT, TEST_PATTERN]),
    "die_link_HCCS": lambda r: r["die_link"].isin([DIE_HCCS, DIE_BOTH]),  # the A3's HCCS lane
}


def inferred_notes(frame: Run) -> dict[str, str]:
    """The inferred behaviours of the simulated preset (``meta.inferred``)
    that this run's rows depend on: preset key -> why it was chosen. Empty on hardware.

    Example:
        >>> from ascend_p2p_lab import open_runtime
        >>> from ascend_p2p_lab.measure import sweep
        >>> with open_runtime("sim", "atlas800t-a3") as rt:
        ...     run = sweep(rt, pairs="0-2", sizes="1MiB", peer="off", samples=1,
        ...                 progress=False)
        >>> sorted(inferred_notes(run))
        ['peer_off_copy', 'peer_off_error']
    """
    run = Run.of(frame)
    frame, inferred = run.samples, run.meta.inferred
    out = {}
    for key, why in inferred.items():
        touches = _INFERRED_TOUCHES.get(key)
        if touches is None or bool(touches(frame).fillna(False).any()):
            out[key] = why
    return out


def save_run(
    frame: object, out: str | Path, meta: Mapping[str, Any] | RunMeta | None = None
) -> Path:
    """Deprecated: ``run.save(folder)`` (:func:`ascend_p2p_lab.run.save`). Writes a Run,
    or a run frame with its metadata in its convenience copy or given as ``meta``."""
    deprecated("results.save_run()", "run.save(folder)")
    if not isinstance(frame, (pd.DataFrame, Run)):
        raise TypeError(f"save_run needs a DataFrame or a Run, got {type(frame).__name__}")
    run = Run.of(frame)
    if meta is not None:
        run = Run(run.samples, meta if isinstance(meta, RunMeta) else RunMeta.from_dict(meta))
    return run_folder.save(run, out)


def load_run(path: str | Path) -> pd.DataFrame:
    """Deprecated: ``Run.load(folder)`` (:func:`ascend_p2p_lab.run.load`). The samples,
    with the run's metadata in ``attrs["run"]``, as before."""
    deprecated("results.load_run()", "Run.load(folder)")
    return run_folder.load(path).frame()


def card_keys(rows: pd.DataFrame) -> pd.DataFrame:
    """Card rows with ``senders``/``receivers`` filled: a row imported without its devices
    (ascend-dmi's card matrix prints card ids, not the devices of each card) is keyed by
    the card id it names, ``(src,)`` to ``(dst,)``, as it was before devices were saved."""
    missing = rows["senders"].isna() & rows["src"].notna()
    if not missing.any():
        return rows[rows["senders"].notna()]
    out = rows.copy()
    out.loc[missing, "senders"] = pd.Series(
        [(int(s),) for s in out.loc[missing, "src"]], index=out.index[missing], dtype=object
    )
    out.loc[missing, "receivers"] = pd.Series(
        [(int(d),) for d in out.loc[missing, "dst"]], index=out.index[missing], dtype=object
    )
    return out[out["senders"].notna()]


def place_cards(frame: Run, cards: Sequence[Sequence[int]]) -> Run:
    """The run with each card row that names card ids (ascend-dmi's ``-m card`` matrix,
    imported without its server) placed on the server's cards: card ``k`` is
    ``cards[k]``, its devices in ``senders``/``receivers``, ``src``/``dst`` empty as in a
    sweep's card rows, ``group`` their label. Rows that hold their devices stay as they
    are. ValueError for a card id the server does not have.

    Example:
        >>> rows = to_frame([{"pattern": "card", "src": 1, "dst": 0, "size_bytes": 4}])
        >>> placed = place_cards(rows, [(0, 1), (2, 3)]).samples
        >>> placed[["senders", "receivers", "group"]].values.tolist()
        [[(2, 3), (0, 1), '2,3->0,1']]
    """
    run = Run.of(frame)
    rows = run.samples
    ids = (
        rows["pattern"].isin(CARD_PATTERNS).fillna(False).astype(bool)
        & rows["senders"].isna()
        & rows["src"].notna()
        & rows["dst"].notna()
    )
    if not ids.any():
        return run
    named = [int(c) for c in pd.concat([rows.loc[ids, "src"], rows.loc[ids, "dst"]])]
    if max(named) >= len(cards):
        raise ValueError(f"the run names card {max(named)}; the server has {len(cards)} cards")
    out = rows.copy()
    senders = [tuple(cards[int(s)]) for s in out.loc[ids, "src"]]
    receivers = [tuple(cards[int(d)]) for d in out.loc[ids, "dst"]]
    out.loc[ids, "senders"] = pd.Series(senders, index=out.index[ids], dtype=object)
    out.loc[ids, "receivers"] = pd.Series(receivers, index=out.index[ids], dtype=object)
    out.loc[ids, "group"] = [group_name(a, b) for a, b in zip(senders, receivers)]
    out.loc[ids, ["src", "dst"]] = pd.NA
    return Run(out, run.meta)
