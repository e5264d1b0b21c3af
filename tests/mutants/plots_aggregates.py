"""Mutants of ``ascend_p2p_lab/plots/aggregates.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.aggregates.bi_one_direction",
        "plots/aggregates.py",
        ('rows.loc[bi, "bandwidth_GBps"] = rows.loc[bi, "bidir_total_GBps"]'),
        ('rows.loc[bi, "bandwidth_GBps"] = rows.loc[bi, "bandwidth_GBps"]'),
        ("a bidirectional group's bar shows one direction, not the total"),
    ),
    M(
        "plots.aggregates.bi_nominal_once",
        "plots/aggregates.py",
        ('rows.loc[bi, "nominal_GBps"] = 2 * rows.loc[bi, "nominal_GBps"]'),
        'rows.loc[bi, "nominal_GBps"] = rows.loc[bi, "nominal_GBps"]',
        ("a bidirectional group's total beside one direction's nominal rate"),
    ),
    M(
        "plots.aggregates.card_heatmap_transposed",
        "plots/aggregates.py",
        "    frame = m.frame\n",
        "    frame = m.frame.T\n",
        "the card heatmap with sending cards as columns",
    ),
    M(
        "plots.aggregates.aggregates_size_in_mib",
        "plots/aggregates.py",
        'at {format_size(size)}\\n"',
        'at {size / (1 << 20):g} MiB\\n"',
        ("the aggregates figure says 1024 MiB where every other figure says 1 GiB"),
    ),
]
