"""The command line's grammar: the table of commands (one module each, ``cli/cmd_<name>.py``,
which owns its options and its run), in the order ``--help`` lists them.

Example:
    >>> build_parser().parse_args(["sweep", "--pairs", "0-1"]).pairs
    '0-1'
"""

from __future__ import annotations

import argparse

from .._version import __version__
from . import (
    cmd_baseline,
    cmd_calibrate,
    cmd_check,
    cmd_collectives,
    cmd_compare,
    cmd_criteria,
    cmd_dashboard,
    cmd_demo,
    cmd_exporter,
    cmd_fleet,
    cmd_history,
    cmd_import,
    cmd_patterns,
    cmd_presets,
    cmd_probe,
    cmd_report,
    cmd_run,
    cmd_sim_path,
    cmd_sweep,
    cmd_topo,
)
from .exitstatus import EXIT_STATUS
from .options import Parser

#: Every command's module, in the order ``--help`` lists them: each names its command
#: (``NAME``), adds its subcommand and options (``add``) and runs it (``run``).
COMMANDS = (
    *(cmd_presets, cmd_probe, cmd_topo, cmd_sweep, cmd_report, cmd_demo, cmd_compare, cmd_sim_path),
    *(cmd_calibrate, cmd_dashboard, cmd_fleet, cmd_import, cmd_criteria, cmd_check, cmd_exporter),
    *(cmd_patterns, cmd_run, cmd_collectives, cmd_history, cmd_baseline),
)
#: Each command's module by its name.
BY_NAME = {command.NAME: command for command in COMMANDS}


def build_parser() -> argparse.ArgumentParser:
    """The ``ascend-p2p-lab`` parser with every subcommand."""
    parser = Parser(
        prog="ascend-p2p-lab",
        description="Probe, toggle and measure P2P copies between Ascend NPUs.",
        epilog=EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS:
        command.add(sub)
    return parser
