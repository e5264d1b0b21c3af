"""Run against run as a matrix: the bandwidth ratio ``run / baseline`` of every pair.

The data is :func:`ascend_p2p_lab.comparison.ratio_grid`'s (pure pandas); this module
draws it with :func:`~ascend_p2p_lab.plots.matrix.draw_matrix` and
:func:`~ascend_p2p_lab.plots.matrix.annotate_matrix`: rows = source, columns =
destination, a diverging colormap centred on 1.0 (red slower, blue faster), and every
cell below the threshold framed in black with its ratio in bold.

Example:
    >>> from ascend_p2p_lab.comparison import compare
    >>> from ascend_p2p_lab.run import Run, RunMeta
    >>> from ascend_p2p_lab.schema import to_frame
    >>> def row(src, dst, gbps):
    ...     return {"src": src, "dst": dst, "link": "HCCS", "pattern": "pair",
    ...             "direction": "uni", "peer": "on", "path": "p2p", "initiator": "src",
    ...             "size_bytes": 1 << 24, "bandwidth_GBps": gbps}
    >>> base = Run(to_frame([row(0, 1, 25.0), row(1, 0, 25.0)]),
    ...            RunMeta(run_id="a", device_count=2))
    >>> new = Run(to_frame([row(0, 1, 12.5), row(1, 0, 25.0)]),
    ...           RunMeta(run_id="b", device_count=2))
    >>> fig = ratio_heatmap(compare(base, new))
    >>> marked_cells(fig.axes[0])  # (row = source, column = destination)
    [(0, 1)]
"""

from __future__ import annotations

from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib import colors as mcolors
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from ..comparison import Comparison, ratio_grid
from .matrix import CONTRAST, annotate_matrix, draw_matrix
from .prepare import mode_text, wrap
from .style import (
    DIAG_COLOR,
    MISSING_FACE,
    MISSING_STYLE,
    below_legend,
    fig_ax,
    finish,
    matrix_fonts,
    matrix_size,
    root,
    set_title,
)

#: The diverging colormap: red where the run is slower than the baseline, blue faster.
RATIO_CMAP = "RdBu"
#: The colour scale spans at least 1 +- this, so that noise stays pale.
MIN_HALF_RANGE = 0.25
#: The frame of a cell below the threshold.
BELOW_EDGE = "black"
BELOW_LINEWIDTH = 2.2
#: The ``gid`` of the frames over cells below the threshold (to find them in a figure).
BELOW_GID = "below-threshold"
#: A point the baseline measured and the run lost reads so in its cell.
LOST_TEXT = "lost"
#: Text styles per cell kind (see :func:`~ascend_p2p_lab.plots.matrix.annotate_matrix`).
RATIO_TEXTS: dict[str, dict[str, Any]] = {
    "value": {"color": CONTRAST},
    "below": {"color": CONTRAST, "fontweight": "bold"},
    "lost": {"color": CONTRAST, "fontweight": "bold"},
    "local": {"color": "white", "fontstyle": "italic"},
}


def _cells(grid: Any, below: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each cell's text and kind: value, below, lost, local (diagonal with a ratio),
    self (diagonal without one) or unknown (not compared)."""
    n = len(grid.ratios)
    texts = pd.DataFrame("", index=grid.ratios.index, columns=grid.ratios.columns, dtype=object)
    kinds = pd.DataFrame(
        "value", index=grid.ratios.index, columns=grid.ratios.columns, dtype=object
    )
    for i in range(n):
        for j in range(n):
            ratio = grid.ratios.iat[i, j]
            if grid.lost.iat[i, j]:
                texts.iat[i, j], kinds.iat[i, j] = LOST_TEXT, "lost"
            elif np.isfinite(ratio):
                texts.iat[i, j] = f"{ratio:.2f}"
                kinds.iat[i, j] = "below" if below.iat[i, j] else ("local" if i == j else "value")
            else:
                kinds.iat[i, j] = "self" if i == j else "unknown"
    return texts, kinds


def _norm(ratios: pd.DataFrame, threshold: float) -> mcolors.Normalize:
    """Centred on 1.0, wide enough for every ratio and the threshold."""
    values = ratios.to_numpy(dtype=float)
    finite = values[np.isfinite(values)]
    spread = float(np.abs(finite - 1.0).max()) if finite.size else 0.0
    half = max(MIN_HALF_RANGE, spread, abs(1.0 - threshold) * 1.1)
    return mcolors.CenteredNorm(vcenter=1.0, halfrange=half)


def _mark_below(ax: Axes, below: pd.DataFrame, lost: pd.DataFrame) -> int:
    """A black frame over every cell below the threshold or lost; how many."""
    marked = below.to_numpy(dtype=bool) | lost.to_numpy(dtype=bool)
    for i, j in zip(*np.nonzero(marked)):
        ax.add_patch(
            Rectangle(
                (int(j) - 0.45, int(i) - 0.45),
                0.9,
                0.9,
                fill=False,
                edgecolor=BELOW_EDGE,
                linewidth=BELOW_LINEWIDTH,
                zorder=2.7,
                in_layout=False,
                gid=BELOW_GID,
            )
        )
    return int(marked.sum())


def marked_cells(ax: Axes) -> list[tuple[int, int]]:
    """The (row, column) of every cell framed as below the threshold on ``ax``."""
    return sorted(
        (round(p.get_y() + p.get_height() / 2), round(p.get_x() + p.get_width() / 2))
        for p in ax.patches
        if p.get_gid() == BELOW_GID
    )


def ratio_heatmap(
    comparison: Comparison,
    *,
    size: int | None = None,
    direction: str = "uni",
    peer: str | None = "on",
    ax: Axes | None = None,
    threshold: float | None = None,
    path: str | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """N x N bandwidth ratios ``run / baseline`` of a comparison, rows = source, columns =
    destination, at one size (``size=None``: the largest the case has).

    ``comparison`` is what :func:`ascend_p2p_lab.comparison.compare` returns. Cells below
    ``threshold`` (default: the comparison's own) are framed in black with a bold ratio;
    a point the run lost reads ``lost`` (ratio 0). Cells not compared are hatched grey;
    the diagonal is dark unless the device-local copy was compared. The colour scale is
    diverging and centred on 1.0, with the threshold drawn on the colour bar.

    Example:
        >>> fig = ratio_heatmap(compare(baseline_run, run), size=16 << 20)  # doctest: +SKIP
    """
    meta = comparison.meta()
    grid = ratio_grid(comparison, size=size, direction=direction, peer=peer, path=path)
    if threshold is None:
        threshold = float(meta.get("threshold") or 0.0)
        below = grid.below
    else:
        below = (grid.ratios < threshold) & grid.ratios.notna()
    below = below | grid.lost
    n = len(grid.ratios)
    fig, ax = fig_ax(ax, matrix_size(n, legend_lines=4), figsize)
    cell_fs, tick_fs = matrix_fonts(n)
    cmap = mpl.colormaps[RATIO_CMAP].with_extremes(bad=MISSING_FACE)
    texts, kinds = _cells(grid, below)
    im = draw_matrix(
        grid.ratios,
        ax,
        cmap=cmap,
        norm=_norm(grid.ratios, threshold),
        kinds=kinds,
        fontsize=tick_fs,
    )
    annotate_matrix(ax, texts, kinds=kinds, image=im, fontsize=cell_fs, styles=RATIO_TEXTS)
    marked = _mark_below(ax, below, grid.lost)
    cbar = fig.colorbar(im, ax=ax, shrink=0.85, pad=0.02)
    cbar.set_label("bandwidth ratio run / baseline")
    cbar.ax.tick_params(labelsize=8)
    if threshold > 0:
        cbar.ax.axhline(threshold, color=BELOW_EDGE, linewidth=1.5)
    width = int(root(ax).get_figwidth() * 12)
    handles = [
        Patch(
            facecolor="white",
            edgecolor=BELOW_EDGE,
            linewidth=BELOW_LINEWIDTH,
            label=f"below {threshold:g} x baseline ({marked} cells); 'lost': "
            "measured in the baseline, failed in the run",
        ),
        Patch(**MISSING_STYLE, label="not compared (in one run only, or unmeasured)"),
        Patch(facecolor=DIAG_COLOR, label="diagonal: device-local copy when compared"),
    ]
    for handle in handles:
        handle.set_label(wrap(handle.get_label(), width))
    below_legend(ax, handles, fontsize=8)
    main = title or (
        f"Bandwidth ratio run / baseline (row -> column)\n"
        f"{mode_text(direction, peer, grid.path)}, {grid.title}"
    )
    note = (
        f"run {meta.get('run_id')} ({meta.get('run_source')})\n"
        f"baseline {meta.get('baseline_run_id')} ({meta.get('baseline_source')})"
    )
    set_title(ax, main, note)
    return finish(fig)
