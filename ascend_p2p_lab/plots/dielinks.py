"""The A3's die links: SIO, the HCCS lane and both at once between the two dies of a card
(``sweep --die-link``; docs/die-links.md).

Example:
    >>> fig = die_links(run)  # doctest: +SKIP
"""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..run import Run
from ..units import format_size
from ..vocab import DIE_BOTH, DIE_HCCS, DIE_SIO
from .prepare import backend_note, frame_of
from .style import finish, new_figure, side_legend

_COLORS = {DIE_SIO: "#1f77b4", DIE_HCCS: "#d62728", DIE_BOTH: "#2ca02c"}
_MARKERS = {DIE_SIO: "o", DIE_HCCS: "s", DIE_BOTH: "^"}
_PANEL = (5.2, 4.4)


def die_link_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per die link, split and size: the median over the twin pairs of each pair's median
    bandwidth, the pairs and the paper rate (``nominal_GBps``).

    Example:
        >>> f = pd.DataFrame({"die_link": ["sio", "hccs", "hccs"], "die_split": [np.nan] * 3,
        ...     "src": [6, 6, 7], "dst": [7, 7, 6], "size_bytes": [1 << 20] * 3,
        ...     "bandwidth_GBps": [190.0, 127.0, 125.0], "nominal_GBps": [200.0, 133.0, 133.0],
        ...     "error_kind": [None] * 3})
        >>> die_link_table(f)[["die_link", "GBps", "pairs"]].values.tolist()
        [['hccs', 126.0, 2], ['sio', 190.0, 1]]
    """
    if "die_link" not in frame:
        return pd.DataFrame(columns=["die_link", "die_split", "size_bytes", "GBps", "pairs"])
    ok = frame["die_link"].notna() & frame["bandwidth_GBps"].notna() & frame["error_kind"].isna()
    rows = frame[ok]
    keys = ["die_link", "die_split", "size_bytes"]
    per_pair = rows.groupby([*keys, "src", "dst"], dropna=False).agg(
        GBps=("bandwidth_GBps", "median"), nominal=("nominal_GBps", "first")
    )
    out = per_pair.groupby(keys, dropna=False).agg(
        GBps=("GBps", "median"), pairs=("GBps", "size"), nominal_GBps=("nominal", "first")
    )
    return out.reset_index()


def die_links(
    run: Run,
    *,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Bandwidth vs size per die link (``both``: per SIO share), median over the twin-die
    pairs, each link's paper rate dotted; beside it, where the run swept the split at one
    size, bandwidth vs SIO's share with the best share marked."""
    run = frame_of(run)
    table = die_link_table(run)
    if table.empty:
        raise ValueError("the run has no copy over a chosen die link (sweep --die-link)")
    swept = _split_sweep(table)
    panels = 2 if swept is not None else 1
    fig = new_figure(figsize or (_PANEL[0] * panels + 3.2, _PANEL[1]))
    fig._p2p_autosize = figsize is None  # type: ignore[attr-defined]
    axes = list(np.atleast_1d(fig.subplots(1, panels)))
    _vs_size(axes[0], table)
    if swept is not None:
        _vs_split(axes[1], *swept)
    fig.suptitle(
        "The two dies of a card: over SIO, over the HCCS lane, over both at once\n"
        f"{backend_note(run)}; one way, median over the twin-die pairs",
        fontsize=10.5,
    )
    side_legend(axes[0] if panels == 1 else axes[-1])
    if panels == 2:
        side_legend(axes[0])
    return finish(fig)


def _label(word: str, split: float) -> str:
    return f"both, SIO's share {split:g}" if word == DIE_BOTH else f"{word} only"


def _vs_size(ax: Axes, table: pd.DataFrame) -> None:
    """A line per die link (and split), the paper rates dotted (each once)."""
    drawn: set[float] = set()
    splits = sorted(table["die_split"].dropna().unique())
    shades = matplotlib.colormaps["viridis"](np.linspace(0.15, 0.85, max(len(splits), 1)))
    for (word, split), part in table.groupby(["die_link", "die_split"], dropna=False, sort=True):
        part = part.sort_values("size_bytes")
        color = (
            shades[splits.index(split)]  # a shade per split
            if word == DIE_BOTH and len(splits) > 1
            else _COLORS.get(str(word), "grey")
        )
        ax.plot(
            part["size_bytes"],
            part["GBps"],
            color=color,
            marker=_MARKERS.get(str(word), "o"),
            lw=1.6,
            label=_label(str(word), float(split)),
        )
        nominal = part["nominal_GBps"].dropna()
        if len(nominal) and float(nominal.iloc[0]) not in drawn:
            drawn.add(float(nominal.iloc[0]))
            ax.axhline(float(nominal.iloc[0]), color=color, ls=":", lw=1.0)
    sizes = sorted(table["size_bytes"].unique())
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes, [format_size(int(s)) for s in sizes], rotation=30, fontsize=8)
    ax.set_xlabel("copy size")
    ax.set_ylabel("bandwidth (GB/s), median over twin-die pairs")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.set_title("by copy size (dotted: each link's paper rate)", fontsize=9.5)


def _split_sweep(table: pd.DataFrame) -> tuple[pd.DataFrame, int] | None:
    """The ``both`` points at the largest size with two or more shares, and that size."""
    both = table[table["die_link"] == DIE_BOTH]
    if both.empty:
        return None
    size = int(both["size_bytes"].max())
    at = both[both["size_bytes"] == size].sort_values("die_split")
    return (at, size) if at["die_split"].nunique() >= 2 else None


def _vs_split(ax: Axes, at: pd.DataFrame, size: int) -> None:
    """Bandwidth vs SIO's share at one size, the best share marked."""
    label = f"both at {format_size(size)}"
    ax.plot(at["die_split"], at["GBps"], color=_COLORS[DIE_BOTH], marker="^", lw=1.6, label=label)
    best = at.loc[at["GBps"].idxmax()]
    share, gbps = float(best["die_split"]), float(best["GBps"])
    ax.axvline(
        share, color="black", ls="--", lw=1.0, label=f"best share {share:g}: {gbps:.1f} GB/s"
    )
    ax.set_xlabel("SIO's share of the bytes (the rest over HCCS)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.set_title(f"the split swept at {format_size(size)}", fontsize=9.5)
