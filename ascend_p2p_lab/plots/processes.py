"""In-process against cross-process (IPC) bandwidth: ``sweep --processes`` runs.

Example:
    >>> fig = process_modes(run)  # doctest: +SKIP
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..units import format_size
from .prepare import INITIATOR_TEXT, PROCESS_MODES, backend_note, process_mode_table
from .style import fig_ax, finish, set_title, side_legend

_COLORS = {"dst": "#1f77b4", "src": "#ff7f0e"}
_STYLE = {"in_process": {"ls": "-", "marker": "o"}, "ipc": {"ls": "--", "marker": "s",
                                                            "mfc": "white"}}
_MODE_TEXT = {"in_process": "in one process", "ipc": "across processes (IPC)"}


def process_modes(run: pd.DataFrame, *, ax: Axes | None = None,
                  figsize: tuple[float, float] | None = None) -> Figure:
    """Bandwidth vs size, one line per process mode and initiator (median over pairs);
    the legend gives each line's ratio IPC / in-process at the largest size."""
    table = process_mode_table(run)
    if table.empty:
        raise ValueError("the run has no one-way pair bandwidth to compare")
    fig, ax = fig_ax(ax, (8.5, 4.8), figsize)
    for who in ("dst", "src"):
        for mode in PROCESS_MODES:
            part = table[(table["initiator"] == who) & (table["process_mode"] == mode)]
            if part.empty:
                continue
            label = f"{INITIATOR_TEXT[who]}, {_MODE_TEXT[mode]}"
            ax.plot(part["size_bytes"], part["GBps"], color=_COLORS[who], lw=1.6,
                    label=label, **_STYLE[mode])
        ratio = _ratio(table, who)
        if ratio is not None:
            ax.plot([], [], " ", label=f"  IPC / in-process at the largest size: {ratio:.3f}")
    ax.set_xscale("log", base=2)
    sizes = sorted(table["size_bytes"].unique())
    ax.set_xticks(sizes, [format_size(int(s)) for s in sizes], rotation=30, fontsize=8)
    ax.set_xlabel("copy size")
    ax.set_ylabel("bandwidth (GB/s), median over pairs")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    pairs = int(table["pairs"].max())
    set_title(ax, "One device pair, one way: in one process vs across processes",
              f"{backend_note(run)}; {pairs} ordered pairs; solid: one process, dashed: "
              "the other process's buffer imported by key")
    side_legend(ax)
    return finish(fig)


def _ratio(table: pd.DataFrame, who: str) -> float | None:
    """IPC / in-process of one initiator at the largest size both modes have."""
    part = table[table["initiator"] == who].pivot_table(
        index="size_bytes", columns="process_mode", values="GBps")
    if not set(PROCESS_MODES) <= set(part.columns):
        return None
    both = part.dropna()
    if both.empty:
        return None
    last = both.iloc[-1]
    value = float(last["ipc"] / last["in_process"])
    return value if np.isfinite(value) else None
