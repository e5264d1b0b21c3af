"""One runtime session for a command: the topology file read, the work done, the runtime
closed, and a teardown failure reported after the results.

Example:
    >>> load_topology(None) is None
    True
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..runtime import open_runtime
from ..terminal import EXIT_FAILED, EXIT_INTERRUPTED
from ..topology import load_topology_file, parse_npu_smi_topo
from .exitstatus import UsageError


def load_topology(path: Path | None) -> Any:
    if path is None:
        return None

    if path.is_dir():
        raise UsageError(
            f"{path}: is a folder; give the topology file (TOML or npu-smi info -t topo text)"
        )
    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    if path.suffix == ".toml":
        return load_topology_file(path)
    if path.stat().st_size > 1 << 20:
        raise UsageError(f"{path}: larger than 1 MiB; not npu-smi output")
    return parse_npu_smi_topo(path.read_bytes(), name=path.stem, source=str(path))


def run_session(
    args: argparse.Namespace,
    work: Callable[[Any], int],
    *,
    backend: str | None = None,
    preset: str | None = None,
) -> int:
    """Open the runtime, do the work (which prints and saves its results), then close.

    The results are out before teardown: a failed release, reset or aclFinalize is
    reported after them, and makes the exit status 1.
    """
    rt = open_runtime(
        backend or args.backend,
        preset or args.preset,
        seed=args.seed,
        topology=load_topology(getattr(args, "topology", None)),
    )
    try:
        status = work(rt)
    except BaseException:
        try:
            rt.close()
        except Exception as exc:  # the work's own error is what the user gets
            print(f"ascend-p2p-lab: teardown also failed: {exc}", file=sys.stderr)
        raise
    try:
        rt.close()
    except Exception as exc:
        print(f"ascend-p2p-lab: teardown failed after the results above: {exc}", file=sys.stderr)
        return status if status == EXIT_INTERRUPTED else max(status, EXIT_FAILED)
    return status
