"""The collectives command and what reads its runs: the JSON scripts rely on, bad input
before device work, the run folder, ``report`` (the hccl_test table and figures, for an
import too: issue 30 item 8), ``compare`` of an hccl_test import against a preset or a
P2P run of the server, and predictions from a P2P run's links (``--links``)."""

from __future__ import annotations

import pandas as pd


def _overlapping(ax) -> list[tuple[str, str]]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(ax.figure)
    canvas.draw()
    r = canvas.get_renderer()
    labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
    boxes = [(t.get_text(), t.get_window_extent(r)) for t in labels]
    return [
        (a, b) for i, (a, ba) in enumerate(boxes) for b, bb in boxes[i + 1 :] if ba.overlaps(bb)
    ]


def test_size_ticks_do_not_overlap() -> None:
    """Issue 30 item 8: sizes 8 KiB and 16 KiB beside 32 and 64 MiB printed their labels
    over each other ("8 KiB16 KiB")."""
    from ascend_p2p_lab.plots import collective_bandwidth

    sizes = [8 << 10, 16 << 10, 32 << 20, 64 << 20]
    rows = pd.DataFrame(
        {
            "operation": "all_gather",
            "ranks": 4,
            "size_bytes": sizes,
            "time_us": [30.0, 31.0, 700.0, 1400.0],
            "algbw_GBps": [0.3, 0.5, 48.0, 48.0],
            "busbw_GBps": [0.2, 0.4, 36.0, 36.0],
            "check_result": "success",
            "backend": "hccl_test",
        }
    )
    fig = collective_bandwidth(rows)
    assert _overlapping(fig.axes[0]) == []
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()][:1] == ["8 KiB"]


def _one_size_run(sizes: list[int]) -> pd.DataFrame:
    """Op rows of the toolkit's own collectives: all-gather and reduce-scatter on 8 ranks,
    busbw below the prediction below the bound (asymmetric: no two series equal)."""
    n = len(sizes)
    rows = []
    for op, bus in (("all_gather", 170.0), ("reduce_scatter", 130.0)):
        rows.append(
            pd.DataFrame(
                {
                    "pattern": "collective",
                    "operation": op,
                    "ranks": 8,
                    "algorithm": "mesh",
                    "size_bytes": sizes,
                    "time_us": [100.0 * (i + 1) for i in range(n)],
                    "algbw_GBps": [bus * 8 / 7 - i for i in range(n)],
                    "busbw_GBps": [bus - i for i in range(n)],
                    "predicted_busbw_GBps": [bus + 4.0 - i for i in range(n)],
                    "bound_busbw_GBps": bus + 9.0,
                    "bottleneck_src": pd.array([None] * n, dtype="Int64"),
                    "bottleneck_dst": pd.array([None] * n, dtype="Int64"),
                    "bottleneck_budget": "card[0,1]:both",
                    "bottleneck_basis": "predicted",
                    "check_result": "success",
                    "backend": "sim",
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def test_one_size_shows_measured_predicted_and_bound_each_with_a_marker() -> None:
    """Issue 38 item 3: at one size the prediction and the link bound were lines without
    markers (invisible), and the legend read "measured: predicted from links"; each
    series has its marker now, the legend says what each series is, the x axis what
    hccl_test's data_size counts for the op, and the title that the bottleneck is the
    prediction's."""
    from ascend_p2p_lab.plots import collective_links

    fig = collective_links(_one_size_run([256 << 20]))
    panels = [ax for ax in fig.axes if ax.get_visible()]
    for ax in panels:
        markers = {ln.get_label(): ln.get_marker() for ln in ax.get_lines()}
        assert markers == {
            "busbw measured (this run)": "o",
            "busbw predicted from the links": "D",
            "link bound: what the links alone allow": "_",
        }
        assert "limited by card[0,1]:both (predicted)" in ax.get_title()
    legend = [t.get_text() for t in panels[1].get_legend().get_texts()]
    assert legend == list(markers) and not any("measured: predicted" in t for t in legend)
    assert [ax.get_xlabel() for ax in panels] == [
        "hccl_test data_size (total output: chunk x ranks)",
        "hccl_test data_size (total input per rank: chunk x ranks)",
    ]
    assert "busbw measured (this run): 170.0" in panels[0].texts[0].get_text()


def test_bandwidth_at_one_size_is_bars_and_at_several_sizes_lines() -> None:
    """One size: a pair of bars per op (their points would sit on one x), a two-entry
    legend; several: a line per op and kind. The x axis names hccl_test's data_size as
    the per-rank buffer, and the total for all-gather and reduce-scatter."""
    from ascend_p2p_lab.plots import collective_bandwidth

    one = collective_bandwidth(_one_size_run([256 << 20])).axes[0]
    assert len(one.patches) == 4 and not one.get_lines()
    assert [p.get_height() for p in one.patches] == [
        170.0 * 8 / 7,
        130.0 * 8 / 7,
        170.0,
        130.0,
    ]
    assert len(one.get_legend().get_texts()) == 2
    assert "total over the ranks (all-gather, reduce-scatter)" in one.get_xlabel()
    several = collective_bandwidth(_one_size_run([1 << 20, 256 << 20])).axes[0]
    assert len(several.get_lines()) == 4 and not several.patches
    assert "per-rank buffer" in several.get_xlabel()


def test_bandwidth_lines_draw_algbw_solid_and_busbw_dashed_each_its_own_values() -> None:
    from ascend_p2p_lab.plots import collective_bandwidth

    ax = collective_bandwidth(_one_size_run([1 << 20, 256 << 20])).axes[0]
    lines = {ln.get_label(): (ln.get_linestyle(), list(ln.get_ydata())) for ln in ax.get_lines()}
    assert lines["all_gather, 8 ranks: algbw"] == ("-", [170.0 * 8 / 7, 170.0 * 8 / 7 - 1])
    assert lines["all_gather, 8 ranks: busbw"] == ("--", [170.0, 169.0])
    assert lines["reduce_scatter, 8 ranks: busbw"] == ("--", [130.0, 129.0])
