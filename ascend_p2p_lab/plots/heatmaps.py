"""The matrix figures: copy statistics (heatmap), link classes and peer access.

Each one prepares its labelled N x N frames in :mod:`~ascend_p2p_lab.plots.cells`, then
draws them with :func:`~ascend_p2p_lab.plots.matrix.draw_matrix` and
:func:`~ascend_p2p_lab.plots.matrix.annotate_matrix`: rows = source, columns = destination.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib import colors as mcolors
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ..run import Run
from ..schema import PAIR_PATTERN
from .cells import (
    ABSENT,
    PEER_VALUES,
    UNNAMED,
    diagonal_text,
    heatmap_data,
    heatmap_texts,
    link_frame,
    link_legend,
    link_texts,
    lower_is_better,
    peer_frame,
    peer_legend,
    peer_texts,
    value_labels,
)
from .matrix import annotate_matrix, draw_matrix
from .prepare import LINK_ORDER, backend_note, frame_of, mode_text, wrap
from .style import (
    DIAG_COLOR,
    LINK_COLORS,
    MISSING_FACE,
    MISSING_STYLE,
    VERIFY_STYLE,
    below_legend,
    fig_ax,
    finish,
    matrix_fonts,
    matrix_size,
    root,
    set_title,
)


def heatmap(
    run: Run,
    *,
    size: int | str | None = None,
    value: str = "bandwidth_GBps",
    direction: str = "uni",
    peer: str | None = "on",
    path: str | Sequence[str] | None = None,
    pattern: str = PAIR_PATTERN,
    initiator: str | None = None,
    ax: Axes | None = None,
    title: str | None = None,
    annotate: bool = True,
    vmin: float | None = None,
    vmax: float | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """N x N matrix of one copy statistic at one size: rows = source, columns = destination.

    ``size=None`` shows each pair's largest measured size. Cells without a number are
    hatched grey with a short code, grouped on the rows' ``error_kind``, ``error_code``
    and ``error_call`` (never on the ``error`` text): ``n/a`` cannot access peer (kind
    ``unreachable``; the legend names the cells' link classes), ``E1``, ``E2``, ... one per
    distinct (kind, code, call), ``n/m`` not in this run. A cell whose bytes arrived wrong
    (``verified`` False) keeps its colour faintly under a red hatched frame and reads
    ``V`` above its number. The codes are explained under the matrix. The diagonal is
    dark and shows the device-local copy when the run has the ``local`` pattern (it is
    not on the colour scale), else "—". What the cells hold, as data:
    :func:`ascend_p2p_lab.plots.cells.heatmap_data`.

    The unit comes from the column's name (``_GBps``: GB/s, ``_us``: µs). A time per
    copy (``latency_us``) is drawn with the colour scale reversed, so that the better
    cells are bright on every map, and the colour bar says lower is better.
    ``pattern="latency"`` with ``value="latency_us"`` is the latency matrix.
    ``initiator`` (``"dst"`` pulls, ``"src"`` pushes) keeps one side's copies of a run
    that has both.

    Example:
        >>> fig = heatmap(run, size="64MiB")                            # doctest: +SKIP
        >>> fig = heatmap(run, direction="bi", value="bidir_total_GBps")  # doctest: +SKIP
        >>> fig = heatmap(run, value="latency_us", pattern="latency")   # doctest: +SKIP
    """
    run = frame_of(run)
    data = heatmap_data(
        run,
        size=size,
        value=value,
        direction=direction,
        peer=peer,
        path=path,
        pattern=pattern,
        initiator=initiator,
    )
    n = len(data.values)
    finite = data.values.to_numpy()[np.isfinite(data.values.to_numpy())]
    legend_lines = 1 + sum(1 + len(text) // 70 for _code, text in data.legend)
    fig, ax = fig_ax(ax, matrix_size(n, legend_lines, cbar=bool(finite.size)), figsize)
    cell_fs, tick_fs = matrix_fonts(n)
    lo = 0.0 if vmin is None else vmin
    hi = vmax if vmax is not None else (float(finite.max()) if finite.size else 1.0)
    if hi <= lo:
        hi = lo + 1.0
    cmap = mpl.colormaps["viridis_r" if lower_is_better(value) else "viridis"]
    cmap = cmap.with_extremes(bad=MISSING_FACE)
    texts, kinds = heatmap_texts(data.cells, n, annotate)
    im = draw_matrix(
        data.values,
        ax,
        cmap=cmap,
        norm=mcolors.Normalize(vmin=lo, vmax=hi),
        kinds=kinds,
        fontsize=tick_fs,
    )
    annotate_matrix(ax, texts, kinds=kinds, image=im, fontsize=cell_fs)
    what, cbar_label = value_labels(value)
    if finite.size:
        cbar = fig.colorbar(im, ax=ax, shrink=0.85, pad=0.02)
        cbar.set_label(cbar_label)
        cbar.ax.tick_params(labelsize=8)
    has_local = (kinds == "local").to_numpy().any()
    handles = [Patch(facecolor=DIAG_COLOR, label=diagonal_text(has_local, direction))]
    width = int(root(ax).get_figwidth() * 12)
    for code, text in data.legend:
        style = VERIFY_STYLE if code == "V" else MISSING_STYLE
        handles.append(Patch(**style, label=wrap(text, width)))
    below_legend(ax, handles, fontsize=8)
    main = title or (
        f"{what}, {mode_text(direction, peer, data.path, initiator)}\n{data.size_text}"
    )
    set_title(ax, main, data.note)
    return finish(fig)


def link_matrix(
    table_or_topology: Any,
    ax: Axes | None = None,
    *,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """N x N link classes in npu-smi's words, one categorical colour per class.

    Takes a probe table, a run frame or a :class:`~ascend_p2p_lab.topology.model.Topology`.

    Example:
        >>> from ascend_p2p_lab.topology import load_preset
        >>> fig = link_matrix(load_preset("atlas800-9000"))
        >>> fig.axes[0].get_ylabel()
        'source device (row)'
    """
    links, note = link_frame(table_or_topology)
    n = len(links)
    legend = link_legend(links)
    classes = [c for c, _text in legend if c not in (UNNAMED, ABSENT)]
    fig, ax = fig_ax(ax, matrix_size(n, legend_lines=len(classes), cbar=False), figsize)
    cell_fs, tick_fs = matrix_fonts(n)
    cmap = mcolors.ListedColormap([LINK_COLORS[c] for c in LINK_ORDER]).with_extremes(
        bad=MISSING_FACE
    )
    norm = mcolors.BoundaryNorm(np.arange(len(LINK_ORDER) + 1) - 0.5, len(LINK_ORDER))
    index, texts, kinds = link_texts(links)
    im = draw_matrix(index, ax, cmap=cmap, norm=norm, kinds=kinds, fontsize=tick_fs)
    annotate_matrix(ax, texts, kinds=kinds, image=im, fontsize=cell_fs)
    handles = [
        Patch(**MISSING_STYLE, label=text)
        if c in (UNNAMED, ABSENT)
        else Patch(facecolor=LINK_COLORS[c], label=text)
        for c, text in legend
    ]
    below_legend(ax, handles, fontsize=8, ncols=2 if len(handles) > 3 else 1)
    set_title(ax, title or "Link class per device pair (npu-smi words)", note)
    return finish(fig)


def peer_access_matrix(
    table: Run,
    value: str = "can_access_peer",
    ax: Axes | None = None,
    *,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Yes/no matrix of a probe table column: ``can_access_peer`` or ``peer_enabled``.

    Example:
        >>> fig = peer_access_matrix(probe(rt), value="peer_enabled")  # doctest: +SKIP
    """
    table = frame_of(table)  # the probe's Run (a probe frame, for one release)
    peer = peer_frame(table, value)
    colours = {
        "yes": "#4daf4a",
        "no": "#f4a582" if value == "can_access_peer" else "#c8c8c8",
        "self": DIAG_COLOR,
    }  # a peer link that is off is no fault
    fig, ax = fig_ax(ax, matrix_size(len(peer), legend_lines=4, cbar=False), figsize)
    cell_fs, tick_fs = matrix_fonts(len(peer))
    cmap = mcolors.ListedColormap([colours["no"], colours["yes"]]).with_extremes(bad=MISSING_FACE)
    texts, kinds = peer_texts(peer)
    im = draw_matrix(
        peer, ax, cmap=cmap, norm=mcolors.Normalize(vmin=0, vmax=1), kinds=kinds, fontsize=tick_fs
    )
    annotate_matrix(ax, texts, kinds=kinds, image=im, fontsize=cell_fs)
    handles = [
        Patch(**MISSING_STYLE, label=text)
        if kind == "unknown"
        else Patch(facecolor=colours[kind], label=text)
        for kind, text in peer_legend(table, peer, value)
    ]
    below_legend(ax, handles, fontsize=8)
    set_title(ax, title or PEER_VALUES[value], backend_note(table))
    return finish(fig)
