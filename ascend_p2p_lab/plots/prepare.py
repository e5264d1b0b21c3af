"""What the figures show, as data: rows of a mode, sizes, statistics, texts. Pure pandas.

Nothing here imports matplotlib: every function takes and returns DataFrames, Series or
strings, so what a figure will show can be checked without drawing it. The matrix cells
(values, failures, verification) are in :mod:`ascend_p2p_lab.plots.cells`.

Example:
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"src": [0, 0, 1], "dst": [1, 1, 0],
    ...                      "size_bytes": [4096, 65536, 4096]})
    >>> at_size(rows)[["src", "dst", "size_bytes"]].to_numpy().tolist()
    [[0, 1, 65536], [1, 0, 4096]]
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .. import results
from ..run import Run, RunMeta
from ..schema import LOCAL_PATTERN, PAIR_PATTERN
from ..units import format_size, parse_size
from ..vocab import INITIATOR_TEXT, LINKS, UNI

#: npu-smi's link classes in the order every figure lists them, with the legend's words
#: (each link record's, :data:`~ascend_p2p_lab.vocab.LINKS`).
LINK_MEANING: dict[str, str] = {r.name: r.meaning for r in LINKS}
LINK_ORDER: tuple[str, ...] = tuple(LINK_MEANING)
PATH_WORDS = {
    "p2p": "P2P copy",
    "direct": "direct device-to-device copy",
    "staged": "staged through host memory",
    "local": "device-local copy",
}
#: The columns of a curve's statistics (one row per group and size).
STAT_COLUMNS = ["size_bytes", "median", "p10", "p90"]


# ------------------------------------------------------------------------------ basics
def eq(col: pd.Series, value: Any) -> pd.Series:
    """``col == value`` with missing values as False (string columns hold <NA>)."""
    return col.eq(value).fillna(False).astype(bool)


def narrow(frame: pd.DataFrame, columns: Sequence[str], keep: Any = None) -> pd.DataFrame:
    """The rows ``keep`` (a boolean mask; all rows without) of those of ``columns`` the
    frame has, in its order: for a caller that reads no other column. A selection of a
    run's ~60 columns costs ~5 ms (a take per column), of ten ~1 ms; a column the frame
    lacks is left out, so the reader's KeyError is the one it would have had.

    Example:
        >>> rows = pd.DataFrame({"a": [1, 2], "b": [3, 4], "c": [5, 6]})
        >>> narrow(rows, ["c", "a", "x"], rows["b"] > 3).to_dict("list")
        {'a': [2], 'c': [6]}
    """
    sub = frame[[c for c in frame.columns if c in columns]]
    return sub if keep is None else sub[keep]


def frame_of(run: Run) -> pd.DataFrame:
    """What a figure function works on: a run frame as it is, a Run as its frame (the
    samples with their metadata's convenience copy, which pandas' selections carry to
    the parts the figure draws).

    Example:
        >>> frame_of(Run(meta=RunMeta(device_count=4))).attrs["run"]["device_count"]
        4
    """
    return run.frame() if isinstance(run, Run) else run


def run_meta(frame: Run) -> RunMeta:
    """The run's metadata (``Run.of``: empty for a bare frame)."""
    return Run.of(frame).meta


def distinct(frame: pd.DataFrame, col: str) -> list[str]:
    """The column's values as text, in order of first appearance, without missing ones."""
    if col not in frame.columns:
        return []
    return [str(v) for v in dict.fromkeys(frame[col].dropna().unique().tolist())]


def device_count(frame: pd.DataFrame) -> int:
    """The run's device count, else one more than the largest device id."""
    n = run_meta(frame).device_count or 0
    if n:
        return n
    ids = pd.concat([frame["src"], frame["dst"]]).dropna()
    return int(ids.max()) + 1 if len(ids) else 0


def chosen_devices(frame: pd.DataFrame, n: int) -> list[int]:
    """The devices a run's matrices show: those ``--devices`` chose (``params.devices``),
    else all n, as the terminal shows them.

    Example:
        >>> run = Run(pd.DataFrame(), RunMeta(params={"devices": [1, 3]}))
        >>> chosen_devices(run, 16), chosen_devices(pd.DataFrame(), 2)
        ([1, 3], [0, 1])
    """
    chosen = run_meta(frame).params.get("devices")
    if chosen:
        return [int(d) for d in chosen if 0 <= int(d) < n] or list(range(n))
    return list(range(n))


def size_bytes(size: int | str | None) -> int | None:
    return None if size is None else parse_size(size)


def wrap(text: str, width: int) -> str:
    """Lines of at most ``width`` characters, the later ones indented; a word longer than
    that (a file name, a path) stays whole on its own line.

    Example:
        >>> print(wrap("cannot read /a/very/long/path/to/run.json here", 20))
        cannot read
            /a/very/long/path/to/run.json
            here
    """
    return (
        "\n".join(
            textwrap.wrap(
                text,
                width=width,
                subsequent_indent="    ",
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
        or text
    )


def link_rank(link: str) -> tuple[int, str]:
    """Sort key of a link class: npu-smi's order, unknown classes last by name."""
    return (LINK_ORDER.index(link) if link in LINK_ORDER else len(LINK_ORDER), link)


def backend_note(*frames: pd.DataFrame) -> str:
    """Where the numbers come from: ``"simulated: atlas800t-a2"`` or ``"hardware: …"``.

    Example:
        >>> import pandas as pd
        >>> backend_note(pd.DataFrame({"backend": ["sim"], "preset": ["atlas800t-a2"]}))
        'simulated: atlas800t-a2'
    """
    sim: list[str] = []
    hw: list[str] = []
    guessed: list[str] = []
    for frame in frames:
        meta = run_meta(frame)
        guessed += [g for g in _GUESSED if g in (meta.guessed or {}) and g not in guessed]
        backends = distinct(frame, "backend") or [str(meta.backend or "unknown")]
        presets = distinct(frame, "preset") or [str(meta.preset or meta.topology or "?")]
        for backend in backends:
            if backend == "sim":
                sim.extend(p for p in presets if p not in sim)
            else:
                soc = meta.soc_name or "Ascend"
                hosts = distinct(frame, "host") or ([meta.hostname] if meta.hostname else [])
                where = f" on {', '.join(hosts)}" if hosts else ""  # a capture may not say
                label = f"{backend} {soc}{where}"
                if label not in hw:
                    hw.append(label)
    parts = []
    if sim:
        parts.append("simulated: " + ", ".join(sim))
    if hw:
        parts.append("hardware: " + "; ".join(hw))
    note = " | ".join(parts) or "unknown backend"
    if guessed:  # run.json's ``guessed``: from topology text, not reported
        note += f" ({' and '.join(_GUESSED[g] for g in guessed)} guessed from topology text)"
    return note


#: What ``meta.guessed`` may hold, as a figure's note names it.
_GUESSED = {"soc_name": "SoC", "link_rates": "link rates"}


# ------------------------------------------------------------------------------ rows
def mode_rows(frame: pd.DataFrame, direction: str, peer: str, path: str) -> pd.DataFrame:
    """The rows of one direction, peer state and path."""
    return frame[
        eq(frame["direction"], direction) & eq(frame["peer"], peer) & eq(frame["path"], path)
    ]


def pick_path(df: pd.DataFrame) -> str | None:
    """The path to show when none is asked for: p2p, else direct, else staged, preferring
    one that has numbers."""
    present = [p for p in ("p2p", "direct", "staged", "local") if eq(df["path"], p).any()]
    for p in present:
        if df.loc[eq(df["path"], p), "bandwidth_GBps"].notna().any():
            return p
    return present[0] if present else None


def combos(frame: pd.DataFrame, pattern: str = PAIR_PATTERN) -> list[tuple[str, str, str]]:
    """The (direction, peer, path) modes of a run: uni before bi, on before off."""
    df = narrow(frame, ("direction", "peer", "path"), eq(frame["pattern"], pattern))
    seen = df[["direction", "peer", "path"]].dropna().drop_duplicates()
    order = {v: i for i, v in enumerate(("uni", "bi", "on", "off", "p2p", "direct", "staged"))}
    out = [tuple(map(str, r)) for r in seen.itertuples(index=False)]
    return sorted(out, key=lambda c: tuple(order.get(v, 99) for v in c))  # type: ignore[misc]


def select(
    frame: pd.DataFrame,
    *,
    direction: str,
    peer: str | None,
    path: str | Sequence[str] | None,
    pattern: str = PAIR_PATTERN,
    initiator: str | None = None,
    columns: Sequence[str] | None = None,
) -> tuple[pd.DataFrame, Any]:
    """Rows of one mode and the path they were taken on. ``path`` may name several paths,
    e.g. ("p2p", "direct") for a run that measured each pair with the peer state it found
    (``peer="current"``); None picks one (:func:`pick_path`). ``initiator`` keeps the
    copies one side issued (a run with pulls and pushes: never a median of both).
    ``columns``: only those the caller reads (:func:`narrow`), else every column."""
    keep = eq(frame["pattern"], pattern) & eq(frame["direction"], direction)
    if initiator is not None:
        keep &= eq(frame["initiator"], initiator)
    if peer is not None:
        keep &= eq(frame["peer"], peer)
    if path is None:
        path = pick_path(frame[keep])
    if isinstance(path, str):
        keep &= eq(frame["path"], path)
    elif path is not None:
        path = tuple(path)
        keep &= frame["path"].isin(path).fillna(False).astype(bool)
    df = frame[keep] if columns is None else narrow(frame, columns, keep)
    if df.empty or path is None:
        have = ", ".join(f"{d}/{p}/{q}" for d, p, q in combos(frame, pattern)) or "none"
        raise ValueError(
            f"no {pattern} rows with direction={direction!r}, peer={peer!r}, path={path!r}; "
            f"this run has (direction/peer/path): {have}"
        )
    return df, path


def mode_text(
    direction: str, peer: str | None, path: str | Sequence[str], initiator: str | None = None
) -> str:
    """``"unidirectional, peer on (p2p)"`` (and ``, pull`` or ``, push`` for one
    initiator's copies of a run that has both)."""
    d = "unidirectional" if direction == UNI else "bidirectional"
    p = "" if peer is None else f", peer {peer}"
    paths = path if isinstance(path, str) else " or ".join(path)
    who = "" if initiator is None else f", {INITIATOR_TEXT.get(initiator, initiator)}"
    return f"{d}{p} ({paths}){who}"


def at_size(
    df: pd.DataFrame, size: int | None = None, keys: Sequence[str] = ("src", "dst")
) -> pd.DataFrame:
    """The rows at ``size``, or (``size=None``) at each pair's (each ``keys``') largest size.

    Every figure that shows "the largest size" takes it from here, as
    :func:`ascend_p2p_lab.results.matrix` does for its cells.
    """
    if size is not None:
        return df[df["size_bytes"] == size]
    return df[df["size_bytes"] == df.groupby(list(keys))["size_bytes"].transform("max")]


def size_text(numeric: pd.DataFrame, size: int | None) -> str:
    """Which size a matrix of these rows (those with a number) shows, for its title."""
    if size is not None:
        return f"at {format_size(size)}"
    if numeric.empty:
        return "no numbers at any size"
    largest = at_size(numeric)["size_bytes"].unique()
    if len(largest) == 1:
        return f"at {format_size(int(largest[0]))} (largest size)"
    return "at each pair's largest size"


def check_size(sel: pd.DataFrame, size: int | None) -> None:
    """Refuse a size the rows were not measured at."""
    if size is not None and not (sel["size_bytes"] == size).any():
        have = ", ".join(format_size(s) for s in sorted(sel["size_bytes"].unique()))
        raise ValueError(f"size {format_size(size)} is not in this run (sizes: {have})")


def choose_pair(
    df: pd.DataFrame, src: int | None, dst: int | None, prefer: pd.DataFrame | None = None
) -> tuple[int, int]:
    """The pair to show: the first (by src, dst) that matches, has numbers and is in
    ``prefer``, else the first that matches (of the rows, only the columns it reads)."""
    cand = narrow(df, ("src", "dst", "bandwidth_GBps")).dropna(subset=["src", "dst"])
    if src is not None:
        cand = cand[cand["src"] == src]
    if dst is not None:
        cand = cand[cand["dst"] == dst]
    if cand.empty:
        raise ValueError(f"no pair rows for src={src!r}, dst={dst!r} in this run")
    good = cand
    if prefer is not None:
        good = cand.merge(prefer[["src", "dst"]].drop_duplicates(), on=["src", "dst"])
    good = good[good["bandwidth_GBps"].notna()]
    pick = good if not good.empty else cand
    first = pick.sort_values(["src", "dst"]).iloc[0]
    return int(first["src"]), int(first["dst"])


def first_link(df: pd.DataFrame) -> str:
    """The link class of these rows (the first one named), or ``"?"``."""
    return str(df["link"].dropna().iloc[0]) if df["link"].notna().any() else "?"


def pair_count(df: pd.DataFrame) -> int:
    """Distinct (src, dst) pairs of the rows."""
    return len(df[["src", "dst"]].drop_duplicates())


# ------------------------------------------------------------------------------ statistics


def point_stats(df: pd.DataFrame) -> pd.DataFrame:
    """Median, p10 and p90 of the bandwidth per pair and size, from
    :func:`ascend_p2p_lab.results.summarize` (points without a number left out):
    columns ``src, dst, link, size_bytes, median, p10, p90``.

    Rows of one pair in several points at one size (runs of different initiators put
    together) are pooled, as one line per pair shows them.
    """
    keys = ["src", "dst", "link"]
    summary = results.summarize(narrow(df, results.SUMMARIZED, df["bandwidth_GBps"].notna()))
    summary = summary.dropna(subset=[*keys, "bandwidth_GBps_median"])
    if summary.empty or summary.duplicated([*keys, "size_bytes"]).any():
        return pooled_stats(df, keys, "bandwidth_GBps")
    summary = summary.rename(
        columns={
            "bandwidth_GBps_median": "median",
            "bandwidth_GBps_p10": "p10",
            "bandwidth_GBps_p90": "p90",
        }
    )
    return summary[[*keys, *STAT_COLUMNS]].reset_index(drop=True)


def pooled_stats(df: pd.DataFrame, keys: list[str], col: str) -> pd.DataFrame:
    """Median, p10 and p90 of ``col`` over every sample of each ``keys`` group and size.

    For what :func:`~ascend_p2p_lab.results.summarize` (one point at a time, quantiles of
    the bandwidth only) does not give: all pairs of a link class together, both
    directions' totals of a pair, the time per copy.
    """
    df = df[df[col].notna()]
    if df.empty:
        return pd.DataFrame(columns=[*keys, *STAT_COLUMNS])
    g = df.groupby([*keys, "size_bytes"])[col]
    return pd.DataFrame(
        {"median": g.median(), "p10": g.quantile(0.10), "p90": g.quantile(0.90)}
    ).reset_index()


def time_per_copy(sel: pd.DataFrame) -> pd.DataFrame:
    """The rows with ``us_per_copy`` (elapsed_us / copies; NaN where there is no bandwidth)."""
    df = sel.copy()
    df["us_per_copy"] = df["elapsed_us"] / df["copies"].astype("float64")
    df.loc[df["bandwidth_GBps"].isna(), "us_per_copy"] = np.nan
    return df


def host_bound_points(df: pd.DataFrame, keys: Sequence[str], col: str) -> pd.DataFrame:
    """The points (median of ``col`` per ``keys`` group and size, over all its samples,
    where the curve draws them) that have a host-bound sample: enqueueing the copies
    took at least ``host_bound_ratio`` of the window, so the host may have set the pace.
    Columns ``*keys, size_bytes, <col>``.

    Example:
        >>> rows = pd.DataFrame({"src": [0, 0, 0], "dst": [1, 1, 1],
        ...                      "size_bytes": [4, 4, 4096], "v": [1.0, 3.0, 9.0],
        ...                      "host_bound": [True, False, False]})
        >>> host_bound_points(rows, ["src", "dst"], "v").to_numpy().tolist()
        [[0.0, 1.0, 4.0, 2.0]]
    """
    keys = [*keys, "size_bytes"]
    df = df[df[col].notna()]
    bound = df["host_bound"].astype("boolean").fillna(False).astype(bool)
    hit = df.loc[bound, keys].drop_duplicates()
    if hit.empty:
        return pd.DataFrame(columns=[*keys, col])
    points = df.groupby(keys, dropna=False)[col].median().reset_index()
    return points.merge(hit, on=keys)


def nominal_by_link(df: pd.DataFrame) -> dict[str, float]:
    """Each link class's nominal per-direction rate (GB/s), where the rows name one."""
    out = {}
    for link, v in df.groupby("link")["nominal_GBps"].first().items():
        if pd.notna(v) and np.isfinite(v):
            out[str(link)] = float(v)
    return out


def fits_by(sel: pd.DataFrame, by: str) -> pd.DataFrame:
    """:func:`~ascend_p2p_lab.results.fit_latency_bandwidth` per pair, or its median over
    the pairs of each link class (``by="link"``)."""
    fits = results.fit_latency_bandwidth(sel)
    if fits.empty or by != "link":
        return fits
    return fits.groupby("link", as_index=False)[["latency_us", "bandwidth_GBps"]].median()


def count_by_link(links: pd.Series) -> dict[str, int]:
    """How many of ``links`` (one per pair) are of each class, in npu-smi's order."""
    counts = links.astype(str).value_counts()
    return {c: int(counts[c]) for c in sorted(counts.index, key=link_rank)}


# ------------------------------------------------------------------------------ presets
def split_runs(
    runs: Mapping[str, Run] | Run,
) -> dict[str, pd.DataFrame]:
    """Name -> run frame: as given, or one run cut by its ``preset`` column (each part
    keeps the run's metadata)."""
    if isinstance(runs, (Run, pd.DataFrame)):
        run = Run.of(runs)
        rows = run.samples
        names = distinct(rows, "preset") or ["run"]
        return {
            name: (
                run.select(eq(rows["preset"], name)) if "preset" in rows.columns else run
            ).frame()
            for name in names
        }
    if not runs:
        raise ValueError("no runs given")
    return {name: frame_of(run) for name, run in runs.items()}


def preset_table(
    frames: Mapping[str, pd.DataFrame],
    *,
    size: int | None,
    direction: str,
    peer: str | None,
    path: str | None,
    include_local: bool,
) -> pd.DataFrame:
    """One row per run and link class: the median bandwidth over all samples of the class
    at ``size`` (else each pair's largest size), its nominal rate, pairs and size:
    ``name, soc, link, path, GBps, nominal, pairs, size``."""
    rows = []
    for name, frame in frames.items():
        sel, used_path = select(frame, direction=direction, peer=peer, path=path)
        parts = [sel]
        if include_local:
            parts.append(frame[eq(frame["pattern"], LOCAL_PATTERN)])
        df = pd.concat(parts)
        df = at_size(df[df["bandwidth_GBps"].notna()], size)
        soc = run_meta(frame).soc_name or ""
        for link, g in df.groupby("link"):
            nom = g["nominal_GBps"].dropna()
            rows.append(
                {
                    "name": name,
                    "soc": soc,
                    "link": str(link),
                    "path": used_path,
                    "GBps": float(g["bandwidth_GBps"].median()),
                    "nominal": float(nom.iloc[0]) if len(nom) else math.nan,
                    "pairs": pair_count(g),
                    "size": int(g["size_bytes"].max()),
                }
            )
    table = pd.DataFrame(rows)
    if table.empty:
        raise ValueError("none of the runs has numbers for this selection")
    return table


#: The process modes a run may hold (schema ``process_mode``), drawn in this order.
PROCESS_MODES = ("in_process", "ipc")


def process_mode_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One-way pair bandwidth per link class, process mode, initiator and size: the
    median over each point's samples, then over the pairs (pure pandas; rows that failed
    are left out).

    Example:
        >>> import pandas as pd
        >>> f = pd.DataFrame({"pattern": "pair", "direction": "uni", "src": 0, "dst": 1,
        ...     "link": "HCCS", "initiator": "dst", "size_bytes": 1 << 20,
        ...     "bandwidth_GBps": [20.0, 22.0], "process_mode": ["in_process", "ipc"]})
        >>> process_mode_table(f)[["process_mode", "GBps"]].values.tolist()
        [['in_process', 20.0], ['ipc', 22.0]]
    """
    keys = ["link", "process_mode", "initiator", "size_bytes"]
    ok = frame[
        eq(frame["pattern"], PAIR_PATTERN)
        & eq(frame["direction"], UNI)
        & frame["bandwidth_GBps"].notna()
    ]
    if ok.empty or "process_mode" not in ok:
        return pd.DataFrame(columns=[*keys, "GBps", "pairs"])
    per_point = ok.groupby([*keys, "src", "dst"], dropna=False)["bandwidth_GBps"].median()
    table = per_point.groupby(level=keys).agg(["median", "size"]).reset_index()
    table = table.rename(columns={"median": "GBps", "size": "pairs"})
    return table.sort_values(keys).reset_index(drop=True)
