"""Mutants of ``ascend_p2p_lab/plots/textsizes.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.textsizes.never_reused",
        "plots/textsizes.py",
        "    hit = _layouts.get(key)",
        "    hit = None",
        "every text measured again in every layout pass (the report's CPU as before)",
    ),
    M(
        "plots.textsizes.size_not_keyed",
        "plots/textsizes.py",
        "        p.get_size_in_points(),\n",
        "",
        "texts that differ only in their font size share one measure: titles and labels "
        "placed for another size",
    ),
    M(
        "plots.textsizes.left_installed",
        "plots/textsizes.py",
        "                setattr(cls, name, method)\n            for cache",
        "                pass\n            for cache",
        "matplotlib keeps the caches after the report (text sizes, glyphs, ticks: Swap "
        "serves textsizes and tickplaces): every later figure of the process (a "
        "notebook's) measured and drawn through them",
    ),
    M(
        "plots.textsizes.glyphs_never_reused",
        "plots/textsizes.py",
        "        glyphs = _glyphs.get(key)",
        "        glyphs = None",
        "every drawn text's glyphs laid out again (the report's CPU as before)",
    ),
    M(
        "plots.textsizes.glyph_font_not_keyed",
        "plots/textsizes.py",
        "    key = (s, *_font(prop), self.dpi,",
        "    key = (s, self.dpi,",
        "a string drawn at another size with the glyphs laid out for the first size",
    ),
    M(
        "plots.textsizes.subpixel_not_keyed",
        "plots/textsizes.py",
        "        key = (font, index, px & 63, py & 63, *common)",
        "        key = (font, index, *common)",
        "a glyph drawn with the bitmap rendered at another sub-pixel offset (text a "
        "fraction of a pixel off)",
    ),
    M(
        "plots.textsizes.bitmaps_never_reused",
        "plots/textsizes.py",
        "        hit = _bitmaps.get(key)",
        "        hit = None",
        "every glyph rendered again however often it was drawn (the report's CPU as before)",
    ),
]
