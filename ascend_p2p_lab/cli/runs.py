"""The commands that measure and report: ``sweep``, ``report``, ``demo``.

Example:
    $ ascend-p2p-lab sweep --backend sim --preset atlas800t-a2 --pairs 0-1 --out run1
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ..forking import idle_workers
from ..matrices import matrices_json
from ..measure import enable_all, parse_sizes, probe, sweep_run
from ..measure.checkpoint import checkpoint_run_ids
from ..measure.processes import sweep_processes_run
from ..patterns.builtin import pattern_help
from ..results import failures, summarize
from ..run import Run
from ..run.folder import (
    check_out_dir,
    check_out_file,
    clear_report,
    load,
    run_info,
    save,
    write_manifest,
)
from ..schema import LOCAL_PATTERN, PAIR_PATTERN
from ..terminal import EXIT_FAILED, EXIT_INTERRUPTED, print_summary, run_status
from ..vocab import DEFAULT_PRESET, US_PER_MS
from .exitstatus import UsageError, past_input_checks
from .ipcsummary import emit_processes
from .options import add_backend, add_format, add_progress, add_samples, subcommand
from .session import run_session

DEMO_OUT = "ascend-p2p-demo"

#: Processes the demo simulates its blocks in, at most (one per idle core; sweep(workers=)).
DEMO_WORKERS = 4


def _sweep_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {
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
        "samples": args.samples,
        "warmup": args.warmup,
        "min_sample_us": args.min_sample_ms * US_PER_MS,
        "verify": not args.no_verify,
        "progress": not args.no_progress,
        "checkpoint": args.checkpoint,
    }


def _processes_kwargs(args: argparse.Namespace, kwargs: dict[str, Any]) -> dict[str, Any]:
    """sweep --processes: one pair at a time, one way, peer access on, both initiators."""
    if args.checkpoint is not None:
        raise UsageError("--processes: --checkpoint is not supported")
    if (
        args.direction != "uni"
        or args.peer != "on"
        or args.groups
        or (args.patterns not in (None, PAIR_PATTERN))
    ):
        raise UsageError(
            "--processes measures pairs one way with peer access on: drop "
            "--direction, --peer, --patterns and --groups"
        )
    drop = ("direction", "peer", "initiator", "patterns", "groups", "progress", "checkpoint")
    return {k: v for k, v in kwargs.items() if k not in drop}


def check_sweep_out(args: argparse.Namespace) -> None:
    """Every output path of a sweep, checked before any device work (``run/folder.py``:
    resuming into the run the checkpoint continues needs no --overwrite)."""
    if args.out is not None:
        continues = checkpoint_run_ids(args.checkpoint) if args.checkpoint is not None else ()
        check_out_dir(args.out, overwrite=args.overwrite, continues=continues)
    if args.checkpoint is not None:
        check_out_file(args.checkpoint, "--checkpoint")


def sweep_kept(rt: Any, **kwargs: Any) -> Run:
    """sweep_run(), or the run it kept when it stopped on an error after it had started
    (its metadata then says why, and the exit status is 1)."""
    try:
        return sweep_run(rt, **kwargs)
    except Exception as exc:
        partial = getattr(exc, "partial_run", None)
        if partial is None or not partial.meta.run_id:
            raise
        return partial


def keep(run: Run, out: Path | None) -> None:
    """The run saved into ``out`` (atomic; what described an earlier run there goes, and a
    checkpoint that holds the whole run is removed): ``run/folder.py``."""
    if out is not None:
        save(run, out, replace=True)


def cmd_sweep(args: argparse.Namespace) -> int:
    check_sweep_out(args)
    kwargs = _sweep_kwargs(args)

    if getattr(args, "processes", False):
        kwargs = _processes_kwargs(args, kwargs)

    def work(rt: Any) -> int:
        if getattr(args, "processes", False):
            run = sweep_processes_run(rt, **kwargs)
            emit = emit_processes
        else:
            run = sweep_kept(rt, **kwargs)  # bad input raises before any row is measured
            emit = emit_run
        with past_input_checks():
            keep(run, args.out)
            return emit(run, args.format, args.out)

    return run_session(args, work)


def emit_run(run: Any, fmt: str, saved: Path | None, read_from: Path | None = None) -> int:
    """The run on stdout (the summary and its matrices, or JSON); its exit status.

    ``read_from``: the run was loaded from that folder (``report``), not measured: an
    interrupted run is then an incomplete run (1), not an interrupted command (130).
    """
    run = Run.of(run)
    status = run_status(run)
    if read_from is not None and status == EXIT_INTERRUPTED:
        status = EXIT_FAILED
    if fmt == "json":
        import json

        lost = failures(run)
        data = {
            **matrices_json(run),
            "exit_status": status,
            "points_not_reached": run.meta.points_not_reached,
            "saved_to": None if saved is None else str(saved),
            **({} if read_from is None else {"read_from": str(read_from)}),
            "failures": json.loads(lost.to_json(orient="records")),
        }
        print(json.dumps(data, indent=1), flush=True)
    else:
        print_summary(run, saved, matrices=True, read_from=read_from)
    return status


def cmd_report(args: argparse.Namespace) -> int:
    out = args.out or args.run_dir
    if args.out is not None:
        check_out_dir(out, overwrite=True)  # figures go there; a run there must be this one
        other = run_info(out).get("run_id")
        if other is not None and other != run_info(args.run_dir).get("run_id"):
            raise UsageError(f"--out {out}: holds another run ({other}); choose another folder")
    run = load(args.run_dir)
    with past_input_checks():
        status = emit_run(run, args.format, None, read_from=args.run_dir)
        _write_report(run, out, quiet=args.format == "json")
        return status


def _write_report(run: Run, out: Path, table: Any = None, *, quiet: bool = False) -> None:
    """summary.csv and the figures of a run into out, replacing an earlier report there
    (``quiet``: the list of files on stderr, stdout holding JSON)."""
    import functools
    import sys

    say = functools.partial(print, file=sys.stderr if quiet else sys.stdout)
    out.mkdir(parents=True, exist_ok=True)
    clear_report(out)
    summarize(run).to_csv(out / "summary.csv", index=False)
    written = [out / "summary.csv"]
    try:
        from .. import plots  # the plot extra: optional
    except ImportError as exc:
        say(f"\nno figures: {exc} (pip install 'ascend-p2p-lab[plot]')")
        write_manifest(out, run.meta.run_id, written)
        return
    paths = plots.report(run, out, table=table, workers=plots.default_workers())
    write_manifest(out, run.meta.run_id, [*written, *paths])
    say(
        f"\nwrote {out / 'summary.csv'} and {len(paths)} figure{'' if len(paths) == 1 else 's'}"
        f"{':' if paths else ''}"
    )
    for p in paths:
        say(f"  {p}")


def cmd_demo(args: argparse.Namespace) -> int:
    out: Path = args.out
    check_out_dir(out, overwrite=args.overwrite, replaces="demo")
    parse_sizes(args.sizes)  # bad sizes: exit 2 before any device work
    options = {
        "sizes": args.sizes,
        "direction": "both",
        "peer": "both",
        "patterns": (PAIR_PATTERN, LOCAL_PATTERN),
        "samples": args.samples,
        "warmup": args.warmup,
        "min_sample_us": args.min_sample_ms * US_PER_MS,
    }
    state: dict[str, Any] = {}

    def work(rt: Any) -> int:
        with past_input_checks():
            return _demo_steps(rt)

    def _demo_steps(rt: Any) -> int:
        where = f"simulated {rt.preset}" if rt.simulated else "pyACL"
        print(f"1. probe: {rt.device_count} x {rt.soc_name} ({where})")
        table = probe(rt)
        print(
            f"   {int(table['can_access_peer'].sum())} of {len(table)} ordered pairs can "
            "access each other"
        )
        refused = enable_all(rt)
        print(f"2. peer links: enabled {len(rt.peer_refs())} directions, {len(refused)} refused")
        workers = idle_workers(DEMO_WORKERS) if rt.forkable else 1
        print(
            "3. sweep: uni- and bidirectional P2P, device-local copies, P2P off and staged"
            + (f" (simulated in {workers} processes, one per idle core)" if workers > 1 else "")
        )
        run = sweep_kept(rt, **options, progress=not args.no_progress, workers=workers)
        run = run.replace(command="demo")  # a later demo may replace it
        keep(run, out)
        table.to_csv(out / "probe.csv", index=False)
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
            _write_report(state["run"], out, table=state["table"])
    return status


def add_sweep(sub: Any) -> None:
    """``sweep``: its options."""
    p = subcommand(sub, "sweep", "measure device-to-device copies over a range of sizes")
    add_backend(p)
    _sweep_args(p)
    _processes_arg(p)


def add_report(sub: Any) -> None:
    """``report``: its options."""
    p = subcommand(
        sub,
        "report",
        "figures and a summary of a saved run (replaces the figures of an earlier report of it)",
    )
    p.add_argument("run_dir", type=Path, help="a run folder, as `sweep --out` writes it")
    p.add_argument("--out", type=Path, default=None, help="folder for figures (default RUN_DIR)")
    add_format(p, "the summary and every N x N matrix", "; the figures are written either way")


def add_demo(sub: Any) -> None:
    """``demo``: its options."""
    p = subcommand(
        sub,
        "demo",
        "probe, enable peer links, sweep and report: on the simulator, or "
        "on a server with --backend acl",
    )
    p.add_argument(
        "--backend",
        choices=["auto", "acl", "sim"],
        default=None,
        help="sim (default; also ASCEND_P2P_LAB_BACKEND), acl or auto",
    )
    p.add_argument("--preset", default=None, help="simulated server (default atlas800t-a2)")
    p.add_argument("--seed", type=int, default=None, help="simulator jitter seed (default 0)")
    p.add_argument(
        "--out",
        type=Path,
        default=Path(DEMO_OUT),
        help=f"folder to write to (default {DEMO_OUT}; an earlier demo there is replaced)",
    )
    p.add_argument(
        "--overwrite", action="store_true", help="replace a run of another command in --out"
    )
    p.add_argument("--sizes", default="4KiB:1GiB", help="copy sizes (default 4KiB:1GiB)")
    add_samples(p, "copy", samples=3)
    add_progress(p)


def _processes_arg(p: argparse.ArgumentParser) -> None:
    """``sweep --processes`` (issue 23; measure/processes.py)."""
    p.add_argument(
        "--processes",
        action="store_true",
        help="also measure across processes: one worker per device exports its "
        "buffers (IPC memory), each ordered pair pulled and pushed by the "
        "other's process, beside the in-process rows (column process_mode)",
    )


def _sweep_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--pairs",
        default="all",
        help="all (default: every ordered pair) or a SRC-DST list, e.g. 0-1,1-0",
    )
    p.add_argument(
        "--devices",
        default="all",
        help="all (default) or the devices to use, e.g. 0-3 or 0,2,5: every "
        "ordered pair among them, and the other patterns keep to them",
    )
    p.add_argument(
        "--sizes",
        default=None,
        help="LO:HI (every power of two between) or a comma list of any sizes "
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
    add_samples(p, "copy")
    p.add_argument(
        "--out", type=Path, default=None, help="folder to write the run to (default: not saved)"
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the run already in --out (its samples, metadata, summary and "
        "figures are removed first)",
    )
    p.add_argument(
        "--checkpoint",
        type=Path,
        default=None,
        help="resume file: finished blocks are kept there and skipped on a rerun (default: none)",
    )
    p.add_argument(
        "--no-verify",
        action="store_true",
        help="skip checking the copied bytes (default: verified)",
    )
    add_progress(p)
    add_format(p, "the summary and every N x N matrix")
