"""The ``sweep`` command: device-to-device copies over a range of sizes, per ordered
pair (and the other patterns), in this process or across processes (``--processes``).

Example:
    $ ascend-p2p-lab sweep --backend sim --preset atlas800t-a2 --pairs 0-1 --out run1
"""

from __future__ import annotations

import argparse
from typing import Any

from ..patterns.builtin import pattern_help
from ..vocab import ON, UNI
from . import options
from .exitstatus import UsageError

#: The command this module adds and runs.
NAME = "sweep"


def _processes_kwargs(args: argparse.Namespace, kwargs: dict[str, Any]) -> dict[str, Any]:
    """sweep --processes: one pair at a time, one way, peer access on, both initiators."""
    from ..schema import PAIR_PATTERN

    if args.checkpoint is not None:
        raise UsageError("--processes: --checkpoint is not supported")
    if args.die_link is not None or args.die_split is not None:
        raise UsageError("--processes: --die-link is not supported (IPC memory: docs/die-links.md)")
    if (
        args.direction != UNI
        or args.peer != ON
        or args.groups
        or (args.patterns not in (None, PAIR_PATTERN))
    ):
        raise UsageError(
            "--processes measures pairs one way with peer access on: drop "
            "--direction, --peer, --patterns and --groups"
        )
    drop = ("direction", "peer", "initiator", "patterns", "groups", "progress", "checkpoint")
    return {k: v for k, v in kwargs.items() if k not in drop}


def run(args: argparse.Namespace) -> int:
    from ..measure import sweep, sweep_processes
    from .historyopt import open_history
    from .ipcsummary import emit_processes
    from .runoutput import check_sweep_out, finish, kept
    from .session import run_session

    check_sweep_out(args)
    kwargs = {
        "pairs": args.pairs,
        "devices": args.devices,
        "sizes": args.sizes,
        "direction": args.direction,
        "peer": args.peer,
        "initiator": args.initiator,
        "patterns": None
        if args.patterns is None
        else tuple(p.strip() for p in args.patterns.split(",") if p.strip()),
        "groups": args.groups,
        "timing": args.timing,
        **options.sampled(args),
        "verify": not args.no_verify,
        "progress": not args.no_progress,
        "checkpoint": args.checkpoint,
        **options.die_link_kwargs(args),
    }
    history = open_history(args)

    if getattr(args, "processes", False):
        kwargs = _processes_kwargs(args, kwargs)

    def work(rt: Any) -> int:
        if getattr(args, "processes", False):
            return finish(sweep_processes(rt, **kwargs), args, history, NAME, emit_processes)
        # bad input raises before any row is measured
        return finish(kept(sweep, rt, **kwargs), args, history, NAME)

    return run_session(args, work)


def add(sub: Any) -> None:
    """``sweep``: its options."""
    p = options.subcommand(sub, NAME, "measure device-to-device copies over a range of sizes")
    options.add_backend(p)
    p.add_argument(
        "--pairs",
        default="all",
        help="all (default: every ordered pair) or a SRC-DST list, e.g. 0-1,1-0",
    )
    options.add_devices(
        p,
        "all (default) or the devices to use, e.g. 0-3 or 0,2,5: every "
        "ordered pair among them, and the other patterns keep to them",
    )
    options.add_sizes(
        p,
        "LO:HI (every power of two between) or a comma list of any sizes "
        "(default 4KiB:1GiB; 4 bytes for the latency pattern alone); KiB, "
        "MiB, GiB are binary, KB, MB, GB decimal",
    )
    p.add_argument(
        "--direction",
        choices=["uni", "bi", "both"],
        default="uni",
        help="uni (default): one direction at a time; bi: both at once; both",
    )
    p.add_argument(
        "--peer",
        choices=["on", "off", "both"],
        default="on",
        help="peer access on (default), off (direct copy and host-staged path), or both",
    )
    p.add_argument(
        "--initiator",
        choices=["src", "dst"],
        default="dst",
        help="whose stream issues the copy: dst pulls, a read (default, as the "
        "runtime guide's sample), src pushes, a write",
    )
    p.add_argument(
        "--patterns",
        default=None,
        help=f"{pattern_help()}; default pair (group when --groups is given)",
    )
    p.add_argument(
        "--groups",
        default=None,
        help="group pairs for the group pattern, e.g. 0,1:2,3 (devices 0 and 1 "
        "copy to 2 and 3 at once, as ascend-dmi -m card); several separated "
        "by ; (default: none)",
    )
    p.add_argument(
        "--timing",
        choices=["events", "host"],
        default="events",
        help="events (default: device event timestamps) or host (wall clock around a synchronize)",
    )
    options.add_samples(p, "copy")
    options.add_out(
        p,
        "folder to write the run to (default: not saved)",
        "replace the run already in --out (its samples, metadata, summary and "
        "figures are removed first)",
    )
    options.add_checkpoint(
        p, "resume file: finished blocks are kept there and skipped on a rerun (default: none)"
    )
    options.add_verify(p)
    options.add_progress(p)
    options.add_format(p, "the summary and every N x N matrix")
    options.add_die_link(p, "measure the pairs")
    p.add_argument(  # issue 23; measure/processes.py
        "--processes",
        action="store_true",
        help="also measure across processes: one worker per device exports its "
        "buffers (IPC memory), each ordered pair pulled and pushed by the "
        "other's process, beside the in-process rows (column process_mode)",
    )
    options.add_history(p)
