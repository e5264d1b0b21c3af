"""The ``check`` command: an interconnect health check against written criteria,
PASS/FAIL per item, for people and for CI.

``check [--criteria FILE] [--preset NAME | --topology FILE] ...`` measures only what the
criteria need and judges every item; ``check --run DIR`` judges a run folder (own or
imported) instead, measuring nothing. Exit status: :data:`CHECK_EPILOG`.

Example:
    $ ascend-p2p-lab check --criteria a2.toml --backend sim --topology my-a2.toml --junit-xml j.xml
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..vocab import (
    CHECK_SAMPLES,
    CHECK_WARMUP,
    DEFAULT_PRESET,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    FAIL,
    WARN,
)
from . import options
from .exitstatus import EXIT_USAGE, UsageError, bad_input, past_input_checks

#: The command this module adds and runs.
NAME = "check"


CHECK_HELP = (
    "check the interconnect against written criteria: PASS/FAIL per item "
    "(peer access, link class, bandwidth, latency, host copies, aggregates, "
    "verification)"
)


CHECK_EPILOG = f"""\
exit status:
  {EXIT_OK}    PASS: every item passed (skipped items say why); or WARN: only items of
       severity warn failed (without --strict)
  {EXIT_FAILED}    FAIL: an item of severity fail failed, or a sample was lost (a runtime
       failure, a lost device); or WARN with --strict
  {EXIT_USAGE}    bad input, found before any device work: arguments, a bad criteria file
       (FILE:LINE: why), criteria for another device count, output paths; with --run,
       a folder that is no run, or criteria at a size the run has no pair rows at
  {EXIT_INTERRUPTED}  interrupted with Ctrl-C (the items judged so far are printed)
"""


def add(sub: Any) -> None:
    """``check``: its options."""

    p = options.subcommand(sub, NAME, CHECK_HELP)
    p.epilog = CHECK_EPILOG
    options.add_backend(p)
    options.add_criteria_layers(p, "the server's preset's model x --fraction")
    options.add_die_link(
        p, "judge (besides the topology) only the die links of the pairs", split=False
    )
    p.add_argument(
        "--run",
        type=Path,
        default=None,
        metavar="DIR",
        help="judge this run folder (own or imported) instead of measuring; "
        "without --criteria, the preset's model at the run's pair size",
    )
    p.add_argument(
        "--fraction",
        type=float,
        default=0.9,
        help="without --criteria: the preset's model x this (default 0.9)",
    )
    options.add_devices(
        p,
        "all or the devices to check, e.g. 0-3 or 0,2,5 (default: all; with "
        "--run, the devices the run's rows name)",
        default=None,
    )
    options.add_format(p, "one line per item and the verdict", json="json: every item")
    p.add_argument(
        "--failing",
        action="store_true",
        help="table: print only failing and skipped items (default: every item)",
    )
    p.add_argument(
        "--junit-xml",
        type=Path,
        default=None,
        metavar="FILE",
        help="write JUnit XML: one test case per item (default: none)",
    )
    options.add_samples(
        p,
        "copy",
        samples=None,
        warmup=CHECK_WARMUP,
        samples_default=f"the criteria's samples, {CHECK_SAMPLES} in derived ones",
    )
    options.add_attempts(p)
    options.add_severity(p)
    options.add_history(p)
    options.add_progress(p, "no progress bar (default: one per sweep the check runs, on stderr)")
    options.add_out(
        p,
        "write items.csv, check.json and peer.csv beside a run folder of the "
        "rows judged (run.json, samples.parquet, samples.csv: report, compare "
        "and check --run read it) (default: none)",
        "replace an earlier check in --out",
        metavar="DIR",
    )
    options.add_delivery(p)


def _outputs(args: argparse.Namespace) -> None:
    """Every output path, checked before any device work (--out: a folder that can take
    the check's files and its run folder; --history: a history store)."""
    from ..run.folder import check_out_dir, check_out_file
    from .historyopt import open_history

    args.history_store = open_history(args)
    if args.junit_xml is not None:
        check_out_file(args.junit_xml, "--junit-xml")
    if args.out is not None:
        if args.out.exists() and not args.out.is_dir():
            raise UsageError(f"--out {args.out}: exists and is not a folder")
        if (args.out / "check.json").exists() and not args.overwrite:
            raise UsageError(f"--out {args.out}: holds a check; pass --overwrite to replace it")
        check_out_dir(args.out, overwrite=args.overwrite)
        check_out_file(args.out / "check.json", "--out")


def _criteria(args: argparse.Namespace, run: Any = None) -> tuple[Any, str]:
    """The criteria files stacked in order (``check.layers``; a first file with overlay =
    true lies over the model), or the server's preset's model x --fraction (before
    device work), and the server judged on, in words."""
    from ..check.layers import load_layers
    from .server import server_given, server_of
    from .session import load_topology

    if not args.criteria:
        return _model(args, run)
    modelled: list[str] = []

    def model() -> Any:  # the packaged model, only when an overlay comes first
        criteria, server = _model(args, run)
        modelled.append(server)
        return criteria

    criteria = load_layers(args.criteria, model)
    given = server_given(args, load_topology(args.topology))
    if modelled:
        return criteria, modelled[0]
    if run is not None:
        named = server_of(run.meta)
        return criteria, given or named or f"the {criteria.device_count}-device server " + (
            "the criteria describe"
        )
    return criteria, given or f"{DEFAULT_PRESET} (preset, the default)"


def _model(args: argparse.Namespace, run: Any = None) -> tuple[Any, str]:
    """The server's preset's model x --fraction (with --run: at the size the run measured
    its copies at), and the server judged on, in words."""
    from ..check import criteria_from_preset
    from ..check.imported import judged_size
    from ..topology import load_preset
    from .server import server_given, server_of
    from .session import load_topology

    fraction = options.checked_fraction(args.fraction)
    topo = load_topology(args.topology)
    given = server_given(args, topo)
    if args.run is not None:  # the model at the size the run measured its copies at
        _collectives_only(run, args.run)
        size = judged_size(run.samples)
        if topo is None:
            topo = (
                load_preset(args.preset) if args.preset is not None else _own_server(run, args.run)
            )
        criteria = criteria_from_preset(
            topo.name, fraction=fraction, topology=topo, **({} if size is None else {"size": size})
        )
        return criteria, given or server_of(run.meta) or topo.name
    if args.backend == "acl" and args.preset is None:
        raise UsageError(
            "--backend acl: give --criteria FILE (or --preset NAME for its model's numbers)"
        )
    if topo is not None:
        return criteria_from_preset(topo.name, fraction=fraction, topology=topo), str(given)
    name = load_preset(args.preset or DEFAULT_PRESET).name
    default = "" if args.preset else ", the default"
    return criteria_from_preset(name, fraction=fraction), f"{name} (preset{default})"


def _own_server(run: Any, folder: Path) -> Any:
    """The preset a run names (``preset``, else a ``topology`` that is a preset's name):
    the server a ``check --run`` without --preset/--topology judges the run on; a run that
    names none is refused (exit 2), never judged on a default server."""
    from ..topology import load_preset
    from .server import no_server, preset_named

    named = preset_named(run.meta)
    if named is None:
        raise UsageError(
            no_server(
                folder,
                run.meta,
                "--run",
                "give check --run the server it ran on: --preset NAME or --topology FILE "
                "(or --criteria FILE)",
            )
        )
    return load_preset(named)


def _collectives_only(run: Any, folder: Path) -> None:
    """A run the preset's copy model cannot judge, refused saying which criteria can: one
    of collectives only (an hccl_test import), or an ascend-dmi --dg diagnosis (values
    without a copy size)."""
    from .collcompare import has_collectives

    rows = run.samples
    if not len(rows) or rows["pattern"].notna().any():
        return
    if "threshold_GBps" in rows and rows["threshold_GBps"].notna().any():
        raise UsageError(
            f"--run {folder}: the run holds an ascend-dmi --dg diagnosis (values without a "
            "copy size or pattern): nothing check --run can judge; its thresholds are "
            "criteria for a measured check (criteria --from-dmi-diagnosis FILE --preset NAME)"
        )
    if has_collectives(run):
        raise UsageError(
            f"--run {folder}: the run holds only collectives, which a preset's copy model "
            "does not bound; write collective criteria (criteria --collectives OP,... "
            "--preset NAME --out FILE) and give --criteria FILE"
        )


def run(args: argparse.Namespace) -> int:
    """Check a server against criteria; print, write and exit as CHECK_EPILOG says."""
    from ..check import run_check
    from ..check.attempts import ONE_PASS, check_attempts
    from ..measure.spec import parse_devices
    from .deliveropts import check_delivery, maybe_preflight
    from .server import measured_server
    from .session import run_session

    _outputs(args)
    check_delivery(args)
    if args.run is not None:
        if args.samples is not None or args.warmup != CHECK_WARMUP or args.min_sample_ms != 1.0:
            raise UsageError(
                "--samples, --warmup and --min-sample-ms time a measurement; "
                "check --run measures nothing"
            )
        if (args.attempts, args.fail_at) != ONE_PASS:
            raise UsageError("--attempts and --fail-at measure again; check --run measures nothing")
        return _check_run(args)
    with bad_input():
        check_attempts(args.attempts, args.fail_at)
    criteria, named = _criteria(args)
    criteria = maybe_preflight(criteria, args)
    if args.die_link is not None:  # the A3's die links alone (check.dieitems)
        from ..check.dieitems import die_link_only

        criteria = die_link_only(criteria, args.die_link, named)

    def work(rt: Any) -> int:  # run_check refuses criteria for another device count (2)
        devices = parse_devices(args.devices or "all", rt.device_count)
        result = run_check(
            rt,
            criteria,
            devices,
            progress=not args.no_progress,
            **options.sampled(args),
            attempts=args.attempts,
            fail_at=args.fail_at,
        )
        with past_input_checks():
            return _emit(result, args, criteria, measured_server(result.measured.run.meta))

    return run_session(args, work)


def _check_run(args: argparse.Namespace) -> int:
    """``check --run DIR``: the run folder judged against the criteria, nothing measured."""
    from ..check.imported import check_run
    from ..measure.spec import parse_devices
    from ..run.folder import load
    from .deliveropts import maybe_preflight

    run = load(args.run)
    criteria, server = _criteria(args, run)
    criteria = maybe_preflight(criteria, args)
    if args.die_link is not None:  # the A3's die links alone (check.dieitems)
        from ..check.dieitems import die_link_only, die_rows_missing

        criteria = die_link_only(criteria, args.die_link, server)
        missing = die_rows_missing(run.samples, args.die_link)
        if missing:
            raise UsageError(missing)
    devices = None if args.devices is None else parse_devices(args.devices, criteria.device_count)
    result = check_run(run, criteria, devices)
    with past_input_checks():
        return _emit(result, args, criteria, server)


def _emit(result: Any, args: argparse.Namespace, criteria: Any, server: str) -> int:
    from ..check import junit_xml, table_text, to_json
    from .deliveropts import deliver
    from .historyopt import append_items
    from .output import output_for
    from .server import criteria_source

    out = output_for(args.format, indent=2)
    items, lost = result.items, result.points_lost
    source = criteria_source(criteria)
    extra = {
        "criteria": criteria.meta.get("path") or criteria.name,
        "server": server,
        "criteria_source": source,
        "criteria_layers": criteria.meta.get("layers") or [source],
        "strict": args.strict,
        "interrupted": result.measured.interrupted,
        "failed": result.measured.failed,
    }
    out.table(lambda: print(f"server {server}; criteria: {source}"))  # before the channels
    delivered = deliver(result, args, criteria, out)  # files written, nodes changed
    extra.update(delivered.json)
    out.json(lambda: to_json(items, lost, **extra))
    failed, verbose = result.measured.failed, args.verbose
    out.table(
        lambda: print(
            table_text(items, lost, only_failing=args.failing, failed=failed, verbose=verbose)
        )
    )
    if args.junit_xml is not None:
        xml = junit_xml(items, lost, result.measured.failed, strict=args.strict)
        args.junit_xml.write_text(xml)
    if args.out is not None:
        _save(result, args.out, to_json(items, lost, **extra))
    delivered.say()
    append_items(args.history_store, items, result.measured.run.meta)
    if result.measured.interrupted:
        print(
            "ascend-p2p-lab: interrupted; the items above are those judged so far", file=sys.stderr
        )
        return EXIT_INTERRUPTED
    failing = result.status == FAIL or (result.status == WARN and args.strict)
    if delivered.status and not failing:  # a channel that failed: kubectl, scontrol
        return delivered.status
    return EXIT_FAILED if failing else EXIT_OK


def _save(result: Any, out: Path, summary: dict[str, Any]) -> None:
    """The check's files beside the run folder of what it judged (``run/folder.py``)."""
    from ..run.folder import save

    save(result.measured.run, out, replace=True)
    (out / "check.json").write_text(json.dumps(summary, indent=2))
    result.items.to_csv(out / "items.csv", index=False)
    result.measured.peer.to_csv(out / "peer.csv", index=False)
