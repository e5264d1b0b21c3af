"""Mutants of ``ascend_p2p_lab/widgets/dashboard.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "widgets.dashboard.dashboard_notice_on_stderr",
        "widgets/dashboard.py",
        "            else open_runtime(backend, preset, announce=False)",
        "            else open_runtime(backend, preset)",
        ("the dashboard's simulator notice goes to stderr (a pink error box in a kernel)"),
    ),
]
