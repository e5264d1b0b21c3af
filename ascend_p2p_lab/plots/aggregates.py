"""Aggregates: copies on several links at once (fan-out, groups, cards) beside the sum of
the nominal rates of the links they use, and the card x card matrix.

:func:`aggregate_stats` works out the bars in pure pandas: one per device of a fan-out
and per group pair, at the largest size measured, median over samples with the p10-p90
range; a bidirectional group is one bar with the total of both directions.
:func:`aggregate_bars` draws them, the nominal rate as a black tick on each bar.
:func:`card_heatmap` draws the card pattern's matrix (rows = sending card).

Example:
    >>> from ascend_p2p_lab import open_runtime
    >>> from ascend_p2p_lab.measure import sweep
    >>> with open_runtime("sim", "atlas800t-a2") as rt:
    ...     run = sweep(rt, sizes="16MiB", groups="0,1:2,3", samples=2, progress=False)
    >>> aggregate_stats(run.samples)[["what", "nominal_GBps"]].to_dict("records")
    [{'what': 'group 0,1->2,3', 'nominal_GBps': 112.0}]
"""

from __future__ import annotations

import math

import matplotlib as mpl
import matplotlib.colors as mcolors
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ..matrices import CARD_PATTERNS, flow_label, run_matrices
from ..run import Run
from ..schema import AGGREGATE_PATTERNS, PULL_FANOUT, PUSH_FANOUT
from ..units import format_size
from ..vocab import BI
from .matrix import annotate_matrix, draw_matrix
from .prepare import backend_note, frame_of
from .style import (
    BAR_ROW_IN,
    CURVE_SIZE,
    MISSING_FACE,
    fig_ax,
    finish,
    matrix_fonts,
    matrix_size,
    median_bars,
    set_title,
    side_legend,
)

#: Patterns drawn as bars, with their colour and how a bar names its copies.
AGGREGATE_COLORS = dict(
    zip(AGGREGATE_PATTERNS, ("#1f77b4", "#2ca02c", "#9467bd", "#d62728", "#8c564b", "#e377c2"))
)
BAR_COLUMNS = [
    "pattern",
    "direction",
    "what",
    "size_bytes",
    "median",
    "p10",
    "p90",
    "nominal_GBps",
    "link",
]
#: Room to the right of the longest bar or tick for its text, as a factor of it.
TEXT_ROOM = 1.45
#: uni bars before bi ones.
DIRECTION_ORDER = {"uni": 0, "bi": 1}


def _what(row: pd.Series) -> str:
    if row["pattern"] == PUSH_FANOUT:
        return f"{PUSH_FANOUT} {int(row['src'])}->all"
    if row["pattern"] == PULL_FANOUT:
        return f"{PULL_FANOUT} all->{int(row['dst'])}"
    arrow = "<->" if row["direction"] == BI else "->"
    return f"{row['pattern']} {flow_label(row, arrow)}"


def _senders_first(row: pd.Series) -> bool:
    """Whether a group row's senders have the lower first device ((0, 1) to (2, 3): True);
    True for a row of no group."""
    senders, receivers = row["senders"], row["receivers"]
    if senders is None or receivers is None:
        return True
    return senders[0] < receivers[0]


def aggregate_stats(run: pd.DataFrame) -> pd.DataFrame:
    """One bar per fan-out device and group pair at the largest size measured: columns
    ``pattern, direction, what, size_bytes, median, p10, p90, nominal_GBps, link``; a
    bidirectional group pair's value (and nominal rate) is both directions together."""
    rows = run[
        run["pattern"].isin(list(AGGREGATE_COLORS)).fillna(False).astype(bool)
        & run["bandwidth_GBps"].notna()
        & run["error_kind"].isna()
    ].copy()
    if rows.empty:
        return pd.DataFrame(columns=BAR_COLUMNS)
    rows = rows[rows["size_bytes"] == rows["size_bytes"].max()].copy()
    bi = rows["direction"] == BI
    rows.loc[bi, "bandwidth_GBps"] = rows.loc[bi, "bidir_total_GBps"]
    rows.loc[bi, "nominal_GBps"] = 2 * rows.loc[bi, "nominal_GBps"]
    # a bi pair's two rows hold the same total: keep the one whose senders come first
    first = rows[~bi | rows.apply(_senders_first, axis=1).astype(bool)].copy()
    first["what"] = first.apply(_what, axis=1)
    g = first.groupby(["pattern", "direction", "what", "size_bytes"], sort=False)
    out = pd.DataFrame(
        {
            "median": g["bandwidth_GBps"].median(),
            "p10": g["bandwidth_GBps"].quantile(0.10),
            "p90": g["bandwidth_GBps"].quantile(0.90),
            "nominal_GBps": g["nominal_GBps"].first(),
            "link": g["link"].first(),
        }
    ).reset_index()
    order = {p: k for k, p in enumerate(AGGREGATE_COLORS)}
    out["_order"] = out["pattern"].map(order)
    out["_dir"] = out["direction"].map(DIRECTION_ORDER)
    return out.sort_values(["_order", "_dir"], kind="stable")[BAR_COLUMNS].reset_index(drop=True)


def aggregate_bars(
    run: Run, *, ax: Axes | None = None, figsize: tuple[float, float] | None = None
) -> Figure:
    """Horizontal bars of aggregate bandwidth (median, p10-p90 whisker), each with the
    nominal rate (its links' rates within the preset's shared budgets) as a black tick.

    Example:
        >>> fig = aggregate_bars(run)  # doctest: +SKIP
    """
    run = frame_of(run)
    st = aggregate_stats(run)
    if st.empty:
        raise ValueError("the run has no measured one_to_all, all_to_one, group or card rows")
    width, _ = CURVE_SIZE
    fig, ax = fig_ax(ax, (width, 1.6 + BAR_ROW_IN * len(st)), figsize)
    colors = [AGGREGATE_COLORS[p] for p in st["pattern"]]
    median_bars(
        ax,
        st,
        colors,
        ecolor="#333333",
        tick_color="black",
        unit=" GB/s",
        of_nominal=" of nominal",
        room=TEXT_ROOM,
    )
    ax.set_yticks(np.arange(len(st)), labels=list(st["what"]), fontsize=8)
    ax.set_xlabel("bandwidth (GB/s); bi: both directions together")
    ax.grid(axis="x", alpha=0.3)
    handles = [Patch(color=AGGREGATE_COLORS[p], label=p) for p in dict.fromkeys(st["pattern"])]
    if st["nominal_GBps"].notna().any():  # an import's aggregates have no rate on paper
        handles.append(
            Line2D(
                [],
                [],
                marker="|",
                ls="",
                ms=12,
                color="black",
                label="nominal: the links\nused, within the\nshared budgets (ports,\ncards)",
            )
        )
    side_legend(ax, handles)
    size = int(st["size_bytes"].iloc[0])
    set_title(
        ax,
        f"Copies on several links at once, at {format_size(size)}\n"
        "median over samples, p10-p90 whisker",
        backend_note(run),
    )
    return finish(fig)


def card_heatmap(
    run: Run,
    *,
    direction: str = "uni",
    value: str = "bandwidth_GBps",
    ax: Axes | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """The card pattern's matrix: rows = sending card, columns = receiving card, a cell
    the bandwidth of all devices of one card copying to all of the other at once
    (``value="bidir_total_GBps"`` with ``direction="bi"``: both directions together).

    Example:
        >>> fig = card_heatmap(run, direction="bi", value="bidir_total_GBps")  # doctest: +SKIP
    """
    run = frame_of(run)
    found = [
        m
        for m in run_matrices(run)
        if m.pattern in CARD_PATTERNS and m.direction == direction and m.value == value
    ]
    if not found:
        raise ValueError(f"the run has no card matrix of {value} for direction {direction}")
    m = found[0]
    frame = m.frame
    n = len(frame)
    fig, ax = fig_ax(ax, matrix_size(n, 1), figsize)
    cell_fs, tick_fs = matrix_fonts(n)
    values = frame.to_numpy(dtype=float)
    finite = values[np.isfinite(values)]
    hi = float(finite.max()) if finite.size else 1.0
    cmap = mpl.colormaps["viridis"].with_extremes(bad=MISSING_FACE)
    kinds = pd.DataFrame(
        [
            ["self" if i == j else ("value" if k is None else "code") for j, k in enumerate(row)]
            for i, row in enumerate(m.kinds)
        ]
    )
    texts = pd.DataFrame(
        [
            [
                "—" if i == j else (f"{v:.0f}" if math.isfinite(v) else "n/m")
                for j, v in enumerate(row)
            ]
            for i, row in enumerate(values)
        ]
    )
    im = draw_matrix(
        frame,
        ax,
        cmap=cmap,
        norm=mcolors.Normalize(0.0, hi),
        kinds=kinds,
        fontsize=tick_fs,
        xlabel="destination card (column)",
        ylabel="source card (row)",
    )
    annotate_matrix(ax, texts, kinds=kinds, image=im, fontsize=cell_fs)
    cbar = fig.colorbar(im, ax=ax, shrink=0.85, pad=0.02)
    cbar.set_label("bandwidth (GB/s)")
    cbar.ax.tick_params(labelsize=8)
    set_title(ax, m.title.split(", row =")[0].replace(", ", "\n", 1), backend_note(run))
    return finish(fig)
