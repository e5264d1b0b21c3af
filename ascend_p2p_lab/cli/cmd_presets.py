"""The ``presets`` command: the simulated servers, one per line.

Example:
    $ ascend-p2p-lab presets
"""

from __future__ import annotations

import argparse
from typing import Any

from ..texttable import Column, print_table
from .options import subcommand

#: The command this module adds and runs.
NAME = "presets"
#: The table's columns: one preset per line.
COLUMNS = (
    Column("preset", fit=True),
    Column("devices", 7, ">"),
    Column("SoC", 15),
    Column("links", 21, gap=" "),
    Column("description", gap=" "),
)


def run(args: argparse.Namespace) -> int:
    from ..topology import preset_summary

    rows = preset_summary()
    links = [",".join(r["link_classes"]) or "-" for r in rows]
    keys = ("name", "device_count", "soc_name")
    print_table(([*map(r.get, keys), k, r["description"]] for r, k in zip(rows, links)), COLUMNS)
    return 0


def add(sub: Any) -> None:
    """``presets``: no options."""
    subcommand(sub, NAME, "list the simulated servers")
