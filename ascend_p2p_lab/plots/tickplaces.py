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

While :func:`ticks_copied` is active (``plots.report`` holds it), an axis's ticks after
its first are copies of the first: matplotlib builds each tick (three lines with markers,
two texts), then copies the first tick's properties onto it, ~1 ms a tick, 368 ticks in
the A2 demo's report.

Example:
    >>> with placed_once():
    ...     pass
"""

from __future__ import annotations

from typing import Any

from matplotlib import cbook
from matplotlib.axis import Axis, Tick
from matplotlib.text import Text

try:  # private: the copies below rely on matplotlib's own artist internals
    from matplotlib.artist import _XYPair
except ImportError:  # another matplotlib: its ticks are built as it builds them
    _XYPair = None

from .textsizes import Swap

_original = Axis._update_ticks
_original_boxes = Axis._get_ticklabel_bboxes
_original_major = Axis.get_major_ticks
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


# ------------------------------------------------------------------------------ tick objects
#: A tick's parts, each an artist of its own.
PARTS = ("tick1line", "tick2line", "gridline", "label1", "label2")


def _copied(artist: Any) -> Any:
    """A shallow copy of an artist with its own callbacks, sticky edges and font (what
    an artist changes in place); the rest (arrays, paths, transforms, markers) matplotlib
    replaces, never changes, when a tick moves."""
    copy = object.__new__(type(artist))
    copy.__dict__.update(artist.__dict__)
    copy._callbacks = cbook.CallbackRegistry(signals=["pchanged"])
    copy._sticky_edges = _XYPair(list(artist.sticky_edges.x), list(artist.sticky_edges.y))
    if isinstance(artist, Text):
        copy._fontproperties = artist._fontproperties.copy()
    return copy


def cloned(first: Tick) -> Tick:
    """A new tick as matplotlib makes one (a tick of the axis's kind, then the first
    tick's properties copied onto it: ``Axis._copy_tick_props``), made by copying the
    first tick: ~0.1 ms against ~1 ms (three lines with markers and two texts built,
    then overwritten). Its place and label text are set when the axis places it."""
    tick = _copied(first)
    for part in PARTS:
        setattr(tick, part, _copied(getattr(first, part)))
    return tick


def _clonable(first: Tick) -> bool:
    """Whether a copy of the first tick is what matplotlib would make: its parts are
    plain (a label with a box drawn around it has a patch of its own)."""
    return all(hasattr(first, p) for p in PARTS) and (
        first.label1._bbox_patch is None and first.label2._bbox_patch is None
    )


def _ticks(axis: Axis, ticks: list[Tick], major: bool, numticks: int) -> list[Tick]:
    """``get_major_ticks`` / ``get_minor_ticks``: the first tick made by matplotlib, the
    others copied from it (:func:`cloned`)."""
    while len(ticks) < numticks:
        first = ticks[0]
        if _clonable(first):
            ticks.append(cloned(first))
        else:
            tick = axis._get_tick(major=major)
            ticks.append(tick)
            axis._copy_tick_props(first, tick)
    return ticks[:numticks]


def _get_major_ticks(self: Axis, numticks: int | None = None) -> list[Tick]:
    if numticks is None:
        numticks = len(self.get_majorticklocs())
    return _ticks(self, self.majorTicks, True, numticks)


def _get_minor_ticks(self: Axis, numticks: int | None = None) -> list[Tick]:
    if numticks is None:
        numticks = len(self.get_minorticklocs())
    return _ticks(self, self.minorTicks, False, numticks)


#: Whether this matplotlib has what :func:`cloned` copies (else :func:`ticks_copied`
#: swaps nothing in; ``test_a_copied_tick_is_what_matplotlib_makes`` checks the copy).
TICKS_COPIED = (
    _XYPair is not None
    and all(hasattr(Axis, m) for m in ("_get_tick", "_copy_tick_props"))
    and all(hasattr(Text(), a) for a in ("_bbox_patch", "_fontproperties", "_callbacks"))
)
#: The two methods, swapped in by :func:`ticks_copied` (no cache).
_COPY = Swap(
    [(Axis, "get_major_ticks", _get_major_ticks), (Axis, "get_minor_ticks", _get_minor_ticks)]
    if TICKS_COPIED
    else [],
    [],
)


def ticks_copied() -> Swap:
    """Within (``with ticks_copied():``): an axis's ticks after its first copied from the
    first (:func:`cloned`), where matplotlib builds each and copies the first's
    properties onto it; the same figures."""
    return _COPY
