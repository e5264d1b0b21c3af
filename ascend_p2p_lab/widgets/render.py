"""Figures for the dashboard: which view of a run to draw, figures as PNG outputs, and the
heatmap in words (which cells hold a number, what marks the others).

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

from ..collectives.table import op_rows, summary, table_text
from ..run import Run
from ..schema import TEST_PATTERN
from ..vocab import CURRENT, PAIR

#: The view of a run of tests (``plot_mode``): bars per transfer and aggregate.
TESTS_MODE = ("tests", None, None)
#: The view of a run of collectives: busbw against the links, hccl_test's table below.
COLLECTIVES_MODE = ("collectives", None, None)
#: Up to this many pairs the curves are drawn one per pair, above it one per link class.
CURVES_PER_PAIR = 8
#: The caption names the measured cells up to this many, and counts the rest.
CAPTION_CELLS = 8


def plot_mode(frame: Run) -> tuple[str, str | None, Any] | None:
    """(direction, peer, path) to draw, None when nothing can be drawn. A
    ``peer="current"`` run shows P2P and direct cells together, so that disabled links
    show their error next to the others."""
    run = Run.of(frame)
    frame = run.samples
    if len(op_rows(frame)) and frame["busbw_GBps"].notna().any():
        return COLLECTIVES_MODE
    tested = frame["pattern"].eq(TEST_PATTERN).fillna(False)
    if (tested & frame["bandwidth_GBps"].notna()).any():
        return TESTS_MODE
    good = frame[frame["bandwidth_GBps"].notna() & frame["pattern"].eq(PAIR).fillna(False)]
    current = run.meta.params.get("peers") == [CURRENT]
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

    if mode == COLLECTIVES_MODE:
        return {"collectives": plots.collective_links(frame)}
    if mode == TESTS_MODE:  # each transfer beside its test's aggregate; a scaling curve
        figures = {"tests": plots.transfer_bars(frame)}
        from ..plots.testbars import CURVE_POINTS, scaling_stats

        if scaling_stats(frame)["transfers"].nunique() >= CURVE_POINTS:
            figures["scaling"] = plots.scaling_curve(frame)
        return figures
    direction, peer, path = mode
    figures = {"heatmap": plots.heatmap(frame, direction=direction, peer=peer, path=path)}
    if frame["bandwidth_GBps"].notna().any():
        n_pairs = len(frame[["src", "dst"]].drop_duplicates())
        figures["bandwidth_vs_size"] = plots.bandwidth_vs_size(
            frame,
            by="pair" if n_pairs <= CURVES_PER_PAIR else "link",
            direction=direction,
            peer=peer if path is None else "on",
        )
    return figures


def heatmap_caption(frame: pd.DataFrame, mode: tuple[str, str | None, Any]) -> str:
    """The dashboard's heatmap in words: the measured cells (row = source), then each
    mark of the others on its own line, with its meaning and count as the legend says it.

    Example (a run where only 0 -> 1 and 1 -> 0 had peer access; the first line is
    one line)::

        heatmap at 64 MiB (largest size), row = source: 2 cells measured (0→1 26.2 GB/s,
        1→0 25.7 GB/s)
        E1 refused: ACL_ERROR_RT_DRV_INTERNAL_ERROR (507899) from acl.rt.memcpy_async [54 cells]
    """
    from ..plots.cells import heatmap_data

    if mode == TESTS_MODE:
        return tests_caption(frame)
    if mode == COLLECTIVES_MODE:  # what hccl_test prints, with the prediction beside it
        return table_text(summary(frame))
    direction, peer, path = mode
    data = heatmap_data(frame, direction=direction, peer=peer, path=path)
    measured = data.cells.loc[data.cells["state"] == "value", "value"]
    named = [f"{s}→{d} {v:.1f} GB/s" for (s, d), v in measured.items()]
    text = f"heatmap {data.size_text}, row = source: {len(named)} cells measured"
    if named:
        more = ", …" if len(named) > CAPTION_CELLS else ""
        text += f" ({', '.join(named[:CAPTION_CELLS])}{more})"
    return "\n".join([text, *(what for _code, what in data.legend)])


def tests_caption(frame: pd.DataFrame) -> str:
    """The tests' bars in words: each transfer's value and each test's aggregate, and the
    reason where a value is missing."""
    from ..plots.testbars import bars_values

    lines = []
    for rec in bars_values(frame).to_dict("records"):
        value = f"{rec['median_GBps']:.1f} GB/s" if rec["reason"] is None else rec["reason"]
        lines.append(f"{rec['test']}: {rec['what']} {value}")
    return "\n".join(lines)


def text_output(text: str) -> dict[str, Any]:
    """An Output-widget entry showing text."""
    return {"output_type": "display_data", "data": {"text/plain": text}, "metadata": {}}


def png_outputs(figures: Iterable[Any]) -> tuple[dict[str, Any], ...]:
    """Output-widget entries showing each figure as a PNG (set as ``Output.outputs``:
    widget state, so no ``clear_output`` is needed)."""
    return tuple(
        {
            "output_type": "display_data",
            "data": {"image/png": _png_base64(fig), "text/plain": repr(fig)},
            "metadata": {},
        }
        for fig in figures
    )


def _png_base64(fig: Any) -> str:
    import matplotlib

    from ..plots.style import save_png  # the bytes savefig gives, laid out once

    buf = io.BytesIO()
    dpi = matplotlib.rcParams["savefig.dpi"]
    save_png(fig, buf, dpi=fig.dpi if dpi == "figure" else dpi)
    return base64.b64encode(buf.getvalue()).decode("ascii")
