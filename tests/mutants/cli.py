"""Mutants of ``ascend_p2p_lab/cli/__init__.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "cli.toolkit_before_main",
        "cli/__init__.py",
        "from typing import TYPE_CHECKING, Any\n",
        "from typing import TYPE_CHECKING, Any\n\nfrom ..results import ResultsError  # noqa: F401\n",
        "the command line imports the toolkit before main() and its Ctrl-C handler (as "
        "before issue 42): --help loads pandas, a Ctrl-C in its first moments a traceback",
    ),
    M(
        "cli.runtime_errors_unseen",
        "cli/__init__.py",
        "    if isinstance(exc, _imported(_RUNTIME_ERRORS)):",
        "    if isinstance(exc, ()):",
        "main no longer finds the runtime's errors among the modules imported: a failed "
        "pyACL call is an internal error instead of its one line and exit 1",
    ),
]
