"""Mutants of ``ascend_p2p_lab/measure/outcomes.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.outcomes.fault_codes_ignored",
        "measure/outcomes.py",
        ('kind = "refused" if exc.from_copy and not exc.device_fault else "runtime"'),
        'kind = "refused" if exc.from_copy else "runtime"',
        ("a broken device on a direct copy is reported as a refusal (a result)"),
    ),
    M(
        "measure.outcomes.always_refused",
        "measure/outcomes.py",
        ('kind = "refused" if exc.from_copy and not exc.device_fault else "runtime"'),
        'kind = "refused"',
        "every failed direct copy is a refusal",
    ),
    M(
        "measure.outcomes.verification_reversed",
        "measure/outcomes.py",
        ('at = "pinned host memory" if dst is None else f"device {dst}"'),
        ('at = "pinned host memory" if dst is None else f"device {src}"'),
        ("a verification failure names the source as the device with wrong bytes"),
    ),
]
