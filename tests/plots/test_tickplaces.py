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


# ------------------------------------------------------------------------------ tick objects
def test_the_same_bytes_with_ticks_copied(run, monkeypatch) -> None:
    """A matrix, a log-log curve (minor ticks) and a curve with a legend: the same PNG
    bytes with each axis's ticks after its first copied from the first; matplotlib
    builds one tick per axis and kind, not one per tick."""
    built = {"n": 0}
    real = Axis._get_tick

    def counted(self, major):
        built["n"] += 1
        return real(self, major)

    monkeypatch.setattr(Axis, "_get_tick", counted)
    plain = _pngs(run)
    by_matplotlib, built["n"] = built["n"], 0
    with tickplaces.ticks_copied():
        copied = _pngs(run)
    assert copied == plain
    assert built["n"] < by_matplotlib / 4
    assert Axis.get_major_ticks is tickplaces._original_major  # put back on leaving


def _axis_with_ticks(n: int):
    fig = style.new_figure((4.0, 3.0))
    ax = fig.add_subplot()
    ax.set_xticks(range(n))
    return ax.xaxis


def test_a_copied_tick_is_what_matplotlib_makes() -> None:
    """The first tick's properties (its label's colour and size, its line's width) on
    every tick, as Axis._copy_tick_props gives them; each tick's own font, callbacks and
    place: one label grown, one tick moved, the others as they were."""
    with tickplaces.ticks_copied():
        axis = _axis_with_ticks(1)
        first = axis.get_major_ticks()[0]
        first.label1.set_color("#b00020")
        first.label1.set_fontsize(13)
        first.tick1line.set_markeredgewidth(3.0)
        ticks = axis.get_major_ticks(4)
    assert len({id(t) for t in ticks}) == 4
    for tick in ticks[1:]:
        assert tick.label1.get_color() == "#b00020" and tick.label1.get_fontsize() == 13
        assert tick.tick1line.get_markeredgewidth() == 3.0
        for part in tickplaces.PARTS:
            assert getattr(tick, part) is not getattr(first, part)
    seen: list[object] = []
    ticks[2].label1.add_callback(seen.append)
    ticks[1].label1.set(fontsize=5)  # pchanged: its own callbacks only
    ticks[1].update_position(7.0)
    assert ticks[2].label1.get_fontsize() == 13 and first.label1.get_fontsize() == 13
    assert seen == [] and ticks[2].get_loc() != 7.0
    assert list(ticks[2].tick1line.get_xdata()) != [7.0]


def test_a_tick_whose_label_has_a_box_is_built_by_matplotlib(monkeypatch) -> None:
    """A copy would share the box's patch: matplotlib builds the tick (and, as its
    Axis._copy_tick_props does, gives it no box)."""
    built = {"n": 0}
    real = Axis._get_tick

    def counted(self, major):
        built["n"] += 1
        return real(self, major)

    with tickplaces.ticks_copied():
        axis = _axis_with_ticks(1)
        axis.get_major_ticks()[0].label1.set_bbox({"facecolor": "white"})
        monkeypatch.setattr(Axis, "_get_tick", counted)
        ticks = axis.get_major_ticks(3)
    assert built["n"] == 2 and ticks[2].label1.get_bbox_patch() is None
