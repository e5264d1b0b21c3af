"""Mutants of ``ascend_p2p_lab/cli/cmd_dashboard.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "cli.cmd_dashboard.dashboard_port_unchecked",
        "cli/cmd_dashboard.py",
        "    if args.port and not port_is_free(args.port):",
        "    if False:",
        "a port in use is found by Voilà after 'serving at ...'",
    ),
    M(
        "cli.cmd_dashboard.dashboard_sigterm_orphans",
        "cli/cmd_dashboard.py",
        "    previous = signal.signal(signal.SIGTERM, _on_sigterm)",
        "    previous = signal.getsignal(signal.SIGTERM)",
        ("SIGTERM ends the command and leaves Voilà and its kernels serving"),
    ),
]
