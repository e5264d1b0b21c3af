"""Mutants of ``ascend_p2p_lab/texttable.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "texttable.heading_trimmed",
        "texttable.py",
        "    out = [_line([c.head for c in columns], columns, widths, sep)] if header else []",
        "    out = [_line([c.head for c in columns], columns, widths, sep).rstrip()] if header else []",
        "hccl_test's heading loses the padding of a last left-aligned column (algorithm)",
    ),
    M(
        "texttable.gap_ignored",
        "texttable.py",
        "            parts.append(sep if col.gap is None else col.gap)",
        "            parts.append(sep)",
        "a column's own gap ignored: compare's ratio mark and the presets' links shift",
    ),
    M(
        "texttable.fit_ignored",
        "texttable.py",
        "        max([c.width, *(len(r[i]) for r in cells)]) if c.fit else c.width",
        "        c.width",
        "a fitted column no wider than its least width: the presets' names run into devices",
    ),
]
