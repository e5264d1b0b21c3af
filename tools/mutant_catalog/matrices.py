"""Mutants of terminal matrices and run comparison."""

from __future__ import annotations

from tools.mutant_catalog.base import (
    COMPARE,
    MATRICES,
    M,
    Mutant,
)

MUTANTS: list[Mutant] = [
    # ------------------------------------------------------------------ matrices, compare
    M("matrices.transposed", "matrices.py",
      "                                       device_count=n)\n",
      "                                       device_count=n).T\n",
      "a terminal/JSON matrix with rows and columns swapped", MATRICES),
    M("matrices.reason_transposed", "matrices.py",
      "else why.get((a, b), same if i == j and not by_group",
      "else why.get((b, a), same if i == j and not by_group",
      "an empty cell's reason taken from the opposite direction", MATRICES),
    M("matrices.smallest_size", "matrices.py",
      'return int(sizes.min() if pattern == LATENCY_PATTERN else sizes.max())',
      'return int(sizes.min())',
      "bandwidth matrices at the smallest size instead of the largest", MATRICES),
    M("matrices.no_total", "matrices.py",
      'if direction == "bi" and part["bidir_total_GBps"].notna().any():',
      'if direction == "both" and part["bidir_total_GBps"].notna().any():',
      "a bidirectional run without its both-directions matrix", MATRICES),
    M("matrices.devices_ignored", "matrices.py",
      "                frame = frame.loc[chosen, chosen]",
      "                pass",
      "a --devices sweep shows every device", MATRICES),
    M("compare.ratio_inverted", "comparison.py",
      'out["ratio"] = (out["run_GBps"] / out["baseline_GBps"])',
      'out["ratio"] = (out["baseline_GBps"] / out["run_GBps"])',
      "ratio = baseline / run", COMPARE),
    M("compare.below_reversed", "comparison.py",
      'out["below"] = (out["ratio"] < threshold) | lost',
      'out["below"] = (out["ratio"] > threshold) | lost',
      "below means above the threshold", COMPARE),
    M("compare.lost_not_below", "comparison.py",
      'out["below"] = (out["ratio"] < threshold) | lost',
      'out["below"] = out["ratio"] < threshold',
      "a lost point is not counted as below", COMPARE,
      harmless="a lost point's ratio is 0.0 (LOST_RATIO), below any threshold > 0 "
               "(check_threshold refuses <= 0), so the or is redundant"),
]
