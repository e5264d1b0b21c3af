"""The ``criteria`` command: health-check criteria written as a TOML file, from a
preset's model or a topology file's, a golden run (own or imported) x a fraction, or
ascend-dmi --dg thresholds.

Example:
    $ ascend-p2p-lab criteria --preset atlas800t-a2 --out a2.toml
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..units import parse_size, parse_sizes
from ..vocab import EXIT_OK
from .exitstatus import UsageError, bad_input, past_input_checks
from .options import add_out, add_server, checked_fraction, subcommand

#: The command this module adds and runs.
NAME = "criteria"


CRITERIA_HELP = (
    "write health-check criteria: a preset's model or a golden run (own or "
    "imported), x a fraction; or ascend-dmi --dg thresholds"
)


def add(sub: Any) -> None:
    """``criteria``: its options."""
    p = subcommand(sub, NAME, CRITERIA_HELP)
    add_server(
        p,
        preset="the preset's model (the simulator on it, jitter 0)",
        topology="the model of a topology file (TOML, or npu-smi info -t topo text)",
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument(
        "--from",
        dest="from_run",
        type=Path,
        default=None,
        metavar="RUN",
        help="a golden run folder of a known-good server (its medians), own or "
        "imported (import dmi); with --preset/--topology for link classes "
        "an import does not name",
    )
    src.add_argument(
        "--from-dmi-diagnosis",
        dest="from_dg",
        type=Path,
        nargs="+",
        default=None,
        metavar="FILE",
        help="ascend-dmi --dg captures (JSON or text): their thresholds as the "
        "criteria (as written: no --fraction); the link classes and peer "
        "access from --preset/--topology",
    )
    p.add_argument(
        "--fraction",
        type=float,
        default=None,
        help="criteria = numbers x this (latency: / this); default 0.9",
    )
    p.add_argument(
        "--size",
        default=None,
        help="bandwidth size for --preset/--topology/--from-dmi-diagnosis (default 64MiB)",
    )
    p.add_argument(
        "--collectives",
        default=None,
        metavar="OP,...",
        help="also [[collective]] criteria for these ops (all_reduce, ...) on "
        "--preset/--topology: busbw x --fraction (default: none; a golden "
        "run's collectives always give theirs)",
    )
    p.add_argument(
        "--collective-sizes",
        default="256MiB",
        metavar="SIZES",
        help="their hccl_test data sizes (default 256MiB)",
    )
    p.add_argument(
        "--collective-basis",
        choices=["model", "bound"],
        default="model",
        help="model (default): the preset's collectives simulated, jitter 0; "
        "bound: what its links alone allow",
    )
    add_out(
        p, "the criteria file to write (.toml)", "replace an existing --out file", required=True
    )


def run(args: argparse.Namespace) -> int:
    """Write criteria from a preset's model, a topology file's, or a golden run."""
    from ..check import criteria_from_preset, to_toml
    from ..check.criteria import criteria_from_text
    from ..check.derive import criteria_from_run
    from ..run.folder import check_out_file, load
    from ..topology import load_preset
    from .session import load_topology

    if args.from_dg is not None and args.fraction is not None:
        raise UsageError("--fraction: --from-dmi-diagnosis takes the tool's thresholds as written")
    if (
        args.preset is None
        and args.topology is None
        and args.from_run is None
        and args.from_dg is None
    ):
        raise UsageError(
            "give --preset NAME, --topology FILE, --from RUN or --from-dmi-diagnosis FILE"
        )
    fraction = checked_fraction(0.9 if args.fraction is None else args.fraction)
    out: Path = args.out
    if out.exists() and not args.overwrite:
        raise UsageError(f"--out {out}: exists; pass --overwrite to replace it")
    check_out_file(out, "--out")
    size = parse_size(args.size) if args.size else None
    server = (
        load_topology(args.topology)
        if args.topology is not None
        else load_preset(args.preset)
        if args.preset is not None
        else None
    )
    if args.from_dg is not None:
        criteria = _from_diagnosis(args.from_dg, server, size)
    elif args.from_run is not None:
        criteria = criteria_from_run(load(args.from_run), fraction=fraction, topology=server)
    else:
        extra: dict[str, Any] = {} if size is None else {"size": size}
        if args.topology is not None:
            extra["topology"] = server
        criteria = criteria_from_preset(server.name, fraction=fraction, **extra)
    if args.collectives is not None:
        criteria = _with_collectives(criteria, args, server, fraction)
    with past_input_checks():
        text = to_toml(criteria)
        criteria_from_text(text, str(out))  # what we write must load
        out.write_text(text)
    kinds = criteria.table["kind"].value_counts().to_dict()
    times = "" if criteria.fraction is None else f" x {criteria.fraction:g}"
    print(
        f"wrote {out}: {criteria.device_count} devices, "
        + ", ".join(f"{v} {k}" for k, v in sorted(kinds.items()))
        + f" criteria; {criteria.source}{times}"
    )
    for line in criteria.meta.get("left_out", ()):
        print(f"  left out {line}")
    return EXIT_OK


def _with_collectives(criteria: Any, args: argparse.Namespace, server: Any, fraction: float) -> Any:
    """The criteria and [[collective]] items for --collectives on the server's links."""
    import dataclasses

    from ..check.collective import records
    from ..check.criteria import make_table
    from ..measure.spec import COLLECTIVE_PATTERN, check_operations

    if server is None:
        raise UsageError("--collectives: give the server's --preset or --topology")
    ops = check_operations(args.collectives, None, (COLLECTIVE_PATTERN,)) or ()
    with bad_input("--collective-sizes: "):
        sizes = parse_sizes(args.collective_sizes)
    new = records(server, ops, sizes, fraction=fraction, basis=args.collective_basis)
    return dataclasses.replace(
        criteria, table=make_table([*criteria.table.to_dict("records"), *new])
    )


def _from_diagnosis(files: list[Path], server: Any, size: int | None) -> Any:
    """Criteria from ascend-dmi --dg captures' thresholds on ``server``'s topology."""
    from ..check.imported import criteria_from_thresholds
    from ..imports import ToolReportedError, import_dmi

    if server is None:
        raise UsageError(
            "--from-dmi-diagnosis: give the server's --preset or --topology "
            "(the link classes and peer access the diagnosis does not state)"
        )
    with bad_input("--from-dmi-diagnosis: ", ToolReportedError):
        rows = import_dmi(files, size=size)
    names = ", ".join(f.name for f in files)
    extra = {} if size is None else {"size": size}
    criteria, left_out = criteria_from_thresholds(
        rows, server, origin=f"ascend-dmi --dg capture {names}", **extra
    )
    criteria.meta["left_out"] = left_out
    return criteria
