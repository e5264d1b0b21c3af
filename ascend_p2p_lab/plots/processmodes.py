"""In-process against cross-process (IPC) bandwidth: ``sweep --processes`` runs.

Example:
    >>> fig = process_modes(run)  # doctest: +SKIP
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..run import Run
from ..units import format_size
from ..vocab import INITIATOR_TEXT
from .prepare import (
    PROCESS_MODES,
    backend_note,
    frame_of,
    link_rank,
    process_mode_table,
)
from .style import finish, new_figure, side_legend

_COLORS = {"dst": "#1f77b4", "src": "#ff7f0e"}
_STYLE = {
    "in_process": {"ls": "-", "marker": "o"},
    "ipc": {"ls": "--", "marker": "s", "mfc": "white"},
}
_MODE_TEXT = {"in_process": "in one process", "ipc": "across processes (IPC)"}
_PANEL = (5.2, 4.4)


def process_modes(
    run: Run,
    *,
    link: str | None = None,
    ax: Axes | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Bandwidth vs size, one line per process mode and initiator (median over the pairs
    of a link class), one panel per link class (or only ``link``; with ``ax``, one link
    class must be chosen or be the only one). The legend gives each initiator's ratio
    IPC / in-process at the largest size."""
    run = frame_of(run)
    table = process_mode_table(run)
    if link is not None:
        table = table[table["link"] == link]
    if table.empty:
        raise ValueError(
            "the run has no one-way pair bandwidth to compare" + (f" on {link}" if link else "")
        )
    links = sorted(table["link"].unique(), key=link_rank)
    if ax is not None:
        if len(links) > 1:
            raise ValueError(f"several link classes ({', '.join(links)}): give link=")
        fig, axes = ax.figure, [ax]
    else:
        fig = new_figure(figsize or (_PANEL[0] * len(links) + 3.2, _PANEL[1]))
        fig._p2p_autosize = figsize is None  # type: ignore[attr-defined]
        axes = list(np.atleast_1d(fig.subplots(1, len(links))))
    for one, name in zip(axes, links):
        _panel(one, table[table["link"] == name], name)
    axes[0].set_ylabel("bandwidth (GB/s), median over pairs")
    fig.suptitle(
        "One device pair, one way: in one process vs across processes\n"
        f"{backend_note(run)}; solid: one process, dashed: the other process's "
        "buffer imported by key",
        fontsize=10.5,
    )
    side_legend(axes[-1])
    return finish(fig)


def _panel(ax: Axes, table: pd.DataFrame, link: str) -> None:
    """One link class: a line per initiator and mode, the ratios in the legend."""
    for who in ("dst", "src"):
        for mode in PROCESS_MODES:
            part = table[(table["initiator"] == who) & (table["process_mode"] == mode)]
            if part.empty:
                continue
            ax.plot(
                part["size_bytes"],
                part["GBps"],
                color=_COLORS[who],
                lw=1.6,
                label=f"{INITIATOR_TEXT[who]}, {_MODE_TEXT[mode]}",
                **_STYLE[mode],
            )
    ratios = [
        f"{INITIATOR_TEXT[who].split()[0]} {r:.3f}"
        for who in ("dst", "src")
        if (r := _ratio(table, who)) is not None
    ]
    sizes = sorted(table["size_bytes"].unique())
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes, [format_size(int(s)) for s in sizes], rotation=30, fontsize=8)
    ax.set_xlabel("copy size")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    pairs = int(table["pairs"].max())
    note = f"IPC / in-process at {format_size(int(sizes[-1]))}: " + ", ".join(ratios)
    ax.set_title(f"{link} ({pairs} ordered pair{'s' if pairs != 1 else ''})\n{note}", fontsize=9.5)


def _ratio(table: pd.DataFrame, who: str) -> float | None:
    """IPC / in-process of one initiator at the largest size both modes have."""
    part = table[table["initiator"] == who].pivot_table(
        index="size_bytes", columns="process_mode", values="GBps"
    )
    if not set(PROCESS_MODES) <= set(part.columns):
        return None
    both = part.dropna()
    if both.empty:
        return None
    last = both.iloc[-1]
    value = float(last["ipc"] / last["in_process"])
    return value if np.isfinite(value) else None
