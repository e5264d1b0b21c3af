"""Ticks placed once: while :func:`placed_once` is active, matplotlib places an axis's
ticks (locations, labels, which are in view) and measures their labels' boxes once per
state of the axis, and reuses them.

A figure's layout and draw ask each axis for its ticks many times over (its tight box,
each spine's box, its label's and the title's positions, the draw itself: about 110
times per figure of a report), and every time the locator, the formatter and each tick's
position and label are computed and set again, though nothing changed. Ticks are a pure
function of what the key holds: the view interval, the locators, formatters and scale in
use, the axes' box in pixels (a locator may count the room it has), the dpi and the
number of tick objects. :func:`~.style.finish` and :func:`~.style.save_png` hold it while
they lay out and draw a finished figure (nothing but its size changes meanwhile); the
figures are the same to the pixel (``tests/plots/test_tickplaces.py``).

Example:
    >>> with placed_once():
    ...     pass
"""

from __future__ import annotations

from typing import Any

from matplotlib.axis import Axis

from .textsizes import Swap

_original = Axis._update_ticks
_original_boxes = Axis._get_ticklabel_bboxes
_placed: dict[tuple[Any, ...], list[Any]] = {}
_boxes: dict[tuple[Any, ...], tuple[list[Any], list[Any]]] = {}


def _key(axis: Axis) -> tuple[Any, ...]:
    """What the axis's ticks depend on (the axis itself by identity)."""
    return (
        id(axis),
        *map(float, axis.get_view_interval()),
        id(axis.major.locator),
        id(axis.major.formatter),
        id(axis.minor.locator),
        id(axis.minor.formatter),
        id(axis._scale),
        axis.axes.bbox.bounds,
        axis.axes.get_figure(root=True).dpi,
        len(axis.majorTicks),
        len(axis.minorTicks),
    )


def _update_ticks(self: Axis) -> list[Any]:
    """``Axis._update_ticks``, placed once per state (kept under the state it leaves)."""
    hit = _placed.get(_key(self))
    if hit is None:
        hit = _original(self)
        _placed[_key(self)] = hit  # the state after: more tick objects, maybe
    return list(hit)


def _get_ticklabel_bboxes(self: Axis, ticks: list[Any], renderer: Any) -> Any:
    """``Axis._get_ticklabel_bboxes``, measured once per state of the axis, these ticks
    and the renderer's dpi (the boxes handed out as copies)."""
    key = (_key(self), *map(id, ticks), type(renderer), getattr(renderer, "dpi", None))
    hit = _boxes.get(key)
    if hit is None:
        hit = _boxes[key] = _original_boxes(self, ticks, renderer)
    return [b.frozen() for b in hit[0]], [b.frozen() for b in hit[1]]


#: The two methods, swapped in by :func:`placed_once` (``textsizes.Swap``).
_SWAP = Swap(
    [
        (Axis, "_update_ticks", _update_ticks),
        (Axis, "_get_ticklabel_bboxes", _get_ticklabel_bboxes),
    ],
    [_placed, _boxes],
)


def placed_once() -> Swap:
    """Within (``with placed_once():``): each axis's ticks placed once per state (nested
    uses share one cache, emptied when the outermost ends, so no axis outlives its entry)."""
    return _SWAP
