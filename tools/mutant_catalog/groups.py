"""Mutants of group and card patterns."""

from __future__ import annotations

from tools.mutant_catalog.base import (
    GROUPS,
    M,
    Mutant,
)

MUTANTS: list[Mutant] = [
    # ------------------------------------------------------------------ groups and cards
    M("groups.no_port_cap", "measure/rows.py",
      "port = topo.port_GBps if topo.port_GBps is not None else math.inf",
      "port = math.inf",
      "switched links of a group are not capped by the device's port", GROUPS),
    M("groups.card_matrix_transposed", "matrices.py",
      "frame.loc[card_label(a), card_label(b)] = float(v)",
      "frame.loc[card_label(b), card_label(a)] = float(v)",
      "a card matrix with sending cards as columns", GROUPS),
    M("groups.cards_ignore_sio", "vocab.py",
      'CARD_LINKS: tuple[str, ...] = ("SIO",)', 'CARD_LINKS: tuple[str, ...] = ("HCCS_SW",)',
      "cards found from the wrong link class", GROUPS),
    M("groups.summary_key_lost", "schema.py",
      '"src", "dst", "group",\n              "test"', '"src", "dst",\n              "test"',
      "every group pair summarized as one point", GROUPS),
    M("aggregates.bi_one_direction", "plots/aggregates.py",
      'rows.loc[bi, "bandwidth_GBps"] = rows.loc[bi, "bidir_total_GBps"]',
      'rows.loc[bi, "bandwidth_GBps"] = rows.loc[bi, "bandwidth_GBps"]',
      "a bidirectional group's bar shows one direction, not the total", GROUPS),
    M("aggregates.bi_nominal_once", "plots/aggregates.py",
      'rows.loc[bi, "nominal_GBps"] = 2 * rows.loc[bi, "nominal_GBps"]',
      'rows.loc[bi, "nominal_GBps"] = rows.loc[bi, "nominal_GBps"]',
      "a bidirectional group's total beside one direction's nominal rate", GROUPS),
    M("aggregates.card_heatmap_transposed", "plots/aggregates.py",
      "    frame = m.frame\n", "    frame = m.frame.T\n",
      "the card heatmap with sending cards as columns", GROUPS),
    M("reports.no_card_matrix", "plots/reports.py",
      "    jobs += _cards(run)\n", "",
      "report() leaves the card matrices out", GROUPS),
]
