"""Text measured once: while :func:`measured_once` is active, matplotlib lays out each
distinct text (its string, font, size, rotation, alignment and line spacing, at one dpi)
once and reuses the result in every later layout pass, tight box and draw, of this figure
and of the next ones; and the Agg renderer lays out each distinct string's glyphs (its
font, size, dpi, hinting) once, and renders each glyph once per sub-pixel offset,
drawing them where each text goes.

A figure is laid out several times before it is saved (:func:`~.style.finish` grows it
until its titles and legends fit, then the save draws it), and each pass measures every
tick label, title and legend entry again: most of a report's layout time; and a report
draws the same few strings (tick labels, cell codes, numbers) hundreds of times. Both
are pure functions of what their keys hold, so the figures are the same to the pixel
(``tests/plots/test_textsizes.py``). :class:`Swap` is how this module and
:mod:`~.tickplaces` put their caches into matplotlib and take them out again.

Example:
    >>> with measured_once():
    ...     pass
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.backends.backend_agg import RendererAgg, get_hinting_flag
from matplotlib.font_manager import FontProperties
from matplotlib.ft2font import FT2Font
from matplotlib.text import Text

try:  # matplotlib >= 3.10 (its Agg renderer draws glyph by glyph from 3.11)
    from matplotlib.ft2font import RenderMode
except ImportError:  # pragma: no cover - older matplotlib: its own draw_text, uncached
    RenderMode = None


class Swap:
    """Methods swapped into matplotlib's classes while a ``with`` block of this runs:
    nested blocks share one swap; leaving the outermost puts back the methods found on
    entering it and empties the caches (so no figure outlives its entries)."""

    def __init__(
        self, methods: Sequence[tuple[type, str, Callable[..., Any]]], caches: Sequence[dict]
    ) -> None:
        self.methods, self.caches = list(methods), list(caches)
        self.depth = 0
        self.found: list[Any] = []

    def __enter__(self) -> None:
        if self.depth == 0:
            self.found = [getattr(cls, name) for cls, name, _ in self.methods]
            for cls, name, method in self.methods:
                setattr(cls, name, method)
        self.depth += 1

    def __exit__(self, *exc: object) -> None:
        self.depth -= 1
        if self.depth == 0:
            for (cls, name, _), method in zip(self.methods, self.found):
                setattr(cls, name, method)
            for cache in self.caches:
                cache.clear()


#: rcParams a text's measure depends on besides its own properties.
_RC = ("text.hinting", "text.hinting_factor", "text.kerning_factor")
_original = Text._get_layout
_layouts: dict[tuple[Any, ...], Any] = {}


def _font(p: FontProperties) -> tuple[Any, ...]:
    """What a font's measures depend on."""
    return (
        tuple(p.get_family()),
        p.get_style(),
        p.get_variant(),
        p.get_weight(),
        p.get_stretch(),
        p.get_size_in_points(),
        p.get_file(),
        p.get_math_fontfamily(),
    )


def _key(text: Text, renderer: Any) -> tuple[Any, ...] | None:
    """What the text's layout depends on; None for a text this cache leaves alone
    (wrapped, TeX or math text: they depend on more than the key holds)."""
    s = text.get_text()
    if text.get_wrap() or text.get_usetex() or "$" in s:
        return None
    return (
        s,
        *_font(text.get_fontproperties()),
        text.get_linespacing(),
        text._get_multialignment(),
        text.get_rotation(),
        text.get_rotation_mode(),
        text.get_horizontalalignment(),
        text.get_verticalalignment(),
        text.get_figure(root=True).dpi,
        type(renderer),
        getattr(renderer, "dpi", None),
        *(mpl.rcParams[k] for k in _RC),
    )


def _get_layout(self: Text, renderer: Any) -> Any:
    """``Text._get_layout``, each distinct text computed once (the bbox copied out)."""
    key = _key(self, renderer)
    if key is None:
        return _original(self, renderer)
    hit = _layouts.get(key)
    if hit is None:
        hit = _layouts[key] = _original(self, renderer)
    bbox, lines, box = hit
    return bbox.frozen(), lines, box


_original_draw = RendererAgg.draw_text
_glyphs: dict[tuple[Any, ...], list[tuple[Any, int, float, float]]] = {}


def _draw_text(
    self: RendererAgg,
    gc: Any,
    x: float,
    y: float,
    s: str,
    prop: FontProperties,
    angle: float,
    ismath: Any = False,
    mtext: Any = None,
) -> None:
    """``RendererAgg.draw_text`` (as matplotlib 3.11 writes it), each distinct string's
    glyphs laid out once per font, size, dpi and hinting; math text as it is."""
    if ismath:
        return _original_draw(self, gc, x, y, s, prop, angle, ismath, mtext)
    features = mtext.get_fontfeatures() if mtext is not None else None
    language = mtext.get_language() if mtext is not None else None
    flags = get_hinting_flag()
    key = (s, *_font(prop), self.dpi, flags, features, language, *(mpl.rcParams[k] for k in _RC))
    try:
        glyphs = _glyphs.get(key)
    except TypeError:  # a language given as a list of spans: not a key
        return _original_draw(self, gc, x, y, s, prop, angle, ismath, mtext)
    if glyphs is None:
        font = self._prepare_font(prop)
        items = font._layout(s, flags=flags, features=features, language=language)
        glyphs = _glyphs[key] = [(i.ft_object, i.glyph_index, i.x, i.y) for i in items]
    _draw_glyphs(self, gc, x, y, angle, prop.get_size_in_points(), glyphs)
    return None


_bitmaps: dict[tuple[Any, ...], tuple[np.ndarray, int, int]] = {}


def _draw_glyphs(
    self: RendererAgg,
    gc: Any,
    x: float,
    y: float,
    angle: float,
    size: float,
    glyphs: list[tuple[Any, int, float, float]],
) -> None:
    """``RendererAgg._draw_text_glyphs_and_boxes`` for a text's glyphs (no boxes, no
    slant or stretch), each glyph's bitmap rendered once per font, size, dpi, rotation,
    hinting and sub-pixel offset (1/64 px, as FreeType places it): a whole-pixel shift
    moves the same bitmap."""
    cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    matrix = (0x10000 * np.array([[cos, -sin], [sin, cos]])).round().astype(int)
    flags, smooth = get_hinting_flag(), gc.get_antialiased()
    mode = RenderMode.NORMAL if smooth else RenderMode.MONO
    common = (size, self.dpi, tuple(matrix.flat), flags, smooth)
    height = self.height
    for font, index, dx, dy in glyphs:
        px = round(0x40 * (x + dx * cos - dy * sin))  # dy is upwards, FreeType's y too
        py = round(0x40 * (height - y + dx * sin + dy * cos))
        key = (font, index, px & 63, py & 63, *common)
        hit = _bitmaps.get(key)
        if hit is None:
            font.set_size(size, self.dpi)
            font._set_transform(matrix, [px, py])
            bitmap = font._render_glyph(index, flags, mode)
            buffer = np.array(bitmap.buffer)  # a copy: FreeType reuses its glyph slot
            if not smooth:
                buffer *= 0xFF
            hit = _bitmaps[key] = (buffer, bitmap.left - (px >> 6), bitmap.top - (py >> 6))
        buffer, left, top = hit
        self._renderer.draw_text_image(
            buffer, left + (px >> 6), int(height) - (top + (py >> 6)) + buffer.shape[0], 0, gc
        )


#: Whether this matplotlib's Agg renderer lays out and renders glyphs as
#: :func:`_draw_text` does (3.11; the project allows >= 3.7, whose text is left alone).
GLYPHS_CACHED = (
    RenderMode is not None
    and hasattr(RendererAgg, "_draw_text_glyphs_and_boxes")
    and hasattr(FT2Font, "_layout")
    and hasattr(FT2Font, "_render_glyph")
)
#: Both caches, swapped in by :func:`measured_once`.
_SWAP = Swap(
    [(Text, "_get_layout", _get_layout)]
    + ([(RendererAgg, "draw_text", _draw_text)] if GLYPHS_CACHED else []),
    [_layouts, _glyphs, _bitmaps],
)


def measured_once() -> Swap:
    """Within (``with measured_once():``): every text's layout measured once and every
    string's glyphs laid out once (nested uses share the caches, emptied when the
    outermost ends)."""
    return _SWAP
