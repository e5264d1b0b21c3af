"""Mutants of ``ascend_p2p_lab/check/plan.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

MUTANTS: list[Mutant] = [
    M('check.plan.no_push', 'check/plan.py',
      'for initiator in PAIR_INITIATORS:',
      'for initiator in PAIR_INITIATORS[:1]:',
      ('the check never measures pushes, so push criteria are never '
       'judged'),
      (
       'tests/check/test_check.py',
       'tests/cli/test_check.py',
       'tests/check/test_derive.py',
       'tests/check/test_writer.py',)),
]
