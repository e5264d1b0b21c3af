"""Mutants of ``ascend_p2p_lab/collectives/reduction.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "collectives.reduction.never_inline",
        "collectives/reduction.py",
        "    return rule is not None and dtype in rule[0] and op in rule[1]",
        "    return False",
        "HCCL's reduction is always a separate pass, as the model had it before",
    ),
    M(
        "collectives.reduction.any_type_inline",
        "collectives/reduction.py",
        "    return rule is not None and dtype in rule[0] and op in rule[1]",
        "    return rule is not None and op in rule[1]",
        "every data type reduces inline where the chip does (int64, fp64 too)",
    ),
    M(
        "collectives.reduction.bare_910b_is_an_a2",
        "collectives/reduction.py",
        '    if name.startswith("910B") and name[4:5].isdigit():',
        '    if name.startswith("910B"):',
        "a bare Ascend910B (an A1 SoC version) is taken for an A2",
    ),
]
