"""Mutants of ``ascend_p2p_lab/plots/heatmaps.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.heatmaps.vmin_ignored",
        "plots/heatmaps.py",
        "lo = 0.0 if vmin is None else vmin",
        "lo = 0.0",
        "heatmap(vmin=...) ignored",
    ),
    M(
        "plots.heatmaps.vmax_ignored",
        "plots/heatmaps.py",
        "hi = vmax if vmax is not None else (float(finite.max())",
        "hi = vmax if False else (float(finite.max())",
        "heatmap(vmax=...) ignored",
    ),
    M(
        "plots.heatmaps.link_cmap_reversed",
        "plots/heatmaps.py",
        "[LINK_COLORS[c] for c in LINK_ORDER]",
        "[LINK_COLORS[c] for c in LINK_ORDER[::-1]]",
        ("link matrix colour map not in npu-smi's order (colours swapped)"),
    ),
]
