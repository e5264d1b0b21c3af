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
