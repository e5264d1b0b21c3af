"""Host copies: pinned host memory to each device (h2d) and back (d2h), bandwidth vs size.

The two legs of the host-staged path, each alone: one median line per device and
direction, with its p10-p90 band. A device whose host link is slower stands out from
the others of its direction; the modelled or measured rates are the preset's, so the
figure names where its numbers come from.
"""

from __future__ import annotations

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ..run import Run
from ..schema import DEVICE_TO_HOST, HOST_TO_DEVICE
from .prepare import backend_note, eq, frame_of, pooled_stats
from .style import CURVE_SIZE, bandwidth_axes, fig_ax, finish, set_title, side_legend

#: Colour and words per direction of a host copy.
HOST_DIRECTIONS = {
    HOST_TO_DEVICE: ("#1f77b4", f"{HOST_TO_DEVICE}: host -> device"),
    DEVICE_TO_HOST: ("#d62728", f"{DEVICE_TO_HOST}: device -> host"),
}
#: Above this many devices, lines are thin and unnamed (one legend entry per direction);
#: up to it, each device has its marker.
MAX_NAMED = 4
MARKERS = ("o", "s", "^", "D")


def host_stats(run: pd.DataFrame) -> pd.DataFrame:
    """Median, p10 and p90 of the bandwidth per host-copy direction, device and size:
    columns ``pattern, device, size_bytes, median, p10, p90`` (pure pandas).

    Example:
        >>> host_stats(run).columns.tolist()  # doctest: +SKIP
        ['pattern', 'device', 'size_bytes', 'median', 'p10', 'p90']
    """
    rows = run[run["pattern"].isin(list(HOST_DIRECTIONS)).fillna(False).astype(bool)]
    rows = rows[rows["error_kind"].isna()].copy()
    # the device end: the destination of h2d, the source of d2h
    rows["device"] = rows["dst"].where(eq(rows["pattern"], HOST_TO_DEVICE), rows["src"])
    return pooled_stats(rows, ["pattern", "device"], "bandwidth_GBps")


def host_bandwidth_vs_size(
    run: Run, *, ax: Axes | None = None, figsize: tuple[float, float] | None = None
) -> Figure:
    """h2d and d2h bandwidth vs copy size, one line per device and direction.

    Example:
        >>> fig = host_bandwidth_vs_size(run)  # doctest: +SKIP
    """
    run = frame_of(run)
    st = host_stats(run)
    if st.empty:
        raise ValueError("the run has no measured h2d or d2h rows")
    fig, ax = fig_ax(ax, CURVE_SIZE, figsize)
    devices = sorted({int(d) for d in st["device"]})
    named = len(devices) <= MAX_NAMED
    handles: list[Line2D] = []
    for pattern, (color, words) in HOST_DIRECTIONS.items():
        part = st[st["pattern"] == pattern]
        for k, dev in enumerate(devices):
            g = part[part["device"] == dev].sort_values("size_bytes")
            if g.empty:
                continue
            if named:
                ax.fill_between(g["size_bytes"], g["p10"], g["p90"], color=color, alpha=0.15, lw=0)
            (line,) = ax.plot(
                g["size_bytes"],
                g["median"],
                color=color,
                marker=MARKERS[k] if named else "o",
                ms=4 if named else 3,
                lw=1.5 if named else 0.8,
                label=f"{words}, device {dev}",
            )
            if named:
                handles.append(line)
        if not named and not part.empty:
            handles.append(
                Line2D(
                    [],
                    [],
                    color=color,
                    marker="o",
                    ms=3,
                    label=f"{words} ({part['device'].nunique()} devices)",
                )
            )
    bandwidth_axes(ax, st["size_bytes"].unique(), float(st["p90"].max()), "bandwidth (GB/s)")
    side_legend(ax, handles)
    set_title(
        ax,
        "Pinned host memory <-> device: bandwidth vs size\nmedian per device, p10-p90 band"
        if named
        else "Pinned host memory <-> device: bandwidth vs size\nmedian per device",
        backend_note(run),
    )
    return finish(fig)
