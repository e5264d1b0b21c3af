"""A fleet at a glance: one small heatmap per host of each link's fraction of its class.

Takes the frame of :func:`ascend_p2p_lab.fleet.link_fractions` (``host, src, dst, link,
fraction, ...``; pure pandas, made without this package) and draws a grid of small
matrices, rows = source, columns = destination, on one diverging colour scale centred on
1.0 (red: slower than the class median). Links below the threshold are framed in black
with their fraction; a lost link reads ``lost``; a host without links (it failed) is an
empty panel saying why. Never loads the runtime, the fleet code or Dask.

Example:
    >>> import pandas as pd
    >>> fr = pd.DataFrame({"host": ["a", "a", "b", "b"], "src": [0, 1, 0, 1],
    ...                    "dst": [1, 0, 1, 0], "link": "HCCS",
    ...                    "fraction": [1.0, 1.0, 1.0, 0.5]})
    >>> fig = fleet_heatmaps(fr, threshold=0.9)
    >>> fleet_marked(fig)
    {'a': [], 'b': [(1, 0)]}
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib import colors as mcolors
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from .matrix import draw_matrix
from .ratiomap import BELOW_EDGE, BELOW_GID, BELOW_LINEWIDTH, LOST_TEXT, RATIO_CMAP, marked_cells
from .style import DIAG_COLOR, MISSING_FACE, new_figure, text_color

#: Panels per row when not given; each panel's size in inches.
MAX_COLUMNS = 4
PANEL_INCHES = 2.3
#: The colour scale spans 1 +- at least this.
MIN_HALF_RANGE = 0.25
#: The title's size (points); it wraps to the figure's width for any number of hosts.
TITLE_POINTS = 9.5


def fraction_grid(fractions: pd.DataFrame, host: str, n: int) -> pd.DataFrame:
    """One host's fractions as an n x n matrix (rows = source, NaN where none).

    Example:
        >>> fr = pd.DataFrame({"host": ["a"], "src": [1], "dst": [0], "fraction": [0.5]})
        >>> fraction_grid(fr, "a", 2).to_numpy().tolist()
        [[nan, nan], [0.5, nan]]
    """
    grid = pd.DataFrame(np.nan, index=range(n), columns=range(n))
    mine = fractions[fractions["host"] == host]
    for src, dst, value in zip(mine["src"], mine["dst"], mine["fraction"]):
        grid.iat[int(src), int(dst)] = float(value) if pd.notna(value) else np.nan
    return grid


def _norm(fractions: pd.DataFrame, threshold: float) -> mcolors.Normalize:
    values = pd.to_numeric(fractions["fraction"], errors="coerce").to_numpy(dtype=float)
    finite = values[np.isfinite(values) & (values > 0)]
    spread = float(np.abs(finite - 1.0).max()) if finite.size else 0.0
    return mcolors.CenteredNorm(
        vcenter=1.0, halfrange=max(MIN_HALF_RANGE, spread, abs(1.0 - threshold) * 1.1)
    )


def _panel(
    ax: object,
    grid: pd.DataFrame,
    threshold: float,
    norm: mcolors.Normalize,
    lost: set[tuple[int, int]],
) -> object:
    n = len(grid)
    values = grid.to_numpy(dtype=float)
    ax.set_facecolor(MISSING_FACE)
    cmap = mpl.colormaps[RATIO_CMAP]
    image = draw_matrix(grid, ax, cmap=cmap, norm=norm, fontsize=6.5, xlabel="", ylabel="")
    for i in range(n):
        ax.add_patch(Rectangle((i - 0.5, i - 0.5), 1, 1, color=DIAG_COLOR))
        for j in range(n):
            v = values[i, j]
            if (i, j) in lost or (np.isfinite(v) and v < threshold):
                ax.add_patch(
                    Rectangle(
                        (j - 0.45, i - 0.45),
                        0.9,
                        0.9,
                        fill=False,
                        edgecolor=BELOW_EDGE,
                        linewidth=BELOW_LINEWIDTH,
                        zorder=2.7,
                        gid=BELOW_GID,
                    )
                )
                text = LOST_TEXT if (i, j) in lost else f"{v:.2f}"
                face = cmap(norm(v)) if np.isfinite(v) else mcolors.to_rgba(MISSING_FACE)
                ax.text(
                    j,
                    i,
                    text,
                    ha="center",
                    va="center",
                    fontsize=6.5,
                    fontweight="bold",
                    color=text_color(face),
                    zorder=3,
                )
    return image


def fleet_heatmaps(
    fractions: pd.DataFrame,
    *,
    threshold: float = 0.9,
    hosts: Sequence[str] | None = None,
    failed: Mapping[str, str] | None = None,
    ncols: int | None = None,
    title: str | None = None,
) -> Figure:
    """A grid of per-host matrices of link fractions (see the module docstring).

    ``hosts`` orders the panels (default: the hosts in ``fractions``); ``failed`` maps a
    host without links to the reason written in its panel.
    """
    failed = dict(failed or {})
    names = (
        list(hosts)
        if hosts is not None
        else sorted(set(fractions["host"].astype(str)) | set(failed))
    )
    if not names:
        raise ValueError("no hosts to draw")
    ends = pd.concat([fractions["src"], fractions["dst"]]).dropna()
    n = int(ends.max()) + 1 if len(ends) else 1
    cols = ncols or min(MAX_COLUMNS, len(names))
    rows = math.ceil(len(names) / cols)
    fig = new_figure((PANEL_INCHES * cols + 0.9, PANEL_INCHES * rows + 0.6))
    axes = fig.subplots(rows, cols, squeeze=False)
    norm = _norm(fractions, threshold)
    image = None
    for k, ax in enumerate(axes.flat):
        if k >= len(names):
            ax.set_axis_off()
            continue
        host = names[k]
        mine = fractions[fractions["host"] == host]
        ax.set_title(host, fontsize=8.5)
        ax.set_gid(f"host:{host}")
        if mine.empty:
            ax.set_facecolor(MISSING_FACE)
            ax.set_box_aspect(1)
            ax.set_xticks([])
            ax.set_yticks([])
            ax.text(
                0.5,
                0.5,
                f"no links\n{failed.get(host, '')}",
                ha="center",
                va="center",
                fontsize=7,
                wrap=True,
                transform=ax.transAxes,
            )
            continue
        lost = {
            (int(s), int(d))
            for s, d, f, b in zip(
                mine["src"],
                mine["dst"],
                mine["fraction"],
                mine.get("bandwidth_GBps", mine["fraction"]),
            )
            if f == 0 and pd.isna(b)
        }
        image = _panel(ax, fraction_grid(fractions, host, n), threshold, norm, lost)
    if image is not None:
        bar = fig.colorbar(image, ax=axes, shrink=0.6, label="fraction of class median")
        bar.ax.axhline(threshold, color=BELOW_EDGE, linewidth=1.2)
    fig.supxlabel("destination device", fontsize=8.5)
    fig.supylabel("source device", fontsize=8.5)
    text = title or (
        f"links by host: fraction of their class's fleet median (rows = "
        f"source; framed: below {threshold:g})"
    )
    width_in = fig.get_size_inches()[0]  # a title as wide as the figure, at most
    fig.suptitle(
        textwrap.fill(text, max(20, int(width_in * 72 / (TITLE_POINTS * 0.6)))),
        fontsize=TITLE_POINTS,
    )
    return fig


def fleet_marked(fig: Figure) -> dict[str, list[tuple[int, int]]]:
    """Each host panel's framed cells, (row = source, column = destination)."""
    out = {}
    for ax in fig.axes:
        gid = ax.get_gid() or ""
        if gid.startswith("host:"):
            out[gid.removeprefix("host:")] = marked_cells(ax)
    return out
