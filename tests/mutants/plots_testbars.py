"""Mutants of ``ascend_p2p_lab/plots/testbars.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import COMMAND_TESTS, SWEEP_TESTS, M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.testbars.aggregate_by_label",
        "plots/testbars.py",
        'agg = st["transfer"].isna().to_numpy()',
        'agg = st["transfer"].notna().to_numpy()',
        ("the test bars colour each transfer as the aggregate and the aggregate as a transfer"),
        (
            "tests/plots/test_style.py",
            "tests/plots/test_testbars.py",
            "tests/cli/test_cmd_compare.py",
            "tests/cli/test_cmd_patterns.py",
            "tests/cli/test_cmd_run.py",
            *SWEEP_TESTS,
            "tests/patterns/test_testfile.py",
            "tests/patterns/test_model.py",
            *COMMAND_TESTS,
            "tests/patterns/test_builtin.py",
            "tests/widgets/test_dashboard.py",
        ),
    ),
    M(
        "plots.testbars.scaling_counts_aggregate",
        "plots/testbars.py",
        'count = st[st["transfer"].notna()].groupby("test").size()',
        'count = st.groupby("test").size()',
        "the scaling curve counts the aggregate as a transfer",
        (
            "tests/plots/test_testbars.py",
            "tests/cli/test_cmd_compare.py",
            "tests/cli/test_cmd_patterns.py",
            "tests/cli/test_cmd_run.py",
            *SWEEP_TESTS,
            "tests/patterns/test_testfile.py",
            "tests/patterns/test_model.py",
            *COMMAND_TESTS,
            "tests/patterns/test_builtin.py",
            "tests/widgets/test_dashboard.py",
        ),
    ),
    M(
        "plots.testbars.scaling_of_unrelated_tests",
        "plots/testbars.py",
        '    st = st[st["test"].isin(scaling_family(st))]\n',
        "",
        "the scaling curve is drawn through unrelated tests",
        ("tests/plots/test_testbars.py",),
    ),
]
