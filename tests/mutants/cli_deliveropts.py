"""Mutants of ``ascend_p2p_lab/cli/deliveropts.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "cli.deliveropts.no_preflight",
        "cli/deliveropts.py",
        '    return preflight(criteria) if getattr(args, "preflight", False) else criteria',
        "    return criteria",
        "check --preflight runs the whole check",
    ),
    M(
        "cli.deliveropts.apply_without_kubectl",
        "cli/deliveropts.py",
        '    if args.apply and shutil.which("kubectl") is None:',
        "    if False:",
        "--apply without kubectl measures first and fails after",
    ),
]
