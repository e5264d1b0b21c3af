"""Mutants of ``ascend_p2p_lab/sim/faults.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.faults.lost_keeps_internal_error",
        "sim/faults.py",
        "        if self.kind == DEVICE_LOST_FAULT and self.code == ACL_ERROR_RT_DRV_INTERNAL_ERROR:",
        "        if False:",
        "a lost device fails with the driver's internal error, not the lost heartbeat",
    ),
]
