"""Mutants of ``ascend_p2p_lab/terminal.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "terminal.summary_every_column",
        "terminal.py",
        "    good = rows[[c for c in rows.columns if c in SUMMARY_COLUMNS]][keep]",
        "    good = rows[keep]",
        "the summary selects its measured rows with every column of the run",
        tests=("tests/test_terminal.py::test_the_summary_reads_only_its_columns",),
    ),
    M(
        "terminal.report_without_the_table",
        "terminal.py",
        ("    ops = op_rows(rows)\n    if len(ops):"),
        ("    ops = op_rows(rows)\n    if False:"),
        "report prints no collectives table (issue 30 item 8)",
    ),
    M(
        "terminal.terminal_own_tags",
        "terminal.py",
        '                f"{v:.{digits}f}" if k is None else TAGS.get(k) or numbered[r]',
        '                f"{v:.{digits}f}" if k is None else {"not_measured": "-"}.get(k) or "FAIL"',
        "the terminal keeps its own tags for empty cells",
        tests=(
            "tests/test_emptycells.py::test_terminal_figures_and_dashboard_explain_an_empty_cell_alike",
        ),
    ),
    M(
        "terminal.guessed_soc_unmarked",
        "terminal.py",
        '    return f"{soc} (guessed)" if soc and "soc_name" in (meta.guessed or {}) else soc',
        "    return soc",
        "a guessed SoC is printed in the run's header as if the device reported it",
        tests=("tests/cli/test_cmd_collectives.py",),
    ),
]
