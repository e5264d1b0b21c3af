"""Text measured once: while :func:`measured_once` is active, matplotlib lays out each
distinct text (its string, font, size, rotation, alignment and line spacing, at one dpi)
once and reuses the result in every later layout pass, tight box and draw, of this figure
and of the next ones.

A figure is laid out several times before it is saved (:func:`~.style.finish` grows it
until its titles and legends fit, then the save lays it out once more and draws it), and
each pass measures every tick label, title and legend entry again: most of a report's
layout time. The measurement is a pure function of what the key holds, so the figures
are the same to the pixel (``tests/plots/test_textsizes.py``).

Example:
    >>> with measured_once():
    ...     pass
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import matplotlib as mpl
from matplotlib.text import Text

#: rcParams a text's measure depends on besides its own properties.
_RC = ("text.hinting", "text.hinting_factor", "text.kerning_factor")
_original = Text._get_layout
_layouts: dict[tuple[Any, ...], Any] = {}
_depth = 0


def _key(text: Text, renderer: Any) -> tuple[Any, ...] | None:
    """What the text's layout depends on; None for a text this cache leaves alone
    (wrapped, TeX or math text: they depend on more than the key holds)."""
    s = text.get_text()
    if text.get_wrap() or text.get_usetex() or "$" in s:
        return None
    p = text.get_fontproperties()
    return (
        s,
        tuple(p.get_family()),
        p.get_style(),
        p.get_variant(),
        p.get_weight(),
        p.get_stretch(),
        p.get_size_in_points(),
        p.get_file(),
        p.get_math_fontfamily(),
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


@contextmanager
def measured_once() -> Iterator[None]:
    """Within: every text's layout measured once (nested uses share one cache, emptied
    when the outermost ends)."""
    global _depth
    if _depth == 0:
        Text._get_layout = _get_layout  # type: ignore[method-assign]
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            Text._get_layout = _original  # type: ignore[method-assign]
            _layouts.clear()
