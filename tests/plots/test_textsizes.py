"""Text measured once (``plots/textsizes.py``): inside :func:`measured_once` each
distinct text is laid out by matplotlib once, whatever the number of layout passes and
figures, and each distinct string's glyphs once however often it is drawn (each glyph's
bitmap once per sub-pixel offset); the figures
are the same PNG bytes as without it, and on leaving it matplotlib is as it was."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import pytest
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.text import Text

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.plots import bandwidth_vs_size, heatmap, textsizes
from ascend_p2p_lab.plots.style import save_png


@pytest.fixture(scope="module")
def run():
    """An asymmetric run: 0 -> 1 and 1 -> 0, and 2 -> 5 only (its transpose absent)."""
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        return sweep(rt, pairs="0-1,1-0,2-5", sizes="64KiB,4MiB", samples=1, warmup=0)


def _pngs(run) -> list[bytes]:
    out = []
    for fig in (heatmap(run), heatmap(run, size="64KiB"), bandwidth_vs_size(run)):
        buf = io.BytesIO()
        save_png(fig, buf)
        out.append(buf.getvalue())
    return out


def test_the_same_bytes_with_each_text_measured_once(run, monkeypatch) -> None:
    plain_calls = []
    original = textsizes._original

    def counted_plain(self, renderer):
        plain_calls.append(self.get_text())
        return original(self, renderer)

    monkeypatch.setattr(Text, "_get_layout", counted_plain)
    plain = _pngs(run)
    monkeypatch.undo()
    keys = []

    def counted(self, renderer):
        keys.append(textsizes._key(self, renderer))
        return original(self, renderer)

    monkeypatch.setattr(textsizes, "_original", counted)
    with textsizes.measured_once():
        assert Text._get_layout is textsizes._get_layout
        once = _pngs(run)
    assert once == plain
    measured = [k for k in keys if k is not None]  # math text goes past the cache
    assert len(measured) == len(set(measured))  # each distinct text once
    assert len(keys) * 5 < len(plain_calls)  # where the three figures measured ~20 times more
    assert Text._get_layout is original is not textsizes._get_layout  # put back
    assert RendererAgg.draw_text is textsizes._original_draw is not textsizes._draw_text
    assert textsizes._glyphs == {}  # emptied on leaving
    assert textsizes._layouts == {}


def test_a_nested_use_keeps_the_cache_until_the_outermost_ends() -> None:
    with textsizes.measured_once():
        with textsizes.measured_once():
            pass
        assert Text._get_layout is textsizes._get_layout
    assert Text._get_layout is textsizes._original


def test_each_strings_glyphs_laid_out_once_and_each_glyph_rendered_once(run, monkeypatch):
    """The heatmaps draw "0".."7" on both axes, their cell texts, colour bar labels at
    another size: each (string, font, size) laid out once, each glyph's bitmap rendered
    once per sub-pixel offset; the pixels as matplotlib's."""
    plain = _pngs(run)
    texts, glyphs, laid = [], [], []
    draw = textsizes._draw_glyphs

    def counted_draw(self, gc, x, y, angle, size, items):
        texts.append(1)
        glyphs.extend(items)
        return draw(self, gc, x, y, angle, size, items)

    def counting(into: list) -> dict:
        class Counted(dict):  # what is stored, counted as it is stored
            def __setitem__(self, key, value):
                into.append(key)
                super().__setitem__(key, value)

        return Counted()

    rendered: list = []
    monkeypatch.setattr(textsizes, "_draw_glyphs", counted_draw)
    monkeypatch.setattr(textsizes, "_glyphs", counting(laid))
    monkeypatch.setattr(textsizes, "_bitmaps", counting(rendered))
    with textsizes.measured_once():
        assert RendererAgg.draw_text is textsizes._draw_text
        once = _pngs(run)
    assert once == plain
    assert len(laid) == len(set(laid))  # each string laid out once
    assert len(laid) * 3 < len(texts)
    assert len(rendered) == len(set(rendered))  # each glyph at each offset rendered once
    assert len(rendered) * 1.1 < len(glyphs)  # the others drawn from bitmaps kept
    assert RendererAgg.draw_text is textsizes._original_draw


def test_math_rotated_and_unsmoothed_text_drawn_as_matplotlib_draws_them() -> None:
    from ascend_p2p_lab.plots.style import new_figure

    def png() -> bytes:
        fig = new_figure((3.0, 2.0))
        fig.text(0.1, 0.5, r"$\mu$s per copy $2^{10}$", fontsize=11)
        fig.text(0.1, 0.2, "plain µs", fontsize=11, rotation=15)
        fig.text(0.6, 0.2, "mono", fontsize=9, antialiased=False)  # 0/1 bitmaps
        buf = io.BytesIO()
        save_png(fig, buf)
        return buf.getvalue()

    plain = png()
    with textsizes.measured_once():
        once = png()
        assert [k[0] for k in textsizes._glyphs] == ["plain µs", "mono"]  # math went past
    assert once == plain
