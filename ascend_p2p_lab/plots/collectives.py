"""Collectives (the toolkit's own, and imported hccl_test runs): algorithm and bus
bandwidth vs size, and bus bandwidth against the links.

:func:`collective_bandwidth`: one solid line of ``algbw_GBps`` (data size over time, as
hccl_test prints it) and one dashed line of ``busbw_GBps`` (algbw x the nccl-tests factor
of the operation and rank count) per operation and rank count; a size whose check failed
is marked with a red x. :func:`collective_links`: per operation, busbw measured (and
hccl_test's, where imported) beside the prediction from links and the link bound, the
bottleneck named.

Example:
    >>> collective_stats(run).columns.tolist()  # doctest: +SKIP
    ['operation', 'ranks', 'size_bytes', 'algbw_GBps', 'busbw_GBps', 'failed']
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..run import Run
from ..units import format_size
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
    out = (
        rows.groupby(["operation", "ranks", "size_bytes"], sort=True)
        .agg(
            algbw_GBps=("algbw_GBps", "median"),
            busbw_GBps=("busbw_GBps", "median"),
            failed=("failed", "any"),
        )
        .reset_index()
    )
    return out[STAT_COLUMNS]


def collective_bandwidth(
    run: pd.DataFrame | Run, *, ax: Axes | None = None, figsize: tuple[float, float] | None = None
) -> Figure:
    """algbw (solid) and busbw (dashed) vs data size per operation and rank count.

    Example:
        >>> fig = collective_bandwidth(load_run("run-hccl"))  # doctest: +SKIP
    """
    run = frame_of(run)
    st = collective_stats(run)
    if st.empty:
        raise ValueError(
            "the run has no collective rows (algbw_GBps); import hccl_test "
            "output with `import hccl-test`"
        )
    fig, ax = fig_ax(ax, CURVE_SIZE, figsize)
    handles = []
    for k, ((op, ranks), g) in enumerate(st.groupby(["operation", "ranks"], sort=True)):
        color = COLORS[k % len(COLORS)]
        (alg,) = ax.plot(
            g["size_bytes"],
            g["algbw_GBps"],
            color=color,
            marker="o",
            ms=3,
            lw=1.5,
            label=f"{op}, {ranks} ranks: algbw",
        )
        (bus,) = ax.plot(
            g["size_bytes"],
            g["busbw_GBps"],
            color=color,
            marker="s",
            ms=3,
            lw=1.5,
            ls="--",
            label=f"{op}, {ranks} ranks: busbw",
        )
        handles += [alg, bus]
        bad = g[g["failed"]]
        if len(bad):
            (x,) = ax.plot(
                bad["size_bytes"],
                bad["algbw_GBps"],
                "x",
                color="#d62728",
                ms=8,
                mew=2,
                label="check failed",
            )
            handles.append(x)
    top = float(st[["algbw_GBps", "busbw_GBps"]].max().max())
    bandwidth_axes(ax, st["size_bytes"].unique(), top, "bandwidth (GB/s)")
    ax.set_xlabel("data size per rank (hccl_test data_size)")
    side_legend(ax, handles)
    set_title(
        ax,
        "Collectives: algorithm and bus bandwidth vs data size\n"
        "busbw = algbw x nccl-tests factor (all-reduce 2(n-1)/n)",
        backend_note(run),
    )
    return finish(fig)


#: Columns of :func:`links_stats`: per operation, rank count, who measured and size.
LINK_STAT_COLUMNS = [
    "operation",
    "ranks",
    "source",
    "size_bytes",
    "algorithm",
    "busbw_GBps",
    "predicted_busbw_GBps",
    "bound_busbw_GBps",
    "bottleneck",
    "failed",
]
#: Who measured a row: the toolkit's executor, or hccl_test (an import).
MEASURED, HCCL_TEST = "measured", "hccl_test"
_SOURCE_COLORS = {MEASURED: "#1f77b4", HCCL_TEST: "#d62728"}


def links_stats(run: pd.DataFrame | Run) -> pd.DataFrame:
    """Medians per operation, rank count, source (the toolkit's run, or an hccl_test
    import) and size: busbw, the prediction and the link bound the rows carry, the
    bottleneck most samples name, and whether a sample failed its check (pure pandas)."""
    from ..collectives.table import bottleneck_text, op_rows
    from ..schema import COLLECTIVE_PATTERN

    rows = op_rows(frame_of(run)).copy()
    if rows.empty:
        return pd.DataFrame(columns=LINK_STAT_COLUMNS)
    own = rows["pattern"].eq(COLLECTIVE_PATTERN).fillna(False).astype(bool)
    rows["source"] = [MEASURED if p else HCCL_TEST for p in own]
    rows["bottleneck"] = [
        bottleneck_text(s, d, b)
        for s, d, b in zip(
            rows["bottleneck_src"].astype(object),
            rows["bottleneck_dst"].astype(object),
            rows["bottleneck_budget"].astype(object),
        )
    ]
    rows["failed"] = rows["check_result"].eq("failed").fillna(False).astype(bool)
    rows["algorithm"] = rows["algorithm"].astype(object).where(rows["algorithm"].notna(), "")
    out = (
        rows.groupby(["operation", "ranks", "source", "size_bytes"], sort=True)
        .agg(
            algorithm=("algorithm", lambda a: ",".join(dict.fromkeys(x for x in a if x))),
            busbw_GBps=("busbw_GBps", "median"),
            predicted_busbw_GBps=("predicted_busbw_GBps", "median"),
            bound_busbw_GBps=("bound_busbw_GBps", "median"),
            bottleneck=("bottleneck", _named),
            failed=("failed", "any"),
        )
        .reset_index()
    )
    return out[LINK_STAT_COLUMNS]


def _named(names: pd.Series) -> str:
    """The link or budget more than half the samples name (``-`` when none does: even
    links, whose slowest copy is a matter of jitter)."""
    top = names.mode().iloc[0]
    return str(top) if len(names) < 2 or (names == top).sum() > len(names) / 2 else "-"


def collective_links(
    run: pd.DataFrame | Run, *, figsize: tuple[float, float] | None = None
) -> Figure:
    """busbw vs size, one panel per operation: measured (the toolkit's run, or hccl_test's
    where imported) solid, the prediction from links dashed, the link bound dotted, the
    bottleneck at the largest size named.

    Example:
        >>> fig = collective_links(run)  # doctest: +SKIP
    """
    from ..collectives.busbw import OPERATIONS
    from .style import new_figure

    frame = frame_of(run)
    st = links_stats(frame)
    if st.empty:
        raise ValueError(
            "the run has no collective rows (ascend-p2p-lab collectives, or an hccl_test import)"
        )
    ops = [op for op in OPERATIONS if op in set(st["operation"])]
    cols = min(2, len(ops))
    rows = -(-len(ops) // cols)
    fig = new_figure(figsize or (5.2 * cols + 1.8, 3.4 * rows + 0.9))
    fig._p2p_autosize = figsize is None  # type: ignore[attr-defined]
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    handles: dict[str, object] = {}
    for ax, op in zip(axes, ops):
        handles.update(_links_panel(ax, st[st["operation"] == op], op))
    for ax in axes[len(ops) :]:
        ax.set_visible(False)
    fig.suptitle(
        "Collectives against their links: bus bandwidth vs data size\n"
        f"{backend_note(frame)}; solid: measured, dashed: predicted from the links, "
        "dotted: what the links alone allow",
        fontsize=10.5,
    )
    side_legend(axes[min(cols, len(ops)) - 1], list(handles.values()))
    return finish(fig)


def _links_panel(ax: Axes, st: pd.DataFrame, op: str) -> dict[str, object]:
    """One operation: each source's busbw and prediction, the bound, the bottleneck."""
    handles: dict[str, object] = {}
    for source, g in st.groupby("source", sort=True):
        color = _SOURCE_COLORS[str(source)]
        (line,) = ax.plot(
            g["size_bytes"],
            g["busbw_GBps"],
            color=color,
            marker="o",
            ms=3,
            lw=1.6,
            label=f"{source}: busbw",
        )
        handles[f"{source} busbw"] = line
        if g["predicted_busbw_GBps"].notna().any():
            (pred,) = ax.plot(
                g["size_bytes"],
                g["predicted_busbw_GBps"],
                color=color,
                ls="--",
                lw=1.2,
                label=f"{source}: predicted from links",
            )
            handles[f"{source} predicted"] = pred
        bad = g[g["failed"]]
        if len(bad):
            (x,) = ax.plot(
                bad["size_bytes"],
                bad["busbw_GBps"],
                "x",
                color="#d62728",
                ms=8,
                mew=2,
                label="check failed",
            )
            handles["failed"] = x
    bound = st.groupby("size_bytes")["bound_busbw_GBps"].median().dropna()
    if len(bound):
        (b,) = ax.plot(
            bound.index, bound.values, color="#555555", ls=":", lw=1.4, label="link bound"
        )
        handles["bound"] = b
    top = float(
        np.nanmax(
            st[["busbw_GBps", "predicted_busbw_GBps", "bound_busbw_GBps"]].to_numpy(dtype=float)
        )
    )
    bandwidth_axes(ax, st["size_bytes"].unique(), top, "busbw (GB/s)")
    ax.set_xlabel("data size (hccl_test data_size)")
    algos = ", ".join(dict.fromkeys(a for a in ",".join(st["algorithm"]).split(",") if a))
    ranks = ", ".join(str(int(r)) for r in sorted(st["ranks"].unique()))
    last = st[st["size_bytes"] == st["size_bytes"].max()]
    necks = "; ".join(
        f"{src}: {'limited by ' + b if b != '-' else 'no one link limits it'}"
        for src, b in zip(last["source"], last["bottleneck"])
    )
    ax.set_title(
        f"{op}, {ranks} ranks"
        + (f" ({algos})" if algos else "")
        + f"\nat {format_size(int(last['size_bytes'].iloc[0]))}: {necks}",
        fontsize=9,
    )
    return handles
