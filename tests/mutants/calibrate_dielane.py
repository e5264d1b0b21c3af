"""Mutants of ``ascend_p2p_lab/calibrate/dielane.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "calibrate.dielane.lane_in_sio",
        "calibrate/dielane.py",
        "    return frame[~(chosen(frame, DIE_HCCS) | chosen(frame, DIE_BOTH))]",
        "    return frame",
        "the HCCS lane's and the dual path's rows are fitted into SIO",
    ),
]
