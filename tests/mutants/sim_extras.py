"""Mutants of ``ascend_p2p_lab/sim/extras.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.extras.point_keeps_old_origin",
        "sim/extras.py",
        ("            rebased = self._engine.rebase(self._streams.events.values())"),
        "            rebased = True",
        ("a point starts wherever the clock stands (its rows depend on what ran before)"),
        tests=(
            "tests/measure/test_checkpoint.py::test_a_resumed_sweep_with_jitter_equals_an_uninterrupted_one",
        ),
    ),
]
