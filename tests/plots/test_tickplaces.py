"""Ticks placed once (``plots/tickplaces.py``): while a finished figure is laid out and
drawn, each axis's ticks and their labels' boxes are computed once per state of the
axis; the figures are the same PNG bytes as with matplotlib's own path, and on leaving
matplotlib is as it was."""

from __future__ import annotations

import contextlib
import io

import matplotlib

matplotlib.use("Agg")
import pytest
from matplotlib.axis import Axis

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.plots import (
    bandwidth_vs_size,
    heatmap,
    latency_vs_size,
    style,
    tickplaces,
)


@pytest.fixture(scope="module")
def run():
    """An asymmetric run: 0 -> 1 and 1 -> 0, and 2 -> 5 only (its transpose absent)."""
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        return sweep(rt, pairs="0-1,1-0,2-5", sizes="64KiB,4MiB,64MiB", samples=1, warmup=0)


def _pngs(run) -> list[bytes]:
    """A matrix (ticks on top, a colour bar), a log-log curve (minor ticks, a time axis)
    and a bandwidth curve grown to fit its legend, each finished and saved."""
    out = []
    figs = (heatmap(run), latency_vs_size(run), bandwidth_vs_size(run))
    for fig in figs:
        buf = io.BytesIO()
        style.save_png(fig, buf)
        out.append(buf.getvalue())
    return out


def test_the_same_bytes_with_ticks_placed_once(run, monkeypatch) -> None:
    calls = {"ticks": 0, "boxes": 0}
    ticks, boxes = tickplaces._original, tickplaces._original_boxes

    def counted_ticks(self):
        calls["ticks"] += 1
        return ticks(self)

    def counted_boxes(self, t, renderer):
        calls["boxes"] += 1
        return boxes(self, t, renderer)

    monkeypatch.setattr(style, "placed_once", contextlib.nullcontext)  # matplotlib's path
    monkeypatch.setattr(Axis, "_update_ticks", counted_ticks)
    monkeypatch.setattr(Axis, "_get_ticklabel_bboxes", counted_boxes)
    plain = _pngs(run)
    plain_calls = dict(calls)
    monkeypatch.undo()
    calls.update(ticks=0, boxes=0)
    monkeypatch.setattr(tickplaces, "_original", counted_ticks)
    monkeypatch.setattr(tickplaces, "_original_boxes", counted_boxes)
    once = _pngs(run)
    assert once == plain
    assert calls["ticks"] * 3 < plain_calls["ticks"]  # ~6 x fewer placements
    assert calls["boxes"] * 2 < plain_calls["boxes"]
    assert Axis._update_ticks is ticks  # put back on leaving, not left installed
    assert Axis._get_ticklabel_bboxes is boxes
    assert tickplaces._placed == {} and tickplaces._boxes == {}


def test_a_nested_use_keeps_the_cache_until_the_outermost_ends() -> None:
    with tickplaces.placed_once():
        with tickplaces.placed_once():
            pass
        assert Axis._update_ticks is tickplaces._update_ticks
    assert Axis._update_ticks is tickplaces._original
    assert Axis._get_ticklabel_bboxes is tickplaces._original_boxes


def test_an_axis_changed_inside_is_placed_anew() -> None:
    """Its view, its locator or its size (the layout's doing) make a new state."""
    fig = style.new_figure((4.0, 3.0))
    ax = fig.add_subplot()
    ax.plot([1, 10], [1, 2])
    fig.canvas.draw()  # its ticks placed once outside

    def locs():
        return [float(t.get_loc()) for t in ax.xaxis._update_ticks()]

    with tickplaces.placed_once():
        first = locs()
        ax.set_xlim(0, 100)
        wider = locs()
        ax.xaxis.set_major_locator(matplotlib.ticker.FixedLocator([5, 50]))
        fixed = locs()
        ax.set_xlim(4, 6)
        fig.set_size_inches(1.0, 3.0)
        narrow = locs()
    assert first[0] >= 1 and wider[-1] == 100 and fixed == [5.0, 50.0] and narrow == [5.0]
