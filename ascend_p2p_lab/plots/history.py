"""One item's history: its values over time, the baseline band, and the drift.

Takes a frame of ``time, value, verdict`` (one row per run, as ``history --format json``
lists an item's ``values``) and the item's ``baseline`` (``median``, ``low``, ``high``,
``from``, ``to``; None: too few values); draws the values as a line of points (a run that
failed its check in red), the band shaded with its median dashed, and says whether the
recent values drift. Never loads the history store.

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

from collections.abc import Mapping
from typing import Any

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from .style import fig_ax, finish

#: colours: the values, a failing run, the band
LINE, FAIL_COLOR, BAND = "#1f77b4", "#d62728", "#2ca02c"


def item_history(
    values: pd.DataFrame,
    baseline: Mapping[str, Any] | None = None,
    *,
    item: str = "",
    host: str = "",
    unit: str = "",
    drift: Mapping[str, Any] | None = None,
    ax: Axes | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """The item's values over time with its baseline band (see the module docstring)."""
    fig, ax = fig_ax(ax, (7.0, 3.2), figsize)
    times = pd.to_datetime(values["time"], utc=True, format="mixed")
    ax.plot(times, values["value"], "o-", color=LINE, markersize=3.5, linewidth=1.2)
    bad = values["verdict"].eq("FAIL").to_numpy()
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
