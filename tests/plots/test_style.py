"""plots.style.median_bars: the bars under transfer_bars and aggregate_bars (one draws)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from ascend_p2p_lab.plots.style import median_bars

ST = pd.DataFrame(
    {
        "median": [20.0, 5.0, 40.0],
        "p10": [18.0, 4.0, 39.0],
        "p90": [21.0, 9.0, 40.5],
        "nominal_GBps": [25.0, np.nan, 50.0],
    }
)


def test_each_row_a_bar_its_whisker_its_tick_and_its_share() -> None:
    fig, ax = plt.subplots()
    median_bars(
        ax,
        ST,
        ["C0", "C1", "C2"],
        ecolor="#777777",
        tick_color="red",
        unit=" GB/s",
        of_nominal=" of nominal",
        room=1.5,
    )
    assert [p.get_width() for p in ax.patches] == [20.0, 5.0, 40.0]
    assert [round(p.get_y() + p.get_height() / 2) for p in ax.patches] == [0, 1, 2]
    ticks = ax.collections[-1].get_offsets()
    assert ticks[0].tolist() == [25.0, 0.0] and ticks[2].tolist() == [50.0, 2.0]
    texts = [t.get_text() for t in ax.texts]
    assert texts == ["20.0 GB/s (80% of nominal)", "5.0 GB/s", "40.0 GB/s (80% of nominal)"]
    # the text starts past the whisker or the tick, whichever is further
    assert [t.get_position()[0] for t in ax.texts] == pytest.approx(
        [25.0 + 0.5, 9.0 + 0.5, 50.0 + 0.5]
    )
    assert ax.get_xlim() == (0.0, 75.0) and ax.get_ylim() == (2.5, -0.5)  # first on top
    segments = [s for c in ax.collections[:-1] for s in c.get_segments()]
    assert sorted((round(s[0][0], 6), round(s[1][0], 6)) for s in segments) == [
        (4.0, 9.0),
        (18.0, 21.0),
        (39.0, 40.5),
    ]  # p10 to p90
    plt.close(fig)
