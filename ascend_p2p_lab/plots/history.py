"""One item's history: its values over time, the baseline band, and the drift.

Takes a frame of ``time, value, verdict`` (one row per run, as ``history --format json``
lists an item's ``values``) and the item's ``baseline`` (``median``, ``low``, ``high``,
``from``, ``to``; None: too few values); draws the values as a line of points (a run that
failed its check in red), the band shaded with its median dashed, and says whether the
recent values drift; ``mark`` draws a line at one run's time (``report RUN --history DB``:
the run reported). :func:`write_item_histories` draws one such figure per row of a trends
table (``history.trends``) into PNG files, for ``history --plot`` and ``report --history``.
Never loads the history store.

Example:
    >>> import pandas as pd
    >>> v = pd.DataFrame({"time": ["2026-01-01", "2026-01-02", "2026-01-03"],
    ...                   "value": [20.0, 19.8, 15.0], "verdict": ["PASS", "PASS", "FAIL"]})
    >>> fig = item_history(v, {"median": 20.0, "low": 19.0, "high": 21.0,
    ...                        "from": "2026-01-01", "to": "2026-01-02"}, item="x")
    >>> [float(y) for y in fig.axes[0].lines[0].get_ydata()]
    [20.0, 19.8, 15.0]
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..vocab import FAIL
from .style import fig_ax, finish

#: colours: the values, a failing run, the band, the marked run
LINE, FAIL_COLOR, BAND, MARK = "#1f77b4", "#d62728", "#2ca02c", "#555555"
#: the resolution of a figure file
FILE_DPI = 100


def item_history(
    values: pd.DataFrame,
    baseline: Mapping[str, Any] | None = None,
    *,
    item: str = "",
    host: str = "",
    unit: str = "",
    drift: Mapping[str, Any] | None = None,
    mark: str | None = None,
    ax: Axes | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """The item's values over time with its baseline band (see the module docstring)."""
    fig, ax = fig_ax(ax, (7.0, 3.2), figsize)
    times = pd.to_datetime(values["time"], utc=True, format="mixed")
    ax.plot(times, values["value"], "o-", color=LINE, markersize=3.5, linewidth=1.2)
    bad = values["verdict"].eq(FAIL).to_numpy()
    if bad.any():
        ax.plot(
            times[bad],
            values["value"][bad],
            "o",
            color=FAIL_COLOR,
            markersize=5,
            label="failed its check",
        )
    if baseline is not None:
        ax.axhspan(baseline["low"], baseline["high"], color=BAND, alpha=0.15, label="baseline band")
        ax.axhline(
            baseline["median"],
            color=BAND,
            linestyle="--",
            linewidth=1,
            label=f"baseline {baseline['median']:.4g} ({baseline['from'][:10]} to "
            f"{baseline['to'][:10]})",
        )
    if mark is not None:
        when = pd.to_datetime(pd.Series([mark]), utc=True, format="mixed").iloc[0]
        ax.axvline(when, color=MARK, linestyle=":", linewidth=1.2, label="this run")
    state = (
        "no baseline yet"
        if baseline is None
        else "within its baseline"
        if drift is None
        else f"drifts {drift['direction']} ({drift['change']:+.1%} since {drift['since'][:10]})"
    )
    ax.set_title(f"{host} {item}: {state}".strip(), fontsize=10)
    ax.set_ylabel(unit or "value")
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, loc="lower left")
    fig.autofmt_xdate()
    return finish(fig)


def file_name(host: str, item: str, prefix: str = "") -> str:
    """The PNG file name of one host's item (characters a file name cannot hold: ``_``)."""
    return prefix + re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{host}_{item}").strip("_") + ".png"


def write_item_histories(
    table: pd.DataFrame,
    out: str | Path,
    units: Mapping[tuple[str, str], str] | None = None,
    *,
    prefix: str = "",
) -> list[Path]:
    """One :func:`item_history` figure per row of a trends table (``host``, ``item``,
    ``values``, ``baseline``, ``drift``; with a ``mark`` column, that time marked) as a
    PNG in ``out`` (:func:`file_name`); the paths, in the table's order."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for row in table.to_dict("records"):
        fig = item_history(
            pd.DataFrame(row["values"]),
            row["baseline"],
            item=row["item"],
            host=row["host"],
            unit=("" if units is None else units.get((row["host"], row["item"]))) or "",
            drift=row["drift"],
            mark=row.get("mark"),
        )
        path = out / file_name(row["host"], row["item"], prefix)
        fig.savefig(path, dpi=FILE_DPI)
        paths.append(path)
    return paths
