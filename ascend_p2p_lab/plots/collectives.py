"""Collectives (imported hccl_test runs): algorithm and bus bandwidth vs size.

One solid line of ``algbw_GBps`` (data size over time, as hccl_test prints it) and one
dashed line of ``busbw_GBps`` (algbw x the nccl-tests factor of the operation and rank
count) per operation and rank count; a size whose check failed is marked with a red x.

Example:
    >>> collective_stats(run).columns.tolist()  # doctest: +SKIP
    ['operation', 'ranks', 'size_bytes', 'algbw_GBps', 'busbw_GBps', 'failed']
"""

from __future__ import annotations

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..run import Run
from .prepare import backend_note, frame_of
from .style import CURVE_SIZE, bandwidth_axes, fig_ax, finish, set_title, side_legend

COLORS = ("#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf")
STAT_COLUMNS = ["operation", "ranks", "size_bytes", "algbw_GBps", "busbw_GBps", "failed"]


def collective_stats(run: pd.DataFrame) -> pd.DataFrame:
    """Median algbw and busbw per operation, rank count and size, and whether any row of
    the size failed its check (pure pandas)."""
    rows = run[run["algbw_GBps"].notna() & run["operation"].notna()].copy()
    if rows.empty:
        return pd.DataFrame(columns=STAT_COLUMNS)
    rows["failed"] = rows["check_result"].eq("failed").fillna(False).astype(bool)
    out = rows.groupby(["operation", "ranks", "size_bytes"], sort=True).agg(
        algbw_GBps=("algbw_GBps", "median"), busbw_GBps=("busbw_GBps", "median"),
        failed=("failed", "any")).reset_index()
    return out[STAT_COLUMNS]


def collective_bandwidth(run: pd.DataFrame | Run, *, ax: Axes | None = None,
                         figsize: tuple[float, float] | None = None) -> Figure:
    """algbw (solid) and busbw (dashed) vs data size per operation and rank count.

    Example:
        >>> fig = collective_bandwidth(load_run("run-hccl"))  # doctest: +SKIP
    """
    run = frame_of(run)
    st = collective_stats(run)
    if st.empty:
        raise ValueError("the run has no collective rows (algbw_GBps); import hccl_test "
                         "output with `import hccl-test`")
    fig, ax = fig_ax(ax, CURVE_SIZE, figsize)
    handles = []
    for k, ((op, ranks), g) in enumerate(st.groupby(["operation", "ranks"], sort=True)):
        color = COLORS[k % len(COLORS)]
        (alg,) = ax.plot(g["size_bytes"], g["algbw_GBps"], color=color, marker="o", ms=3,
                         lw=1.5, label=f"{op}, {ranks} ranks: algbw")
        (bus,) = ax.plot(g["size_bytes"], g["busbw_GBps"], color=color, marker="s", ms=3,
                         lw=1.5, ls="--", label=f"{op}, {ranks} ranks: busbw")
        handles += [alg, bus]
        bad = g[g["failed"]]
        if len(bad):
            (x,) = ax.plot(bad["size_bytes"], bad["algbw_GBps"], "x", color="#d62728",
                           ms=8, mew=2, label="check failed")
            handles.append(x)
    top = float(st[["algbw_GBps", "busbw_GBps"]].max().max())
    bandwidth_axes(ax, st["size_bytes"].unique(), top, "bandwidth (GB/s)")
    ax.set_xlabel("data size per rank (hccl_test data_size)")
    side_legend(ax, handles)
    set_title(ax, "Collectives: algorithm and bus bandwidth vs data size\n"
              "busbw = algbw x nccl-tests factor (all-reduce 2(n-1)/n)", backend_note(run))
    return finish(fig)
