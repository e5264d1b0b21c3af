"""Mutants of ``ascend_p2p_lab/check/collective.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.collective.criterion_of_any_op",
        "check/collective.py",
        '    on = [*keys, "operation", "size_bytes"]',
        '    on = [*keys, "size_bytes"]',
        "a collective criterion is judged on every op at its size",
    ),
    M(
        "check.collective.criterion_bound_inverted",
        "check/collective.py",
        'np.select([unseen, lost | bad, measured >= m["value"]], [SKIP, FAIL, PASS], FAIL)',
        'np.select([unseen, lost | bad, measured <= m["value"]], [SKIP, FAIL, PASS], FAIL)',
        "a collective item passes below its minimum",
    ),
]
