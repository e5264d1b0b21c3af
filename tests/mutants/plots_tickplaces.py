"""Mutants of ``ascend_p2p_lab/plots/tickplaces.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.tickplaces.size_not_keyed",
        "plots/tickplaces.py",
        "        axis.axes.bbox.bounds,\n",
        "",
        "an axis's ticks and label boxes kept across layout passes that move and resize it: "
        "the figure laid out around the first pass's label boxes",
    ),
    M(
        "plots.tickplaces.never_reused",
        "plots/tickplaces.py",
        "    hit = _placed.get(_key(self))",
        "    hit = None",
        "every axis's ticks placed again on every ask (the report's CPU as before)",
    ),
    M(
        "plots.tickplaces.font_shared",
        "plots/tickplaces.py",
        "        copy._fontproperties = artist._fontproperties.copy()\n",
        "        pass\n",
        "copied ticks share the first's font: one label grown grows them all",
    ),
    M(
        "plots.tickplaces.parts_shared",
        "plots/tickplaces.py",
        "        setattr(tick, part, _copied(getattr(first, part)))\n",
        "        setattr(tick, part, getattr(first, part))\n",
        "copied ticks share the first's lines and labels: every tick drawn at one place",
    ),
    M(
        "plots.tickplaces.boxed_label_copied",
        "plots/tickplaces.py",
        "        first.label1._bbox_patch is None and first.label2._bbox_patch is None\n",
        "        True\n",
        "a tick whose label has a box copied (its patch shared) instead of built",
    ),
    M(
        "plots.tickplaces.gate_off",
        "plots/tickplaces.py",
        "    _XYPair is not None\n",
        "    False\n",
        "ticks built by matplotlib even where this matplotlib allows copying them (the gate off)",
    ),
]
