"""Mutants of ``ascend_p2p_lab/cli/runoutput.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "cli.runoutput.report_exits_130",
        "cli/runoutput.py",
        (
            "    if read_from is not None and status == "
            "EXIT_INTERRUPTED:\n"
            "        status = EXIT_FAILED\n"
        ),
        "",
        "report of an interrupted run exits 130",
        tests=(
            "tests/cli/test_cmd_report.py::test_report_of_an_interrupted_run_is_not_itself_interrupted",
        ),
    ),
]
