"""The ``presets`` command: the simulated servers, one per line.

Example:
    $ ascend-p2p-lab presets
"""

from __future__ import annotations

import argparse
from typing import Any

from .options import subcommand

#: The command this module adds and runs.
NAME = "presets"


def run(args: argparse.Namespace) -> int:
    from ..topology import preset_summary

    rows = preset_summary()
    w = max(len(r["name"]) for r in rows)
    print(f"{'preset':<{w}}  devices  {'SoC':<15} links                 description")
    for r in rows:
        links = ",".join(r["link_classes"]) or "-"
        print(
            f"{r['name']:<{w}}  {r['device_count']:>7}  {r['soc_name']:<15} {links:<21} "
            f"{r['description']}"
        )
    return 0


def add(sub: Any) -> None:
    """``presets``: no options."""
    subcommand(sub, NAME, "list the simulated servers")
