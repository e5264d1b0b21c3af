"""The ``demo`` command: probe, enable peer links, sweep and report, on the simulator
by default or on a server with ``--backend acl``.

Example:
    $ ascend-p2p-lab demo --preset atlas800t-a3 --out demo-a3
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ..vocab import DEFAULT_PRESET, EXIT_INTERRUPTED
from .exitstatus import past_input_checks
from .options import add_backend, add_out, add_progress, add_samples, add_sizes, sampled, subcommand

#: The command this module adds and runs.
NAME = "demo"


DEMO_OUT = "ascend-p2p-demo"


#: Processes the demo simulates its blocks in, at most (one per idle core; sweep(workers=)).
DEMO_WORKERS = 4


def run(args: argparse.Namespace) -> int:
    from ..forking import idle_workers
    from ..measure import enable_all, parse_sizes, probe, sweep
    from ..run.folder import check_out_dir
    from ..schema import LOCAL_PATTERN, PAIR_PATTERN
    from ..terminal import print_summary, run_status
    from .runoutput import keep, kept, write_report
    from .session import run_session

    out: Path = args.out
    check_out_dir(out, overwrite=args.overwrite, replaces="demo")
    parse_sizes(args.sizes)  # bad sizes: exit 2 before any device work
    options = {
        "sizes": args.sizes,
        "direction": "both",
        "peer": "both",
        "patterns": (PAIR_PATTERN, LOCAL_PATTERN),
        **sampled(args),
    }
    state: dict[str, Any] = {}

    def work(rt: Any) -> int:
        with past_input_checks():
            where = f"simulated {rt.preset}" if rt.simulated else "pyACL"
            print(f"1. probe: {rt.device_count} x {rt.soc_name} ({where})")
            table = probe(rt)
            print(
                f"   {int(table.samples['can_access_peer'].sum())} of {len(table)} ordered "
                "pairs can access each other"
            )
            refused = enable_all(rt)
            print(
                f"2. peer links: enabled {len(rt.peer_refs())} directions, {len(refused)} refused"
            )
            workers = idle_workers(DEMO_WORKERS) if rt.forkable else 1
            print(
                "3. sweep: uni- and bidirectional P2P, device-local copies, P2P off and staged"
                + (f" (simulated in {workers} processes, one per idle core)" if workers > 1 else "")
            )
            run = kept(sweep, rt, **options, progress=not args.no_progress, workers=workers)
            run = run.replace(command="demo")  # a later demo may replace it
            keep(run, out)
            table.samples.to_csv(out / "probe.csv", index=False)
            state.update(run=run, table=table)
            print_summary(run, out, matrices=True)
            return run_status(run)

    status = run_session(
        args,
        work,
        backend=args.backend or os.environ.get("ASCEND_P2P_LAB_BACKEND") or "sim",
        preset=args.preset or DEFAULT_PRESET,
    )
    if "run" in state and status != EXIT_INTERRUPTED:
        print("\n4. report")
        with past_input_checks():
            write_report(state["run"], out, table=state["table"])
    return status


def add(sub: Any) -> None:
    """``demo``: its options."""
    p = subcommand(
        sub,
        NAME,
        "probe, enable peer links, sweep and report: on the simulator, or "
        "on a server with --backend acl",
    )
    add_backend(
        p,
        backend="sim (default; also ASCEND_P2P_LAB_BACKEND), acl or auto",
        preset="simulated server (default atlas800t-a2)",
        topology=None,
        seed="simulator jitter seed (default 0)",
    )
    add_out(
        p,
        f"folder to write to (default {DEMO_OUT}; an earlier demo there is replaced)",
        "replace a run of another command in --out",
        default=Path(DEMO_OUT),
    )
    add_sizes(p, "copy sizes (default 4KiB:1GiB)", "4KiB:1GiB")
    add_samples(p, "copy", samples=3)
    add_progress(p)
