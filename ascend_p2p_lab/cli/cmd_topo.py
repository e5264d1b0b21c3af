"""The ``topo`` command: the link-class matrix of ``npu-smi info -t topo`` text (or a
preset-schema TOML), no device needed.

Example:
    $ ascend-p2p-lab topo topo.txt --format json
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..vocab import EXIT_FAILED, EXIT_OK
from .exitstatus import EXIT_USAGE
from .options import add_format, subcommand

#: The command this module adds and runs.
NAME = "topo"


def run(args: argparse.Namespace) -> int:
    from ..terminal import print_grid
    from .output import output_for
    from .session import load_topology

    topo, out = load_topology(args.file), output_for(args.format, indent=2)
    out.json(
        lambda: {
            "backend": None,
            "preset": None,
            "source": str(args.file),
            "device_count": topo.device_count,
            "devices": list(topo.labels),
            "links": [list(r) for r in topo.links],
            "cpu_affinity": list(topo.cpu_affinity) or None,
        }
    )
    out.table(
        lambda: print_grid(
            f"{topo.device_count} devices from {args.file}",
            list(topo.labels),
            [list(r) for r in topo.links],
        )
    )
    return 0


TOPO_EPILOG = f"""\
exit status:
  {EXIT_OK}    the link-class matrix was printed (nothing is measured)
  {EXIT_FAILED}    an internal error (one line; the traceback goes to a file)
  {EXIT_USAGE}    a file that is neither npu-smi info -t topo text nor a preset TOML
       (FILE:LINE: why), or no such file
"""


def add(sub: Any) -> None:
    """``topo FILE``: the file and the output format."""
    p = subcommand(sub, NAME, "parse npu-smi info -t topo text")
    p.epilog = TOPO_EPILOG
    p.add_argument(
        "file", type=Path, help="a file of `npu-smi info -t topo` output, or a preset-schema TOML"
    )
    add_format(p, "the link-class matrix")
