"""Collectives (the toolkit's own, and imported hccl_test runs): algorithm and bus
bandwidth vs size, and bus bandwidth against the links.

:func:`collective_bandwidth`: one solid line of ``algbw_GBps`` (data size over time, as
hccl_test prints it) and one dashed line of ``busbw_GBps`` (algbw x the nccl-tests factor
of the operation and rank count) per operation and rank count; at one size (the usual way
to set a run beside HCCL) a pair of bars per operation instead, whose points would sit on
top of each other; a size whose check failed is marked with a red x. The x axis says what
hccl_test's ``data_size`` counts (the per-rank buffer; all-gather and reduce-scatter: the
total, :data:`~ascend_p2p_lab.collectives.busbw.DATA_SIZE`). :func:`collective_links`: per
operation, busbw measured (and hccl_test's, where imported) beside the prediction from
links and the link bound, each series with its own marker so that one size shows all
three, the bottleneck named (``varies`` where the samples disagree; ``predicted`` where it
comes from the model: a run on hardware).

Example:
    >>> collective_stats(run).columns.tolist()  # doctest: +SKIP
    ['operation', 'ranks', 'size_bytes', 'algbw_GBps', 'busbw_GBps', 'failed']
"""

from __future__ import annotations

from typing import Any

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
    run: Run, *, ax: Axes | None = None, figsize: tuple[float, float] | None = None
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
    if st["size_bytes"].nunique() == 1:
        _bandwidth_bars(ax, st)
    else:
        _bandwidth_lines(ax, st)
    set_title(
        ax,
        "Collectives: algorithm and bus bandwidth vs data size\n"
        "busbw = algbw x nccl-tests factor (all-reduce 2(n-1)/n)",
        backend_note(run),
    )
    return finish(fig)


#: The x axis of :func:`collective_bandwidth`: hccl_test's data_size, per operation.
SIZE_AXIS = (
    "hccl_test data_size: per-rank buffer (all-reduce, all-to-all, broadcast);\n"
    "total over the ranks (all-gather, reduce-scatter)"
)


def _bandwidth_bars(ax: Axes, st: pd.DataFrame) -> None:
    """One size: algbw and busbw side by side per operation and rank count, values on top."""
    keys = [f"{op}\n{int(r)} ranks" for op, r in zip(st["operation"], st["ranks"])]
    x = np.arange(len(st))
    alg = ax.bar(x - 0.2, st["algbw_GBps"], 0.4, color=COLORS[0], label="algbw (data_size / time)")
    bus = ax.bar(
        x + 0.2,
        st["busbw_GBps"],
        0.4,
        color=COLORS[1],
        hatch="//",
        label="busbw (algbw x nccl-tests factor)",
    )
    for bars in (alg, bus):
        ax.bar_label(bars, fmt="%.1f", fontsize=7, padding=2)
    handles: list[object] = [alg, bus]
    failed = st["failed"].to_numpy()
    _failed_marks(ax, x[failed] - 0.2, st[failed], handles)
    ax.set_xticks(x, keys, fontsize=8)
    ax.set_xlim(-0.9, len(st) - 0.1)  # one op: bars of a sensible width
    top = float(st[["algbw_GBps", "busbw_GBps"]].max().max())
    ax.set_ylim(0, top * 1.15 if top > 0 else 1)
    ax.set_ylabel("bandwidth (GB/s)")
    ax.grid(True, axis="y", alpha=0.3)
    size = format_size(int(st["size_bytes"].iloc[0]))
    ax.set_xlabel(f"operation at {size}, {SIZE_AXIS}", fontsize=8.5)
    side_legend(ax, handles)  # type: ignore[arg-type]


def _failed_marks(ax: Axes, xs: Any, bad: pd.DataFrame, handles: list) -> None:
    """A red cross on the algbw of each point whose check failed (one legend entry)."""
    if len(bad):
        (mark,) = ax.plot(
            xs, bad["algbw_GBps"], "x", color="#d62728", ms=8, mew=2, label="check failed"
        )
        handles.append(mark)


def _bandwidth_lines(ax: Axes, st: pd.DataFrame) -> None:
    """Several sizes: algbw solid and busbw dashed per operation and rank count."""
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
        _failed_marks(ax, g.loc[g["failed"], "size_bytes"], g[g["failed"]], handles)
    top = float(st[["algbw_GBps", "busbw_GBps"]].max().max())
    bandwidth_axes(ax, st["size_bytes"].unique(), top, "bandwidth (GB/s)")
    ax.set_xlabel(SIZE_AXIS, fontsize=8.5)
    side_legend(ax, handles)


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
    "bottleneck_basis",
    "failed",
]
#: Who measured a row: the toolkit's executor, or hccl_test (an import).
MEASURED, HCCL_TEST = "measured", "hccl_test"
_SOURCE_COLORS = {MEASURED: "#1f77b4", HCCL_TEST: "#d62728"}


def links_stats(run: Run) -> pd.DataFrame:
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
    basis = rows["bottleneck_basis"] if "bottleneck_basis" in rows else pd.Series("", rows.index)
    rows["bottleneck_basis"] = basis.astype(object).where(basis.notna(), "")
    out = (
        rows.groupby(["operation", "ranks", "source", "size_bytes"], sort=True)
        .agg(
            algorithm=("algorithm", lambda a: ",".join(dict.fromkeys(x for x in a if x))),
            busbw_GBps=("busbw_GBps", "median"),
            predicted_busbw_GBps=("predicted_busbw_GBps", "median"),
            bound_busbw_GBps=("bound_busbw_GBps", "median"),
            bottleneck=("bottleneck", _named),
            bottleneck_basis=("bottleneck_basis", lambda b: ",".join(dict.fromkeys(b))),
            failed=("failed", "any"),
        )
        .reset_index()
    )
    return out[LINK_STAT_COLUMNS]


def _named(names: pd.Series) -> str:
    """The link or budget every sample names; ``varies`` when they disagree (even links
    or budgets, which one ends last being a matter of jitter), ``-`` when none names one."""
    named = set(names) - {"-"}
    return "-" if not named else named.pop() if len(named) == 1 else "varies"


def collective_links(run: Run, *, figsize: tuple[float, float] | None = None) -> Figure:
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
        f"{backend_note(frame)}; measured (solid, dots), predicted from the links "
        "(dashed, diamonds), link bound (dotted, bars)",
        fontsize=10.5,
    )
    side_legend(axes[min(cols, len(ops)) - 1], list(handles.values()))
    return finish(fig)


#: Legend texts of each source's series (what the series is, not who drew it).
_MEASURED_LABEL = {MEASURED: "busbw measured (this run)", HCCL_TEST: "busbw measured by hccl_test"}
_PREDICTED_LABEL = {
    MEASURED: "busbw predicted from the links",
    HCCL_TEST: "busbw predicted from the links (hccl_test's ops)",
}


def _values_text(st: pd.DataFrame) -> str:
    """A one-size panel's numbers: each source's busbw and prediction, and the bound."""
    lines = []
    for source, g in st.groupby("source", sort=True):
        lines.append(f"{_MEASURED_LABEL[str(source)]}: {g['busbw_GBps'].iloc[0]:.1f}")
        pred = g["predicted_busbw_GBps"].iloc[0]
        if pred == pred:
            lines.append(f"{_PREDICTED_LABEL[str(source)]}: {pred:.1f}")
    bound = st["bound_busbw_GBps"].dropna()
    if len(bound):
        lines.append(f"link bound: {bound.median():.1f}")
    return "\n".join(lines) + " GB/s"


def _neck_text(name: str, basis: str) -> str:
    """What a panel's title says of the bottleneck at the largest size."""
    if name == "-":
        return "no bottleneck named"
    if name == "varies":
        return "bottleneck varies by sample"
    return f"limited by {name}" + (" (predicted)" if basis == "predicted" else "")


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
            ms=5,
            lw=1.6,
            label=_MEASURED_LABEL[str(source)],
        )
        handles[f"{source} busbw"] = line
        if g["predicted_busbw_GBps"].notna().any():
            (pred,) = ax.plot(
                g["size_bytes"],
                g["predicted_busbw_GBps"],
                color=color,
                ls="--",
                lw=1.2,
                marker="D",
                ms=7,
                mfc="none",
                mew=1.3,
                label=_PREDICTED_LABEL[str(source)],
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
            bound.index,
            bound.values,
            color="#555555",
            ls=":",
            lw=1.4,
            marker="_",
            ms=14,
            mew=2,
            label="link bound: what the links alone allow",
        )
        handles["bound"] = b
    top = float(
        np.nanmax(
            st[["busbw_GBps", "predicted_busbw_GBps", "bound_busbw_GBps"]].to_numpy(dtype=float)
        )
    )
    bandwidth_axes(ax, st["size_bytes"].unique(), top, "busbw (GB/s)")
    if st["size_bytes"].nunique() == 1:  # the markers sit close: their values in words
        ax.text(
            0.97,
            0.04,
            _values_text(st),
            transform=ax.transAxes,
            ha="right",
            va="bottom",
            fontsize=8,
            bbox={"facecolor": "white", "edgecolor": "#cccccc", "pad": 3},
        )
    from ..collectives.busbw import DATA_SIZE  # the collectives package: for this figure only

    ax.set_xlabel(f"hccl_test data_size ({DATA_SIZE.get(op, 'bytes')})", fontsize=8.5)
    algos = ", ".join(dict.fromkeys(a for a in ",".join(st["algorithm"]).split(",") if a))
    ranks = ", ".join(str(int(r)) for r in sorted(st["ranks"].unique()))
    last = st[st["size_bytes"] == st["size_bytes"].max()]
    necks = "; ".join(
        f"{src}: {_neck_text(b, basis)}"
        for src, b, basis in zip(last["source"], last["bottleneck"], last["bottleneck_basis"])
    )
    ax.set_title(
        f"{op}, {ranks} ranks"
        + (f" ({algos})" if algos else "")
        + f"\nat {format_size(int(last['size_bytes'].iloc[0]))}: {necks}",
        fontsize=9,
    )
    return handles
