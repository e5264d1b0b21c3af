"""One dashboard Run as it goes: ``on_block`` moves the progress bar, grows the frame and
redraws the figures, at most every ``live_interval`` seconds (and at least
``live_draw_factor`` times the last redraw's duration apart), plus once at the end.

The progress bar counts points (a block is every size of one case on one pair), so it
moves by the number of sizes once per block, as :func:`~ascend_p2p_lab.measure.sweep`
reports blocks done.

Example:
    >>> from ascend_p2p_lab.results import empty_frame
    >>> from ascend_p2p_lab.run import Run, RunMeta
    >>> block = Run(empty_frame(), RunMeta(run_id="r1"))
    >>> so_far([block, block]).meta
    RunMeta(run_id='r1', source='SweepDashboard')
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import pandas as pd

from ..measure import BlockDone
from ..run import Run
from .render import heatmap_caption, make_figures, plot_mode, png_outputs, text_output
from .status import error_text

if TYPE_CHECKING:
    from .dashboard import SweepDashboard

#: ``meta.source`` of a dashboard's runs.
SOURCE = "SweepDashboard"


def so_far(parts: Sequence[Run]) -> Run:
    """The blocks' rows as one run, with the run's metadata as the last block knew it
    (the blocks of one sweep: one run, not several joined)."""
    runs = [Run.of(p) for p in parts]
    rows = [r.samples for r in runs if len(r)] or [runs[0].samples]
    samples = pd.concat(rows, ignore_index=True) if len(rows) > 1 else rows[0]
    return Run(samples, runs[-1].meta.replace(source=SOURCE))


class LiveRun:
    """The view of one Run on a dashboard: progress, the frame so far, live figures.

    ``say(message, kind)`` sets the dashboard's status line.
    """

    def __init__(self, dash: SweepDashboard, n_sizes: int, say: Callable[[str, str], None]) -> None:
        self.dash = dash
        self.n_sizes = n_sizes
        self.say = say
        self.parts: list[Run] = []
        self.drawn_rows = -1
        self.last_show = (time.perf_counter(), 0.0)  # (when it ended, how long it took)
        dash.progress.value = 0
        dash.progress.max = 1  # until the first block says how many there are

    def on_block(self, event: BlockDone) -> None:
        """After each block: progress, the status line, and the frame and figures when due."""
        self.parts.append(Run.of(event.rows))
        progress = self.dash.progress
        progress.max = max(1, event.total * self.n_sizes)
        progress.value = min(progress.max, event.done * self.n_sizes)
        self.say(f"measured {event.block.label}: {progress.value}/{progress.max} points", "busy")
        if self._due():
            self._show()

    def so_far(self) -> Run | None:
        """The run measured so far (None before the first block)."""
        return so_far(self.parts) if self.parts else None

    def finish(self) -> None:
        """Draw the run's final frame unless the last live drawing already shows it."""
        dash = self.dash
        if (
            dash.plots.value
            and dash.frame is not None
            and len(dash.frame)
            and self.drawn_rows != len(dash.frame)
        ):
            self._draw()

    def _due(self) -> bool:
        ended, took = self.last_show
        wait = max(self.dash.live_interval, self.dash.live_draw_factor * took)
        return time.perf_counter() - ended >= wait

    def _show(self) -> None:
        """Grow the dashboard's frame; redraw with "plots" and "live" ticked."""
        t0 = time.perf_counter()
        self.dash.last_run = self.so_far()
        if self.dash.plots.value and self.dash.live.value:
            self._draw()
        t1 = time.perf_counter()
        self.last_show = (t1, t1 - t0)

    def _draw(self) -> None:
        draw(self.dash)
        self.drawn_rows = -1 if self.dash.frame is None else len(self.dash.frame)


def draw(dash: SweepDashboard) -> None:
    """Redraw the heatmap and the bandwidth curves of ``dash.frame`` into ``dash.out``,
    with the heatmap's caption below them; ``dash.figures`` holds them and
    ``dash.plot_error`` says why there are none."""
    frame = dash.frame
    mode = None if frame is None else plot_mode(frame)
    if frame is None or mode is None:
        dash.plot_error = "no bandwidth numbers to plot yet"
        return
    try:
        figures = make_figures(frame, mode)
    except ImportError as exc:  # matplotlib missing: the results stay available
        dash.plot_error = f"plots unavailable ({exc})"
        return
    except Exception as exc:
        dash.plot_error = error_text(exc)
        return
    dash.figures = figures
    try:
        dash.out.outputs = (
            *png_outputs(figures.values()),
            text_output(heatmap_caption(frame, mode)),
        )
    except Exception as exc:
        dash.plot_error = f"cannot render the figures: {error_text(exc)}"
        return
    dash.plot_error = None
