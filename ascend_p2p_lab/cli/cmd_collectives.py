"""The ``collectives`` command: HCCL's collectives as phases of copies on the server (the
simulator or hardware), timed on the one executor, printed as hccl_test prints them with
the prediction from links beside them.

``collectives [--backend B] [--preset P | --topology FILE] [--ops OP,...] [--devices D]
[--sizes S] [--algorithm A] [--samples N] [--links RUN] [--format table|json] [--out DIR]``:
``--ops`` defaults to all five; an unknown op, size, algorithm or output folder is exit 2
with one line, before any device work; the exit status is the run's (0, 1 when a
failure or a verification cost data, 130 on Ctrl-C).

Example:
    $ ascend-p2p-lab collectives --preset atlas800t-a2 --ops all_gather --sizes 256MiB
    $ ascend-p2p-lab collectives --preset atlas800t-a3 --format json --out coll-a3
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path
from typing import Any

from ..units import parse_sizes
from ..vocab import COLLECTIVE_ALGORITHMS, COLLECTIVE_OPERATIONS
from . import options
from .exitstatus import bad_input, past_input_checks

#: The command this module adds and runs.
NAME = "collectives"

HELP = (
    "run HCCL's collectives as phases of copies (mesh, ring, double ring, as HCCL "
    "chooses them): time, algbw and busbw per op and size, the prediction from links "
    "and the link that holds each back"
)
DEFAULT_SIZES = "8KiB,256KiB,8MiB,256MiB"
#: Processes a simulated run's ops and sizes are spread over, at most (one per idle core).
WORKERS = 4


def add(sub: Any) -> None:
    """``collectives``: its options."""

    p = options.subcommand(sub, NAME, HELP)
    options.add_history(p)
    options.add_backend(
        p,
        preset="simulated server (default atlas800t-a2); see `presets`",
        topology="a topology file to simulate (TOML of the preset schema, with "
        "its [[fault]] tables, or npu-smi info -t topo text)",
        seed="simulator jitter seed (default 0)",
    )
    p.add_argument(
        "--ops",
        default=",".join(COLLECTIVE_OPERATIONS),
        help=f"comma list of {', '.join(COLLECTIVE_OPERATIONS)} (default: all five)",
    )
    options.add_devices(p, "the ranks' devices (default all)")
    options.add_sizes(
        p,
        f"hccl_test's data_size of each op: LO:HI or a comma list (default {DEFAULT_SIZES})",
        DEFAULT_SIZES,
    )
    p.add_argument(
        "--algorithm",
        choices=list(COLLECTIVE_ALGORITHMS),
        default=None,
        help="force one algorithm (default: the one HCCL would run, per size)",
    )
    options.add_samples(
        p,
        "op and size",
        samples=3,
        warmup=1,
        warmup_help="untimed runs before the samples (default 1; at least one run "
        "sizes the gate that holds the ranks until every copy is enqueued)",
        iters_help="runs of an op per sample, at most, back to back (hccl_test's -n; default 1)",
        min_sample_help="with --iters above 1: repeat the op until a sample lasts this long",
    )
    p.add_argument(
        "--links",
        type=Path,
        default=None,
        metavar="RUN",
        help="predict from this P2P run's measured links (its pair pattern and "
        "latency) instead of the server's preset",
    )
    options.add_format(p, "hccl_test's columns with the prediction", json="json")
    options.add_out(p, "run folder to write (default: none)", "replace the run in --out")
    options.add_verify(p, "skip checking what each rank ends with (default: verified)")
    options.add_progress(p)


def _checked(args: argparse.Namespace) -> tuple[tuple[str, ...], list[int], Any]:
    """The ops, sizes and the links run, checked before any device work."""
    from ..measure.spec import COLLECTIVE_PATTERN, check_operations
    from ..run.folder import check_out_dir, load

    ops = check_operations(args.ops, args.algorithm, (COLLECTIVE_PATTERN,))
    assert ops is not None
    with bad_input("--sizes: "):
        sizes = parse_sizes(args.sizes)
    if args.out is not None:
        check_out_dir(args.out, overwrite=args.overwrite)
    links = load(args.links) if args.links is not None else None
    if links is not None:  # a run without pair rows (a run of collectives): before any copy
        from ..collectives.versuslinks import measured_pairs

        with bad_input(f"--links {args.links}: "):
            measured_pairs(links.samples)
    return ops, sizes, links


def run(args: argparse.Namespace) -> int:
    """Run the collectives; print them; save the run; exit with the run's status."""
    from ..forking import idle_workers
    from ..measure import make_spec, plan, run_tests
    from .historyopt import open_history
    from .runoutput import finish, kept
    from .session import run_session

    ops, sizes, links = _checked(args)
    history = open_history(args)

    def work(rt: Any) -> int:
        spec = make_spec(
            rt,
            sizes=sizes,
            devices=args.devices,
            **options.sampled(args),
            max_copies=args.iters,
            verify=not args.no_verify,
            operations=ops,
            algorithm=args.algorithm,
        )
        run = kept(
            run_tests,
            rt,
            plan(rt, spec),
            spec.sampling,
            params=spec.to_dict(),
            progress=not args.no_progress,
            workers=idle_workers(WORKERS) if rt.forkable else 1,
        )
        with past_input_checks():
            source = "preset" if rt.topology is None else f"links of {rt.topology.name}"
            if links is not None:
                run, source = _predicted_from(run, links, rt.topology), f"run {args.links}"
            run = run.replace(command="collectives")
        return finish(run, args, history, NAME, functools.partial(_emit, source=source))

    return run_session(args, work)


def _predicted_from(run: Any, links: Any, topology: Any) -> Any:
    """The run with its predictions from a P2P run's measured links."""
    from ..collectives.versuslinks import links_model, predicted_on

    return run.replace(
        samples=predicted_on(run.samples, topology, links_model(links.samples, topology))
    )


def json_rows(run: Any) -> list[dict[str, Any]]:
    """The documented JSON rows: one per op and size (medians over samples)."""
    from ..collectives.table import summary

    out = []
    for r in summary(run.samples).to_dict("records"):
        neck = (
            None
            if r["bottleneck_src"] is None or r["bottleneck_src"] != r["bottleneck_src"]
            else [int(r["bottleneck_src"]), int(r["bottleneck_dst"])]
        )
        row = {
            "operation": r["operation"],
            "ranks": int(r["ranks"]),
            "algorithm": r["algorithm"] or None,
            "size_bytes": int(r["size_bytes"]),
            "time_us": r["time_us"],
            "algbw_GBps": r["algbw_GBps"],
            "busbw_GBps": r["busbw_GBps"],
            "predicted_busbw_GBps": r["predicted_busbw_GBps"],
            "bottleneck": neck,
            "bottleneck_budget": r["bottleneck_budget"] or None,
            "devices": r["devices"] or None,
            "check_result": r["check_result"],
            "samples": int(r["samples"]),
        }
        if r["bottleneck_candidates"]:  # the samples disagree: what each named
            row["bottleneck_candidates"] = r["bottleneck_candidates"].split(";")
        out.append(row)
    return out


def _emit(run: Any, fmt: str, out: Path | None, source: str) -> int:
    """The run's table or JSON (``fmt``); its exit status."""
    from ..terminal import run_status
    from .output import output_for

    output, status = output_for(fmt, plain=_plain), run_status(run)
    output.json(
        lambda: {
            "collectives": json_rows(run),
            "exit_status": status,
            "predicted_from": source,
            "saved_to": None if out is None else str(out),
        }
    )
    output.table(lambda: _print_table(run, out, source))
    return status


def _print_table(run: Any, out: Path | None, source: str) -> None:
    """The run's first line, hccl_test's table with the prediction, what was lost."""
    from ..collectives.table import summary, table_text
    from ..terminal import guessed_soc

    meta = run.meta
    print(
        f"run {meta.run_id} on {meta.device_count} x {guessed_soc(meta)} "
        f"({'simulated ' + str(meta.preset) if meta.backend == 'sim' else meta.backend}); "
        f"predicted from {source}"
    )
    print(table_text(summary(run.samples)))
    lost = run.samples["error"].dropna()
    if len(lost):
        print(f"\nFAILED: {lost.iloc[0]} ({len(lost)} rows)")
    print(f"\nsaved to {out}" if out is not None else "\nnot saved (use --out DIR to keep the run)")
    sys.stdout.flush()


def _plain(value: Any) -> Any:
    """JSON's values: NaN as null (JSON has no NaN), numbers as numbers."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, float) and value != value:
        return None
    return value
