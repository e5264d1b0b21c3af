"""plots.style: median_bars (the bars under transfer_bars and aggregate_bars), the axes
of sizes and times, and save_png (a finished figure drawn as finish laid it out)."""

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


def test_size_axis_thins_close_sizes_and_labels_them_in_binary_units() -> None:
    from matplotlib.figure import Figure

    from ascend_p2p_lab.plots.style import size_axis

    ax = Figure().add_subplot()
    sizes = [8 << 10, 16 << 10, 1 << 20, 64 << 20]  # 8 KiB .. 64 MiB: step 2 octaves
    size_axis(ax, sizes)
    ticks = list(ax.xaxis.get_major_locator()())
    assert ticks == [8 << 10, 1 << 20, 64 << 20]  # 16 KiB too close to 8 KiB: left out
    fmt = ax.xaxis.get_major_formatter()
    assert [fmt(t) for t in ticks] == ["8 KiB", "1 MiB", "64 MiB"]


def test_time_axis_labels_microseconds_milliseconds_and_seconds() -> None:
    from matplotlib.figure import Figure

    from ascend_p2p_lab.plots.style import time_axis

    ax = Figure().add_subplot()
    time_axis(ax, np.array([5.0, 3e6]))
    fmt = ax.yaxis.get_major_formatter()
    assert [fmt(y) for y in (500.0, 2000.0, 2.5e6)] == ["500 µs", "2 ms", "2.5 s"]


def _finished_matrix():
    """A finished figure whose layout moves on a second pass (constrained layout is not
    idempotent with a colour bar): a pass more would show in its pixels."""
    from ascend_p2p_lab.plots.style import fig_ax, finish

    fig, ax = fig_ax(None, (4.0, 3.0))
    image = ax.imshow(np.arange(12.0).reshape(3, 4))
    fig.colorbar(image, ax=ax, label="GB/s")
    ax.set_title("a matrix\nand a note under it")
    ax.set_xlabel("dst")
    ax.set_ylabel("src")
    return finish(fig)


def _pixels(png: bytes) -> np.ndarray:
    import io

    from matplotlib.image import imread

    return imread(io.BytesIO(png), format="png")


def test_save_png_draws_the_layout_finish_checked() -> None:
    """A finished figure is drawn as finish laid it out and found to fit: no layout pass
    more (it would move the colour bar by a few pixels), the same pixels as savefig with
    the layout engine off, and the axes where finish left them."""
    import io

    from ascend_p2p_lab.plots.pngfile import png_bytes
    from ascend_p2p_lab.plots.style import save_png

    fig = _finished_matrix()
    assert getattr(fig, "_p2p_laid_out", None) is not None  # the one-pass path is taken
    where = [a.get_position().bounds for a in fig.axes]
    fast = io.BytesIO()
    save_png(fig, fast)
    assert [a.get_position().bounds for a in fig.axes] == where  # no layout ran
    assert fig.get_layout_engine() is not None  # and the engine is back

    plain, relaid = io.BytesIO(), io.BytesIO()
    same = _finished_matrix()
    engine = same.get_layout_engine()
    same.set_layout_engine(None)
    same.savefig(plain, dpi=same.dpi, format="png")  # zlib's default level: other bytes
    same.set_layout_engine(engine)
    same.savefig(relaid, dpi=same.dpi, format="png")  # savefig lays it out once more
    assert np.array_equal(_pixels(fast.getvalue()), _pixels(plain.getvalue()))
    assert not np.array_equal(_pixels(relaid.getvalue()), _pixels(plain.getvalue()))

    raw = io.BytesIO()  # the bytes: Agg's pixels as pngfile encodes them
    again = _finished_matrix()
    again.set_layout_engine(None)
    again.savefig(raw, dpi=again.dpi, format="rgba")
    w, h = (int(v) for v in again.bbox.size)
    rgba = np.frombuffer(raw.getvalue(), dtype=np.uint8).reshape(h, w, 4)
    assert fast.getvalue() == png_bytes(rgba, dpi=again.dpi)


def test_a_notebook_shows_the_pixels_the_report_writes() -> None:
    import io

    from ascend_p2p_lab.plots.style import save_png

    written = io.BytesIO()
    save_png(_finished_matrix(), written)
    assert _finished_matrix()._repr_png_() == written.getvalue()


def test_a_card_matrix_is_drawn_once_its_layout_has_settled() -> None:
    """Constrained layout's first pass leaves the title over the card matrix's top ticks
    0.4 px from the edge; finish lays it out once more (as the save once did), so what
    is drawn keeps its margin, and the save draws that layout without a pass more."""
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from ascend_p2p_lab.plots import card_heatmap
    from ascend_p2p_lab.plots.style import SETTLED_MARGIN, save_png

    slow = [{"kind": "degrade", "link": [2, 0], "factor": 0.1}]
    from ascend_p2p_lab import open_runtime
    from ascend_p2p_lab.measure import sweep

    with open_runtime("sim", "atlas800t-a2", faults=slow) as rt:
        run = sweep(rt, patterns="card", sizes=[16 << 20], samples=1, progress=False)
    fig = card_heatmap(run, direction="uni")
    save_png(fig, io.BytesIO())
    fig.set_layout_engine(None)  # drawn again as saved
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    box = fig.get_tightbbox(canvas.get_renderer())
    w, h = fig.get_size_inches()
    assert min(box.x0, box.y0, w - box.x1, h - box.y1) >= SETTLED_MARGIN
