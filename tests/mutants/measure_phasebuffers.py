"""Mutants of ``ascend_p2p_lab/measure/phasebuffers.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.phasebuffers.verification_blind",
        "measure/phasebuffers.py",
        ("            if got != piece_bytes(*origin, w, n):\n                return False"),
        ("            if got is None:\n                return False"),
        "the verification reads the bytes and never compares them",
        tests=("tests/collectives/test_collectives.py",),
    ),
    M(
        "measure.phasebuffers.not_zeroed",
        "measure/phasebuffers.py",
        "        for buf in self.made:\n            rt.memset(buf, 0)\n",
        "",
        "a collective's buffers keep what the memory held (a previous point's bytes)",
    ),
]
