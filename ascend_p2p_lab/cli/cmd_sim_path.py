"""The ``sim-path`` command: a folder whose ``acl`` package is the simulator, for
``PYTHONPATH`` (your own pyACL scripts on the simulated runtime).

Example:
    $ PYTHONPATH=$(ascend-p2p-lab sim-path) python my_pyacl_script.py
"""

from __future__ import annotations

import argparse
from typing import Any

from .options import subcommand

#: The command this module adds and runs.
NAME = "sim-path"


def run(args: argparse.Namespace) -> int:
    from ..sim import shim_path

    print(shim_path())
    return 0


def add(sub: Any) -> None:
    """``sim-path``: no options."""
    subcommand(sub, NAME, "print a folder whose `acl` package is the simulator")
