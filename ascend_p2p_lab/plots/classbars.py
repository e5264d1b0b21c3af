"""Runs side by side: the bandwidth of each link class, per preset (or run)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib import colors as mcolors
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ..units import format_size
from .prepare import (
    LINK_MEANING,
    backend_note,
    link_rank,
    mode_text,
    preset_table,
    size_bytes,
    split_runs,
)
from .style import fig_ax, finish, link_color, set_title, side_legend, text_color


def _bar(ax: Axes, x: float, r: Any, top: float) -> Line2D | None:
    """One link class's bar with its value, and its nominal rate as a black tick."""
    color = link_color(r.link)
    ax.bar(x, r.GBps, width=0.8, color=color, edgecolor="white")
    text = f"{r.GBps:.0f}" if r.GBps >= 100 else f"{r.GBps:.1f}"
    if r.GBps >= 0.08 * top:  # inside the bar, under its top edge
        ax.annotate(
            text,
            (x, r.GBps),
            xytext=(0, -3),
            textcoords="offset points",
            ha="center",
            va="top",
            fontsize=8,
            fontweight="bold",
            color=text_color(mcolors.to_rgba(color)),
        )
    else:  # a short bar: above the bar and its nominal tick
        above = max(r.GBps, r.nominal if np.isfinite(r.nominal) else 0.0)
        ax.annotate(
            text,
            (x, above),
            xytext=(0, 3),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=8,
        )
    if not np.isfinite(r.nominal):
        return None
    (tick,) = ax.plot([x - 0.4, x + 0.4], [r.nominal, r.nominal], color="black", ls="--", lw=1.2)
    return tick


def _groups(
    ax: Axes, table: pd.DataFrame, names: list[str], top: float
) -> tuple[list[float], list[str], bool]:
    """The bars of each run, in groups: tick positions, tick labels, any nominal tick."""
    x = 0.0
    centers, labels = [], []
    nominal = False
    for name in names:
        g = table[table["name"] == name]
        if g.empty:
            continue
        g = g.sort_values("link", key=lambda links: links.map(link_rank), kind="stable")
        start = x
        for r in g.itertuples(index=False):
            nominal = _bar(ax, x, r, top) is not None or nominal
            x += 1.0
        centers.append((start + x - 1.0) / 2)
        soc = g["soc"].iloc[0]
        labels.append(f"{name}\n{soc}" if soc else name)
        x += 0.6
    return centers, labels, nominal


def compare_presets(
    runs: Mapping[str, pd.DataFrame] | pd.DataFrame,
    *,
    size: int | str | None = None,
    direction: str = "uni",
    peer: str | None = "on",
    path: str | None = None,
    include_local: bool = False,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Asymptotic bandwidth per link class, side by side per preset (or run).

    ``runs`` maps a name to a run frame, or is one frame holding several presets. Each bar
    is the median over all samples of that link class at ``size`` (default: each pair's
    largest size); the black tick over it is the class's nominal rate.

    Example:
        >>> fig = compare_presets({"910": r9000, "910B": ra2, "910C": ra3})  # doctest: +SKIP
    """
    size_b = size_bytes(size)
    frames = split_runs(runs)
    table = preset_table(
        frames, size=size_b, direction=direction, peer=peer, path=path, include_local=include_local
    )
    fig, ax = fig_ax(ax, (max(7.5, 1.6 + 0.75 * len(table) + 0.5 * len(frames)), 5.0), figsize)
    top = float(np.nanmax(np.r_[table["GBps"].to_numpy(), table["nominal"].to_numpy()]))
    centers, labels, nominal = _groups(ax, table, list(frames), top)
    ax.set_xticks(centers, labels=labels, fontsize=9)
    ax.set_ylabel("bandwidth per direction (GB/s)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.set_ylim(0, top * 1.12)
    handles: list[Any] = [
        Patch(facecolor=link_color(c), label=f"{c}: {LINK_MEANING.get(c, c)}")
        for c in sorted(set(table["link"]), key=link_rank)
    ]
    if nominal:
        handles.append(Line2D([], [], color="black", ls="--", lw=1.2, label="nominal rate"))
    side_legend(ax, handles)
    size_text = (
        f"at {format_size(size_b)}"
        if size_b is not None
        else f"largest size ({', '.join(format_size(s) for s in sorted(set(table['size'])))})"
    )
    paths = ", ".join(dict.fromkeys(table["path"]))
    main = title or (
        f"Bandwidth per link class and preset, "
        f"{mode_text(direction, peer, paths)}\n{size_text}, median over pairs"
    )
    set_title(ax, main, backend_note(*frames.values()))
    return finish(fig)
