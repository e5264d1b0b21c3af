"""Mutants of ``ascend_p2p_lab/plots/testbars.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.testbars.aggregate_by_label",
        "plots/testbars.py",
        'agg = st["transfer"].isna().to_numpy()',
        'agg = st["transfer"].notna().to_numpy()',
        ("the test bars colour each transfer as the aggregate and the aggregate as a transfer"),
    ),
    M(
        "plots.testbars.scaling_counts_aggregate",
        "plots/testbars.py",
        'count = st[st["transfer"].notna()].groupby("test").size()',
        'count = st.groupby("test").size()',
        "the scaling curve counts the aggregate as a transfer",
    ),
    M(
        "plots.testbars.scaling_of_unrelated_tests",
        "plots/testbars.py",
        '    st = st[st["test"].isin(scaling_family(st))]\n',
        "",
        "the scaling curve is drawn through unrelated tests",
    ),
]
