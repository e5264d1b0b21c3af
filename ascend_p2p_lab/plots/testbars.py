"""Figures of tests (sets of transfers at once): each transfer's bar beside the test's
aggregate and its nominal rate, and the aggregate against the number of transfers (the
scaling curve). :func:`bars_stats` and :func:`scaling_stats` prepare the data (pure
pandas); :func:`transfer_bars` and :func:`scaling_curve` draw it.

Example:
    >>> from ascend_p2p_lab import open_runtime
    >>> from ascend_p2p_lab.measure import sweep
    >>> from ascend_p2p_lab.patterns import make_test
    >>> with open_runtime("sim", "atlas800t-a2") as rt:
    ...     run = sweep(rt, tests=[make_test("t", ["0->1", "2->3 by 2"], 8)],
    ...                 sizes="16MiB", samples=2, progress=False)
    >>> bars_stats(run.samples)[["test", "what", "nominal_GBps"]].values.tolist()
    [['t', '0->1', 28.0], ['t', '2->3', 28.0], ['t', 'all', 56.0]]
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ..matrices import aggregate_values
from ..run import Run
from ..schema import TEST_PATTERN as TEST
from .prepare import backend_note, frame_of
from .style import (
    BAR_ROW_IN,
    CURVE_SIZE,
    fig_ax,
    finish,
    link_color,
    median_bars,
    set_title,
    side_legend,
)

#: Inches per bar of :func:`transfer_bars`.

AGGREGATE_COLOR = "#333333"
NOMINAL_COLOR = "#b00020"
#: How a bar names a transfer its destination does not issue.
PUSH = {"src": " (push)", "third": " (by a third device)"}
#: Fewest distinct transfer counts for a scaling curve in a report.
CURVE_POINTS = 3


def bars_values(run: pd.DataFrame) -> pd.DataFrame:
    """Every transfer's and every aggregate's value of the run's tests, with the reason
    for each missing one (:func:`~ascend_p2p_lab.matrices.aggregate_values`)."""
    table = aggregate_values(run)
    return table[table["pattern"] == TEST].reset_index(drop=True)


def bars_stats(run: pd.DataFrame) -> pd.DataFrame:
    """One row per transfer of each test and one for its aggregate, at the largest size
    measured: ``test, transfer, what, link, size_bytes, median, p10, p90, nominal_GBps``
    (what: ``0->1``, ``host->4``, ``all``); tests in run order, transfers in file order.
    """
    cols = [
        "test",
        "transfer",
        "what",
        "initiator",
        "link",
        "size_bytes",
        "median",
        "p10",
        "p90",
        "nominal_GBps",
    ]
    listed = bars_values(run)
    listed = listed[listed["median_GBps"].notna()]
    if listed.empty:
        return pd.DataFrame(columns=cols)
    good = run[(run["pattern"] == TEST) & run["bandwidth_GBps"].notna() & run["error_kind"].isna()]
    out = []
    for rec in listed.to_dict("records"):
        rows = good[(good["test"] == rec["test"]) & (good["size_bytes"] == rec["size_bytes"])]
        rows = (
            rows[rows["transfer"].isna()]
            if pd.isna(rec["transfer"])
            else rows[rows["transfer"] == rec["transfer"]]
        )
        bw = rows["bandwidth_GBps"]
        out.append(
            {
                "test": rec["test"],
                "transfer": rec["transfer"],
                "what": rec["what"],
                "initiator": rec["initiator"],
                "link": rec["link"],
                "size_bytes": rec["size_bytes"],
                "median": float(bw.median()),
                "p10": float(bw.quantile(0.1)),
                "p90": float(bw.quantile(0.9)),
                "nominal_GBps": rec["nominal_GBps"],
            }
        )
    return pd.DataFrame(out, columns=cols)


def scaling_family(st: pd.DataFrame) -> list[str]:
    """The tests of a scaling family among :func:`bars_stats`' rows: the longest chain in
    which each test holds the transfers of the one before and more (``run scaling``: one
    device to 1, 2, ... peers), in order; unrelated tests are no family (at most one).

    Example:
        >>> st = pd.DataFrame({"test": ["a", "b", "b", "c", "c", "c", "u", "u"],
        ...                    "what": ["0->1", "0->1", "0->2", "0->1", "0->2", "0->3",
        ...                             "4->5", "6->7"]})
        >>> scaling_family(st.assign(transfer=1))
        ['a', 'b', 'c']
    """
    rows = st[st["transfer"].notna()]
    sets = {t: Counter(g["what"].astype(str)) for t, g in rows.groupby("test", sort=False)}
    order = sorted(sets, key=lambda t: sets[t].total())
    best: dict[str, list[str]] = {}
    for t in order:
        before = [
            best[u]
            for u in order
            if u in best and sets[u].total() < sets[t].total() and not sets[u] - sets[t]
        ]
        best[t] = [*max(before, key=len, default=[]), t]
    chain = max(best.values(), key=len, default=[])
    return chain if len(chain) > 1 else []


def scaling_stats(run: pd.DataFrame) -> pd.DataFrame:
    """The aggregate of each test of the run's scaling family (:func:`scaling_family`)
    against its number of transfers, at the largest size measured: ``test, transfers,
    size_bytes, median, p10, p90, nominal_GBps``, sorted by the number of transfers."""
    st = bars_stats(run)
    st = st[st["test"].isin(scaling_family(st))]
    count = st[st["transfer"].notna()].groupby("test").size().rename("transfers")
    agg = st[st["transfer"].isna()].merge(count.reset_index(), on="test")
    return (
        agg[["test", "transfers", "size_bytes", "median", "p10", "p90", "nominal_GBps"]]
        .sort_values("transfers", kind="stable")
        .reset_index(drop=True)
    )


def transfer_bars(
    run: Run, *, ax: Axes | None = None, figsize: tuple[float, float] | None = None
) -> Figure:
    """Horizontal bars: each transfer of each test (coloured by its link) and the test's
    aggregate (dark), median with a p10-p90 whisker, the nominal rate as a red tick.

    Example:
        >>> fig = transfer_bars(run)  # doctest: +SKIP
    """
    run = frame_of(run)
    st = bars_stats(run)
    if st.empty:
        raise ValueError("the run has no measured test rows")
    width, _ = CURVE_SIZE
    fig, ax = fig_ax(ax, (width, 1.8 + BAR_ROW_IN * len(st)), figsize)
    agg = st["transfer"].isna().to_numpy()  # the aggregate: the row of no transfer
    colors = [AGGREGATE_COLOR if a else link_color(str(lk)) for a, lk in zip(agg, st["link"])]
    median_bars(ax, st, colors, ecolor="#777777", tick_color=NOMINAL_COLOR)
    labels = [
        f"{t}: {w}" if a else f"  {w}" + PUSH.get(str(i), "")
        for t, w, i, a in zip(st["test"], st["what"], st["initiator"], agg)
    ]
    ax.set_yticks(np.arange(len(st)), labels=labels, fontsize=8)
    for k in np.flatnonzero(agg)[:-1]:  # a line between tests
        ax.axhline(k + 0.5, color="#bbbbbb", lw=0.6)
    ax.set_xlabel(
        "bandwidth (GB/s): a transfer's bytes over its own time; 'all': every byte over the window"
    )
    ax.grid(axis="x", alpha=0.3)
    handles = [
        Patch(color=link_color(str(lk)), label=str(lk))
        for lk in dict.fromkeys(st.loc[~agg, "link"])
    ]
    handles += [
        Patch(color=AGGREGATE_COLOR, label="aggregate (all)"),
        Line2D([], [], marker="|", ls="", ms=12, color=NOMINAL_COLOR, label="nominal"),
    ]
    side_legend(ax, handles)
    size = int(st["size_bytes"].max())
    set_title(
        ax,
        f"Transfers at once and their aggregate, at {size / (1 << 20):g} MiB"
        "\nmedian over samples, p10-p90 whisker",
        backend_note(run),
    )
    return finish(fig)


def scaling_curve(
    run: Run, *, ax: Axes | None = None, figsize: tuple[float, float] | None = None
) -> Figure:
    """A test family's aggregate against its number of transfers (``run scaling``), with
    the nominal rate of the links used (within the shared budgets the preset declares).

    Example:
        >>> fig = scaling_curve(run)  # doctest: +SKIP
    """
    run = frame_of(run)
    st = scaling_stats(run)
    if st["transfers"].nunique() < 2:
        raise ValueError("the run has fewer than two tests of different sizes to draw")
    fig, ax = fig_ax(ax, CURVE_SIZE, figsize)
    x = st["transfers"].to_numpy()
    ax.fill_between(x, st["p10"], st["p90"], color=AGGREGATE_COLOR, alpha=0.15, lw=0)
    ax.plot(x, st["median"], marker="o", color=AGGREGATE_COLOR, label="measured (median)")
    ax.plot(
        x,
        st["nominal_GBps"],
        ls="--",
        color=NOMINAL_COLOR,
        label="nominal: the links used, within\nthe shared budgets (ports, cards)",
    )
    ax.set_xlabel("transfers at once (peers)")
    ax.set_ylabel("aggregate bandwidth (GB/s)")
    ax.set_xticks(x)
    ax.set_ylim(0, float(np.nanmax([st["p90"].max(), st["nominal_GBps"].max()])) * 1.1)
    ax.grid(alpha=0.3)
    side_legend(ax)
    size = int(st["size_bytes"].max())
    set_title(
        ax,
        f"Aggregate against the number of transfers, at {size / (1 << 20):g} MiB",
        backend_note(run),
    )
    return finish(fig)
