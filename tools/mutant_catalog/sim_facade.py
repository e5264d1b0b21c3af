"""Mutants of ``ascend_p2p_lab/sim/facade.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

#: the tests that should catch them
TESTS = (
    'tests/measure/test_sweep.py',
    'tests/sim/test_engine.py',
    'tests/topology/test_checks.py',
    'tests/sim/test_routes.py',
    'tests/test_terminal.py',
)

MUTANTS: list[Mutant] = [
    M('sim.facade.out_budget_is_ingress', 'sim/facade.py',
      '(("out", limit.egress_GBps), ("in", limit.ingress_GBps),',
      '(("out", limit.ingress_GBps), ("in", limit.egress_GBps),',
      'egress and ingress budgets swapped',
      TESTS),
    M('sim.facade.out_budget_dropped', 'sim/facade.py',
      ('                if budget is not None:\n'
       '                    cap['),
      ("                if budget is not None and kind != 'out':\n"
       '                    cap['),
      "a group's egress budget left out of the engine",
      TESTS),
]
