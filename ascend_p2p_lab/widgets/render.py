"""Figures for the dashboard: which view of a run to draw, and figures as PNG outputs.

The figures come from :mod:`ascend_p2p_lab.plots` (``heatmap``, ``bandwidth_vs_size``),
imported when first drawn, so that the widgets load without matplotlib.

Example:
    >>> from ascend_p2p_lab.results import empty_frame
    >>> plot_mode(empty_frame()) is None
    True
"""

from __future__ import annotations

import base64
import io
from collections.abc import Iterable
from typing import Any

import pandas as pd

#: Up to this many pairs the curves are drawn one per pair, above it one per link class.
CURVES_PER_PAIR = 8


def plot_mode(frame: pd.DataFrame) -> tuple[str, str | None, Any] | None:
    """(direction, peer, path) to draw, None when nothing can be drawn. A
    ``peer="current"`` run shows P2P and direct cells together, so that disabled links
    show their error next to the others."""
    good = frame[frame["bandwidth_GBps"].notna() & frame["pattern"].eq("pair").fillna(False)]
    current = frame.attrs.get("run", {}).get("params", {}).get("peers") == ["current"]
    for direction in ("uni", "bi"):
        if current:
            if frame["direction"].eq(direction).fillna(False).any():
                return direction, None, ("p2p", "direct")
            continue
        for peer in ("on", "off"):
            sel = good["direction"].eq(direction) & good["peer"].eq(peer)
            if sel.fillna(False).any():
                return direction, peer, None
    return None


def make_figures(frame: pd.DataFrame, mode: tuple[str, str | None, Any]) -> dict[str, Any]:
    """The heatmap and, when there are numbers, the bandwidth curves of frame.

    Raises ImportError without matplotlib, and whatever the plots raise.
    """
    from .. import plots

    direction, peer, path = mode
    figures = {"heatmap": plots.heatmap(frame, direction=direction, peer=peer, path=path)}
    if frame["bandwidth_GBps"].notna().any():
        n_pairs = len(frame[["src", "dst"]].drop_duplicates())
        figures["bandwidth_vs_size"] = plots.bandwidth_vs_size(
            frame, by="pair" if n_pairs <= CURVES_PER_PAIR else "link", direction=direction,
            peer=peer if path is None else "on")
    return figures


def png_outputs(figures: Iterable[Any]) -> tuple[dict[str, Any], ...]:
    """Output-widget entries showing each figure as a PNG (set as ``Output.outputs``:
    widget state, so no ``clear_output`` is needed)."""
    return tuple({"output_type": "display_data",
                  "data": {"image/png": _png_base64(fig), "text/plain": repr(fig)},
                  "metadata": {}} for fig in figures)


def _png_base64(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return base64.b64encode(buf.getvalue()).decode("ascii")
