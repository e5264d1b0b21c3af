"""The ``patterns`` command: the built-in tests, one per line, name first (as
``nvbandwidth -l``); with a name, that test as a test file for the server.

Example:
    $ ascend-p2p-lab patterns ring-bi --preset atlas800t-a2
"""

from __future__ import annotations

import argparse
from typing import Any

from ..patterns.builtin import (
    AS_FILES,
    BUILT_IN_SIZE,  # a built-in test's size by default
    DECLARATIONS,
    LINE_COLUMNS,
    as_file,
)
from ..texttable import print_table
from ..units import parse_sizes
from .options import add_backend, add_devices, add_sizes, subcommand

#: The command this module adds and runs.
NAME = "patterns"


def add(sub: Any) -> None:
    """``patterns [NAME]``: its options."""
    p = subcommand(
        sub,
        NAME,
        "list the built-in tests, one per line, name first; with a "
        "NAME, print that test as a test file for the server",
    )
    p.add_argument(
        "name",
        nargs="?",
        default=None,
        metavar="NAME",
        help="a built-in test made of transfers: print it as TOML for the server "
        "(--preset or --backend), ready to edit and `run`",
    )
    add_backend(p)
    add_devices(p, "the devices it expands over (default all)")
    add_sizes(p, f"its sizes (default {BUILT_IN_SIZE})")


def run(args: argparse.Namespace) -> int:
    from ..measure.spec import parse_devices
    from ..patterns.testfile import to_toml
    from .session import run_session

    if args.name is None:
        print_table((d.cells() for d in DECLARATIONS.values()), LINE_COLUMNS, header=False)
        return 0
    if args.name not in AS_FILES:
        raise ValueError(
            f"no built-in test {args.name!r} that prints as a test file; "
            f"built-in: {', '.join(AS_FILES)}"
        )
    sizes = parse_sizes(args.sizes or BUILT_IN_SIZE)

    def work(rt: Any) -> int:
        tests = as_file(rt, args.name, parse_devices(args.devices, rt.device_count))
        print(to_toml(tests, sizes), end="")
        return 0

    return run_session(args, work)
