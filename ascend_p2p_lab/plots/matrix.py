"""One function draws a matrix, one annotates it; every matrix figure uses both.

A matrix is a labelled N x N frame (rows = source, columns = destination), as
:func:`ascend_p2p_lab.results.matrix` returns it; the tick labels are its index and
columns. A second frame of the same shape gives each cell's *kind* (see
:mod:`ascend_p2p_lab.plots.cells`), which decides the patch over the cell
(:data:`CELL_PATCHES`) and the style of its text (:data:`CELL_TEXTS`).

Example:
    >>> import matplotlib.colors as mcolors
    >>> import pandas as pd
    >>> from ascend_p2p_lab.plots.style import new_figure
    >>> frame = pd.DataFrame([[float("nan"), 2.0], [1.0, float("nan")]])
    >>> ax = new_figure((3, 3)).add_subplot()
    >>> im = draw_matrix(frame, ax, cmap="viridis", norm=mcolors.Normalize(0, 2))
    >>> texts = annotate_matrix(ax, pd.DataFrame([["", "2.0"], ["1.0", ""]]), image=im)
    >>> [(t.get_position(), t.get_text(), t.get_color()) for t in texts]
    [((1, 0), '2.0', 'black'), ((0, 1), '1.0', 'white')]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib import ticker
from matplotlib.axes import Axes
from matplotlib.image import AxesImage
from matplotlib.patches import Rectangle
from matplotlib.text import Text

from .style import DIAG_COLOR, MISSING_FACE, MISSING_STYLE, VERIFY_EDGE, VERIFY_STYLE, text_color

#: A text colour that contrasts with the cell's colour in the image.
CONTRAST = "contrast"
_DIAGONAL = {
    "xy": (-0.5, -0.5),
    "width": 1.0,
    "facecolor": DIAG_COLOR,
    "edgecolor": "white",
    "linewidth": 1.0,
}
_MISSING = {"xy": (-0.5, -0.5), "width": 1.0, **MISSING_STYLE, "linewidth": 0.0}
_UNTRUSTED = {
    "xy": (-0.45, -0.45),
    "width": 0.9,
    **VERIFY_STYLE,
    "linewidth": 1.5,
    "zorder": 2.6,
}  # over the grid lines; the cell's colour shows through faintly
#: The patch over a cell of each kind (offset from the cell's centre); other kinds get none.
CELL_PATCHES: dict[str, dict[str, Any]] = {
    "local": _DIAGONAL,
    "self": _DIAGONAL,
    "code": _MISSING,
    "unknown": _MISSING,
    "untrusted": _UNTRUSTED,
}
#: Text style of a cell of each kind: ``scale`` and ``offset`` change the base font size,
#: the rest goes to :meth:`~matplotlib.axes.Axes.text`.
CELL_TEXTS: dict[str, dict[str, Any]] = {
    "value": {"color": CONTRAST},
    "long": {"color": CONTRAST, "scale": 0.9},
    "plain": {"color": "black"},
    "local": {"color": "white", "fontstyle": "italic"},
    "self": {"color": "white", "fontstyle": "normal"},
    "code": {
        "offset": -0.5,
        "color": "black",
        "bbox": {"boxstyle": "square,pad=0.1", "facecolor": MISSING_FACE, "edgecolor": "none"},
    },
    "untrusted": {
        "offset": -1.0,
        "color": VERIFY_EDGE,
        "fontweight": "bold",
        "linespacing": 1.0,
        "bbox": {"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none"},
    },
    "unknown": {},
}


def draw_matrix(
    frame: pd.DataFrame,
    ax: Axes,
    *,
    cmap: Any,
    norm: Any,
    kinds: pd.DataFrame | None = None,
    fontsize: float = 9.0,
    xlabel: str = "destination device (column)",
    ylabel: str = "source device (row)",
) -> AxesImage:
    """Draw ``frame`` as an image, row 0 at the top, labelled from its index and columns.

    NaN cells take ``cmap``'s "bad" colour. White lines part the cells; ``kinds`` (a
    frame of the same shape) puts a patch over the cells whose kind has one.
    """
    image = ax.imshow(
        np.ma.masked_invalid(frame.to_numpy(dtype=float)),
        cmap=cmap,
        norm=norm,
        aspect="equal",
        interpolation="nearest",
    )
    _matrix_axes(ax, frame, fontsize, xlabel, ylabel)
    if kinds is not None:
        for i in range(kinds.shape[0]):
            for j in range(kinds.shape[1]):
                patch = CELL_PATCHES.get(kinds.iat[i, j])
                if patch is not None:
                    _add_patch(ax, j, i, **patch)
    return image


def _add_patch(
    ax: Axes, x: float, y: float, *, xy: tuple[float, float], width: float, **kw: Any
) -> None:
    """A cell's patch; added as an artist, not with ``add_patch``: the axes' limits are set
    (``_matrix_axes``), so the data limits add_patch would grow to hold it (a quarter of
    a millisecond a cell) change nothing drawn."""
    ax.add_artist(Rectangle((x + xy[0], y + xy[1]), width, width, in_layout=False, **kw))


def _matrix_axes(ax: Axes, frame: pd.DataFrame, fontsize: float, xlabel: str, ylabel: str) -> None:
    rows, cols = frame.shape
    ax.set_xticks(np.arange(cols), labels=[str(c) for c in frame.columns], fontsize=fontsize)
    ax.set_yticks(np.arange(rows), labels=[str(r) for r in frame.index], fontsize=fontsize)
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    ax.yaxis.set_minor_locator(ticker.NullLocator())
    for lines in (
        ax.vlines(np.arange(cols + 1) - 0.5, -0.5, rows - 0.5),
        ax.hlines(np.arange(rows + 1) - 0.5, -0.5, cols - 0.5),
    ):
        lines.set(color="white", linewidth=1.0, in_layout=False, zorder=2.5)
    ax.tick_params(which="major", length=2)
    ax.set_xlim(-0.5, cols - 0.5)
    ax.set_ylim(rows - 0.5, -0.5)
    for spine in ax.spines.values():
        spine.set_visible(False)


def annotate_matrix(
    ax: Axes,
    texts: pd.DataFrame,
    *,
    kinds: pd.DataFrame | None = None,
    image: AxesImage | None = None,
    fontsize: float = 9.0,
    styles: Mapping[str, Mapping[str, Any]] = CELL_TEXTS,
) -> list[Text]:
    """Write each cell's text (empty or missing texts are skipped) at its centre.

    The style is the cell's kind's in ``styles`` (kind ``value`` without ``kinds``); a
    :data:`CONTRAST` colour is black or white against the cell's colour in ``image``.
    The texts stay out of the layout: they sit inside the axes anyway.
    """
    values = image.get_array() if image is not None else None
    out = []
    for i in range(texts.shape[0]):
        for j in range(texts.shape[1]):
            text = texts.iat[i, j]
            if text is None or text == "" or (isinstance(text, float) and np.isnan(text)):
                continue
            style = dict(styles.get(kinds.iat[i, j] if kinds is not None else "value", {}))
            size = fontsize * style.pop("scale", 1.0) + style.pop("offset", 0.0)
            if style.get("color") == CONTRAST:
                if image is None or values is None:
                    del style["color"]
                else:
                    style["color"] = text_color(image.cmap(image.norm(values[i, j])))
            out.append(
                ax.text(
                    j,
                    i,
                    str(text),
                    ha="center",
                    va="center",
                    in_layout=False,
                    fontsize=size,
                    **style,
                )
            )
    return out
