"""The look every figure shares: colours, fonts, sizes, the figure class and its helpers.

Figures are built without pyplot (``LabFigure(figsize=..., dpi=100)``), so a notebook
shows each once and no global state is left behind. A figure this package sizes itself
grows (:func:`finish`) until its titles, legends and notes fit; one drawn on a caller's
``ax`` or at a caller's ``figsize`` is left as it is.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib import ticker
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..units import format_size
from ..vocab import LINKS
from . import pngfile
from .tickplaces import placed_once

DPI = 100
#: Categorical colour per link class (npu-smi words), used by every figure: each link
#: record's (:data:`~ascend_p2p_lab.vocab.LINKS`, in its order).
LINK_COLORS: dict[str, str] = {r.name: r.colour for r in LINKS}
DIAG_COLOR = LINK_COLORS["X"]
MISSING_FACE = "#e6e6e6"
MISSING_EDGE = "#8c8c8c"
HATCH = "///"
VERIFY_EDGE = "#b00020"
VERIFY_HATCH = "xx"
#: A cell without a number: hatched grey.
MISSING_STYLE: dict[str, Any] = {
    "facecolor": MISSING_FACE,
    "edgecolor": MISSING_EDGE,
    "hatch": HATCH,
}
#: A cell whose bytes arrived wrong: its colour washed out, hatched and framed in red.
VERIFY_STYLE: dict[str, Any] = {
    "facecolor": (1.0, 1.0, 1.0, 0.65),
    "edgecolor": VERIFY_EDGE,
    "hatch": VERIFY_HATCH,
}
#: Size of a line figure (bandwidth or time vs size) drawn on its own.
CURVE_SIZE = (8.0, 4.6)


class LabFigure(Figure):
    """A Figure that shows itself as PNG in Jupyter without pyplot.

    Figures here are built without pyplot (no global registry, no double display), so
    the inline backend's display hook does not know them; ``_repr_png_`` lets IPython
    show them as the cell's result all the same.
    """

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        save_png(self, buf, dpi=self.dpi)  # the pixels the report's file has
        return buf.getvalue()


def new_figure(figsize: tuple[float, float]) -> Figure:
    return LabFigure(figsize=figsize, dpi=DPI, layout="constrained")


def fig_ax(
    ax: Axes | None, auto: tuple[float, float], figsize: tuple[float, float] | None = None
) -> tuple[Figure, Axes]:
    """The axes to draw on: ``ax``, or a new figure of ``figsize`` (else ``auto``)."""
    if ax is None:
        fig = new_figure(figsize or auto)
        fig._p2p_autosize = figsize is None  # type: ignore[attr-defined]
        return fig, fig.add_subplot()
    return root(ax), ax


def finish(fig: Figure, pad: float = 0.08) -> Figure:
    """Grow a figure this package sized itself until titles, legends and notes fit.

    Figures with a caller-given ``figsize`` or ``ax`` are left exactly as they are.
    """
    if not getattr(fig, "_p2p_autosize", False):
        return fig
    with placed_once():
        _grow(fig, pad)
    del fig._p2p_autosize  # type: ignore[attr-defined]
    return fig


#: A figure whose texts come closer to its edge than this (inches) after a layout pass
#: that fits is laid out once more before it is drawn: constrained layout keeps 0.042 in
#: (4 px) when it has settled, and its first pass can leave a title over ticks on top
#: 0.4 px from the edge (the card matrices), which its second pass moves 7 px down.
SETTLED_MARGIN = 0.02


def _grow(fig: Figure, pad: float) -> None:
    """finish's loop: lay out, measure, grow (at most four times), and lay out once more
    where the layout that fits has not settled (:data:`SETTLED_MARGIN`)."""
    engine = fig.get_layout_engine()
    passes, settling = 4, False
    while passes:
        passes -= 1
        if engine is not None:
            engine.execute(fig)  # the layout alone: much cheaper than a full draw
        bb = fig.get_tightbbox()
        w, h = fig.get_size_inches()
        grow_w = max(0.0, -bb.x0) + max(0.0, bb.x1 - w)
        grow_h = max(0.0, -bb.y0) + max(0.0, bb.y1 - h)
        if grow_w < 0.01 and grow_h < 0.01:
            near = min(bb.x0, bb.y0, w - bb.x1, h - bb.y1) < SETTLED_MARGIN
            if engine is not None and near and not settling:
                passes, settling = passes + 1, True
                continue
            fig._p2p_laid_out = (w, h)  # type: ignore[attr-defined]  # see save_png
            break
        new_w = math.ceil((w + grow_w + (pad if grow_w >= 0.01 else 0)) * 10) / 10
        new_h = math.ceil((h + grow_h + (pad if grow_h >= 0.01 else 0)) * 10) / 10
        fig.set_size_inches(new_w, new_h)


def save_png(fig: Figure, path: Any, dpi: float = DPI) -> None:
    """``fig.savefig(path, dpi=dpi, format="png")`` (path: a file name or a binary file),
    for less work: when :func:`finish` left the figure laid out at its current size and
    ``dpi`` is the figure's, it is drawn as finish laid it out, without the save's own
    layout pass (which would move things by up to a pixel: constrained layout is not
    idempotent); anything else is laid out by savefig. Either way the pixels are encoded
    by :mod:`.pngfile` (the same pixels as matplotlib's PNG, in less CPU)."""
    engine = fig.get_layout_engine()
    laid_out = getattr(fig, "_p2p_laid_out", None)
    png = {"dpi": dpi, "format": "png", "backend": pngfile.BACKEND}
    with placed_once():  # each axis's ticks placed once per state (plots/tickplaces.py)
        if (
            engine is None
            or laid_out is None
            or dpi != fig.dpi
            or laid_out != tuple(fig.get_size_inches())
        ):
            fig.savefig(path, **png)
            return
        fig.set_layout_engine(None)
        try:
            fig.savefig(path, **png)
        finally:
            fig.set_layout_engine(engine)


def root(ax: Axes) -> Figure:
    """The top figure of ``ax`` (a SubFigure's ``.figure`` is its parent)."""
    fig: Any = ax.figure
    while not isinstance(fig, Figure):
        fig = fig.figure
    return fig


def set_title(ax: Axes, main: str, note: str, fontsize: float = 10.5) -> None:
    """The title, and under it where the numbers come from."""
    ax.set_title(f"{main}\n{note}", fontsize=fontsize)


def link_color(link: str, fallback: str = "#7f7f7f") -> str:
    return LINK_COLORS.get(link, fallback)


def text_color(rgba: Sequence[float]) -> str:
    """Black on light colours, white on dark ones."""
    r, g, b = rgba[:3]
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


# ------------------------------------------------------------------------------ matrices
def matrix_fonts(n: int) -> tuple[float, float]:
    """(cell text, tick label) font sizes for an n x n matrix."""
    if n <= 8:
        return 9.0, 9.0
    if n <= 12:
        return 8.0, 8.0
    if n <= 16:
        return 7.0, 7.5
    return max(4.0, 110.0 / n), max(5.0, 120.0 / n)


def matrix_size(n: int, legend_lines: int = 0, cbar: bool = True) -> tuple[float, float]:
    """The figure size of an n x n matrix with a legend of so many lines under it."""
    cell = 0.6 if n <= 8 else 0.5
    w = max(5.6, cell * n + (2.6 if cbar else 1.6))
    h = max(4.4, cell * n + 2.2 + 0.2 * legend_lines)
    return round(w, 2), round(h, 2)


# ------------------------------------------------------------------------------ legends
def below_legend(ax: Axes, handles: list[Any], fontsize: float, ncols: int = 1) -> None:
    """Legend under a matrix."""
    if handles:
        ax.legend(
            handles=handles,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.02),
            fontsize=fontsize,
            frameon=False,
            ncols=ncols,
            handlelength=1.6,
            borderaxespad=0.0,
        )


def below_plot_legend(ax: Axes, handles: list[Any]) -> None:
    """Legend under a line plot (below its x label)."""
    ax.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.16),
        fontsize=8,
        frameon=False,
        ncols=1,
        borderaxespad=0.0,
    )


def side_legend(ax: Axes, handles: list[Any] | None = None, fontsize: float = 8) -> None:
    """Legend to the right of the axes."""
    kw: dict[str, Any] = {
        "loc": "upper left",
        "bbox_to_anchor": (1.01, 1.0),
        "fontsize": fontsize,
        "frameon": False,
        "borderaxespad": 0.0,
    }
    if handles is not None:
        kw["handles"] = handles
    ax.legend(**kw)


# ------------------------------------------------------------------------------ axes
def _size_label(x: float, _pos: Any = None) -> str:
    if not np.isfinite(x) or x < 1:
        return ""
    return format_size(round(x))


def size_axis(ax: Axes, sizes: Iterable[int], max_ticks: int = 8) -> None:
    """Base-2 log x axis with binary-unit labels (``4 KiB``, ``1 MiB``, ``1 GiB``)."""
    values = sorted({int(s) for s in sizes if s and s > 0})
    ax.set_xscale("log", base=2)
    if not values:
        return
    lo = math.floor(math.log2(values[0]))
    hi = math.ceil(math.log2(values[-1]))
    step = math.ceil((hi - lo + 1) / max_ticks)
    if len(values) > max_ticks:
        major = [2**k for k in range(lo, hi + 1, step)]
    else:  # the sizes themselves, but none closer to the last kept than the step:
        major = []  # 8 KiB and 16 KiB on an axis to 64 MiB would print over each other
        for v in values:
            if not major or math.log2(v / major[-1]) >= step - 1e-9:
                major.append(v)
    ax.xaxis.set_major_locator(ticker.FixedLocator(major))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(_size_label))
    ax.xaxis.set_minor_locator(ticker.FixedLocator([2**k for k in range(lo, hi + 1)]))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_xlim(values[0] / 1.25, values[-1] * 1.25)
    ax.set_xlabel("copy size")


def _us_label(y: float, _pos: Any = None) -> str:
    if not np.isfinite(y) or y <= 0:
        return ""
    if y >= 1e6:
        return f"{y / 1e6:g} s"
    if y >= 1e3:
        return f"{y / 1e3:g} ms"
    return f"{y:g} µs"


def time_axis(ax: Axes, lo_hi: np.ndarray) -> None:
    """Log y axis of times in µs, ms or s; 1-2-5 ticks when the values span < 4 decades."""
    ax.set_yscale("log")
    lo_hi = lo_hi[np.isfinite(lo_hi) & (lo_hi > 0)]
    decades = np.log10(lo_hi.max() / lo_hi.min()) if lo_hi.size else 0.0
    subs = (1.0, 2.0, 5.0) if decades < 4 else (1.0,)
    ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=subs))
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(_us_label))
    ax.yaxis.set_minor_locator(ticker.LogLocator(base=10, subs=np.arange(2, 10)))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())


def bandwidth_axes(ax: Axes, sizes: Iterable[int], top: float, ylabel: str) -> None:
    """Size axis, bandwidth axis from 0 to a little over ``top``, major grid."""
    size_axis(ax, sizes)
    ax.set_ylim(0, top * 1.08 if top > 0 else 1)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="major", alpha=0.3)


#: Height of one bar's row in a horizontal bar chart (inches).
BAR_ROW_IN = 0.32


def median_bars(
    ax: Axes,
    st: pd.DataFrame,
    colors: list[Any],
    *,
    ecolor: str,
    tick_color: str,
    unit: str = "",
    of_nominal: str = "",
    room: float = 1.25,
) -> None:
    """Draw one bar per row of ``st`` (columns ``median``, ``p10``, ``p90``,
    ``nominal_GBps``): its median with a p10-p90 whisker, the nominal rate as a tick,
    and its value (with its share of the nominal rate) past the whisker and the tick;
    the x axis leaves ``room`` for that text. The caller labels, titles and adds a legend.

    Example:
        >>> median_bars(ax, stats, ["C0"] * len(stats), ecolor="#777777",
        ...             tick_color="red")  # doctest: +SKIP
    """
    y = np.arange(len(st))
    err = np.vstack([st["median"] - st["p10"], st["p90"] - st["median"]]).clip(min=0)
    ax.barh(
        y,
        st["median"],
        color=colors,
        height=0.7,
        xerr=err,
        error_kw={"ecolor": ecolor, "lw": 0.8, "capsize": 2},
    )
    ax.scatter(st["nominal_GBps"], y, marker="|", s=220, color=tick_color, zorder=3)
    right = float(np.nanmax([st["p90"].max(), st["nominal_GBps"].max()]))
    for k, (med, nom, p90) in enumerate(zip(st["median"], st["nominal_GBps"], st["p90"])):
        share = f" ({med / nom:.0%}{of_nominal})" if nom and math.isfinite(nom) else ""
        ax.text(
            np.nanmax([p90, nom]) + 0.01 * right,
            k,
            f"{med:.1f}{unit}{share}",
            va="center",
            ha="left",
            fontsize=7.5,
        )
    ax.set_xlim(0, right * room)
    ax.set_ylim(len(st) - 0.5, -0.5)
