"""Mutants of ``ascend_p2p_lab/cli/session.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "cli.session.teardown_failure_exits_0",
        "cli/session.py",
        "        return status if status == EXIT_INTERRUPTED else max(status, EXIT_FAILED)",
        "        return status",
        "a teardown that fails after clean results exits 0",
    ),
    M(
        "cli.session.failed_work_not_closed",
        "cli/session.py",
        "    except BaseException:\n        try:\n            rt.close()",
        "    except BaseException:\n        try:\n            pass",
        "a command whose work raises leaves the runtime open",
    ),
    M(
        "cli.session.interrupted_teardown_exits_1",
        "cli/session.py",
        "        return status if status == EXIT_INTERRUPTED else max(status, EXIT_FAILED)",
        "        return EXIT_FAILED",
        "an interrupted command whose teardown fails exits 1, not 130",
    ),
]
