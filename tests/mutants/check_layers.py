"""Mutants of ``ascend_p2p_lab/check/layers.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.layers.earlier_wins",
        "check/layers.py",
        'duplicated(keep="last")',
        'duplicated(keep="first")',
        "an earlier layer's bar wins over a later layer's for the same item",
    ),
    M(
        "check.layers.override_dropped",
        "check/layers.py",
        "    table = pd.concat([base.table, top.table], ignore_index=True)",
        "    table = base.table",
        "a later layer's bars are dropped",
    ),
    M(
        "check.layers.severity_not_merged",
        "check/layers.py",
        "        severity={**base.severity, **top.severity},",
        "        severity=base.severity,",
        "a later layer's [severity] table is ignored",
    ),
    M(
        "check.layers.size_moves",
        "check/layers.py",
        "        if key in given and getattr(top, key) != getattr(base, key) and len(base.table):",
        "        if False:",
        "a layer moves the size the bars below it hold at",
    ),
    M(
        "check.layers.overlay_first_ignores_model",
        "check/layers.py",
        "    if is_overlay(first) and model is not None:",
        "    if False:",
        "an overlay given first does not lie over the preset's model",
    ),
]
