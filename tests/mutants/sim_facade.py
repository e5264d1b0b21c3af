"""Mutants of ``ascend_p2p_lab/sim/facade.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.facade.out_budget_is_ingress",
        "sim/facade.py",
        (
            '                ("out", limit.egress_GBps),\n'
            '                ("in", limit.ingress_GBps),'
        ),
        (
            '                ("out", limit.ingress_GBps),\n'
            '                ("in", limit.egress_GBps),'
        ),
        "egress and ingress budgets swapped",
    ),
    M(
        "sim.facade.out_budget_dropped",
        "sim/facade.py",
        ("                if budget is not None:"),
        ('                if budget is not None and kind != "out":'),
        "a group's egress budget left out of the engine",
    ),
    M(
        "sim.facade.ints_unchecked",
        "sim/facade.py",
        ("                if type(value) is not int:\n                    check(args)\n"),
        ("                if False:\n                    check(args)\n"),
        ("a checked call takes a float or a string for an int (no TypeError)"),
    ),
    M(
        "sim.facade.ints_arity_unchecked",
        "sim/facade.py",
        (
            "            if len(args) != arity:\n"
            "                check(args)  # raises the arity error\n"
        ),
        "",
        ("a checked call with too few or too many arguments reaches its handler"),
    ),
    M(
        "sim.facade.lock_policy_ignored",
        "sim/facade.py",
        "        if not call.locked:\n",
        "        if False:\n",
        "a call declared locked=False waits for the simulator's lock (and is counted)",
        ("tests/sim/test_facade.py",),
    ),
    M(
        "sim.facade.plans_always_kept",
        "sim/facade.py",
        "                None if call.keeps_plans else self._copies.clear,\n",
        "                None,\n",
        "a call that can change what a copy resolves to leaves the kept copies in place",
        ("tests/sim/test_facade.py", "tests/sim/test_memory.py"),
    ),
]
