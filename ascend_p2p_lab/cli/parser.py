"""The command line's grammar: every subcommand in the order ``--help`` lists them, each
added by the module of its command (which owns its options and its run).

Example:
    >>> build_parser().parse_args(["sweep", "--pairs", "0-1"]).pairs
    '0-1'
"""

from __future__ import annotations

import argparse

from .._version import __version__
from .calibrate import add_calibrate
from .check import add_check, add_criteria
from .collectives import add_collectives
from .compare import add_compare
from .dashboard import add_dashboard
from .exitstatus import EXIT_STATUS
from .fleet import add_fleet
from .imports import add_import
from .info import add_presets, add_probe, add_sim_path, add_topo
from .options import Parser
from .runs import add_demo, add_report, add_sweep
from .testruns import add_patterns, add_run

#: Every subcommand's adder, in the order ``--help`` lists them.
SUBCOMMANDS = (
    add_presets,
    add_probe,
    add_topo,
    add_sweep,
    add_report,
    add_demo,
    add_compare,
    add_sim_path,
    add_calibrate,
    add_dashboard,
    add_fleet,
    add_import,
    add_criteria,
    add_check,
    add_patterns,
    add_run,
    add_collectives,
)


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
    for add in SUBCOMMANDS:
        add(sub)
    return parser
