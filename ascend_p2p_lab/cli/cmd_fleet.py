"""The ``fleet`` command: the same probe and sweep on many servers at once, on Dask.

``fleet --scheduler ADDRESS [--hosts H ...]`` surveys the servers of a running Dask
cluster (one worker per server); ``fleet --local N`` starts a simulated fleet of N
worker processes, ``sim-0`` to ``sim-(N-1)``, with ``--degrade HOST:SRC-DST:FRACTION``
faults. The exit status is the fleet's health (:data:`FLEET_EXIT`).

Example:
    $ ascend-p2p-lab fleet --local 4 --degrade sim-2:2-5:0.5 --format json
    $ ascend-p2p-lab fleet --scheduler tls://login01:8786 --hosts atlas01 atlas02
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..units import format_size, parse_sizes
from ..vocab import DEFAULT_PRESET, DEFAULT_SIZES
from . import options
from .exitstatus import UsageError, bad_input, past_input_checks

if TYPE_CHECKING:
    from .output import Output

#: The command this module adds and runs.
NAME = "fleet"

FLEET_HELP = "probe and sweep many servers at once on Dask (or a simulated fleet)"
FLEET_EXIT = """\
exit status:
  0    the fleet is healthy: every host answered, no link below the threshold
  1    a link is below the threshold of its class's median (or lost), a host failed, or a
       host lost points to errors (listed; --format json: outliers, failed_hosts); with
       --criteria, a host FAILs them (with --strict, also a host that only WARNs)
  2    bad input (e.g. --degrade naming a host outside --local N), or Dask distributed
       not installed (pip install 'ascend-p2p-lab[fleet]')
  130  interrupted with Ctrl-C (the hosts back by then are kept and saved)
"""
NO_DASK = "the fleet command needs Dask distributed: pip install 'ascend-p2p-lab[fleet]'"


def add(sub: Any) -> None:
    """``fleet``: its options."""

    p = options.subcommand(sub, NAME, FLEET_HELP)
    p.epilog = FLEET_EXIT
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="a running Dask scheduler, one worker per server: tls://host:8786 "
        "(TLS from Dask's configuration; tcp:// only on loopback or a "
        "trusted network)",
    )
    where.add_argument(
        "--local",
        type=int,
        default=None,
        metavar="N",
        help="a simulated fleet of N worker processes, sim-0 to sim-(N-1)",
    )
    p.add_argument(
        "--hosts",
        nargs="+",
        default=None,
        metavar="HOST",
        help="with --scheduler: the servers to survey (default: every worker)",
    )
    options.add_preset(
        p, f"with --local: the simulated server (default {DEFAULT_PRESET})", DEFAULT_PRESET
    )
    options.add_seed(p, "with --local: sim-i runs with seed SEED + i (default 0)", default=0)
    p.add_argument(
        "--degrade",
        action="append",
        default=[],
        metavar="HOST:SRC-DST:FRACTION",
        help="with --local: the directed link SRC -> DST of HOST runs at FRACTION "
        "of its bandwidth (repeatable)",
    )
    options.add_sizes(
        p, f"copy sizes (default {DEFAULT_SIZES}); links are compared at the largest", DEFAULT_SIZES
    )
    options.add_samples(p, "copy")
    p.add_argument(
        "--threshold",
        type=float,
        default=0.9,
        metavar="FRACTION",
        help="a link is an outlier below this fraction of its class's fleet "
        "median; 0 < FRACTION <= 1 (default 0.9)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="hosts not back after this long are failed hosts (default: none)",
    )
    options.add_format(p, "hosts, outliers, failed hosts", json="json")
    options.add_out(
        p,
        "a run folder per host plus fleet.json, fleet_links.csv, "
        "fleet_hosts.csv and fleet_heatmaps.png (default: none)",
        "replace a fleet in --out",
        metavar="DIR",
    )
    options.add_progress(p, "no progress bar (default: one over the hosts, on stderr)")
    options.add_criteria_layers(
        p,
        "none; with it, every host is also checked against the criteria: its failing and "
        "warned items per host, beside the outliers",
    )
    options.add_fleet_metrics(p)
    options.add_attempts(p)
    options.add_severity(p, verbose=False)
    options.add_history(p)


def _check(args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    """Every input checked before a cluster starts: (sweep options, targets or hosts)."""
    from ..check.attempts import ONE_PASS, check_attempts
    from ..check.fleetitems import fleet_options
    from ..check.layers import load_layers
    from ..comparison import check_threshold
    from ..fleet.survey import check_fleet_out
    from ..measure.spec import check_sampling
    from .deliveropts import check_fleet_metrics
    from .historyopt import open_history

    if importlib.util.find_spec("distributed") is None:
        raise UsageError(NO_DASK)
    try:
        args.threshold = check_threshold(args.threshold)
        parse_sizes(args.sizes)
    except ValueError as exc:
        raise UsageError(str(exc).splitlines()[0]) from None
    sampling = options.sampled(args)
    try:
        check_sampling(**sampling)
    except ValueError as exc:
        raise UsageError(f"--{str(exc).replace('_', '-')}") from None
    if args.out is not None:
        check_fleet_out(args.out, overwrite=args.overwrite)
    args.history_store = open_history(args)
    sweep_options = {"sizes": args.sizes, **sampling}
    with bad_input():
        check_attempts(args.attempts, args.fail_at)
    if args.criteria is None and (args.attempts, args.fail_at) != ONE_PASS:
        raise UsageError("--attempts and --fail-at measure failing items again: give --criteria")
    if args.criteria is not None:  # a bad file: exit 2 with FILE:LINE, before any cluster
        args.criteria_data = load_layers(args.criteria)  # the first file complete
        sweep_options.update(fleet_options(args.criteria_data, args.sizes))
    check_fleet_metrics(args)
    if args.scheduler is not None:
        if args.degrade:
            raise UsageError("--degrade simulates a fault: use it with --local")
        return sweep_options, args.hosts
    if args.hosts:
        raise UsageError(
            "--hosts chooses servers of --scheduler; --local names its hosts sim-0 to sim-(N-1)"
        )
    return sweep_options, _local_targets(args)


def _local_targets(args: argparse.Namespace) -> Any:
    from ..fleet.simulated import fleet_targets, parse_degrade
    from ..topology.presets import list_presets, load_preset

    if args.preset not in list_presets():
        raise UsageError(f"--preset {args.preset!r}: not a preset ({', '.join(list_presets())})")
    faults: dict[str, list[dict[str, Any]]] = {}
    try:
        devices = load_preset(args.preset).device_count
        for text in args.degrade:
            host, fault = parse_degrade(text, args.local, devices)
            faults.setdefault(host, []).append(fault)
        return fleet_targets(args.local, preset=args.preset, seed=args.seed, faults=faults)
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc).splitlines()[0]) from None


def run(args: argparse.Namespace) -> int:
    from ..fleet import SimulatedFleet, survey

    sweep_options, hosts = _check(args)

    def on(client: Any, targets: Any) -> int:
        result = survey(
            client,
            targets,
            out=args.out,
            overwrite=args.overwrite,
            threshold=args.threshold,
            progress=not args.no_progress,
            timeout=args.timeout,
            after=_after(args, sweep_options),
            **sweep_options,
        )
        with past_input_checks():
            return _emit(result, args)

    if args.local is not None:
        with SimulatedFleet(hosts) as fleet:
            return on(fleet.client, fleet.targets)
    from distributed import Client

    security = scheduler_security(args.scheduler)
    with Client(args.scheduler, timeout="30s", security=security) as client:
        return on(client, hosts)


def _after(args: argparse.Namespace, sweep_options: dict[str, Any]) -> Any:
    """n-of-m on each host (``check.attempts.host_attempts`` bound to the criteria), or
    None for one pass."""
    from ..check.attempts import ONE_PASS, host_attempts

    if args.criteria is None or (args.attempts, args.fail_at) == ONE_PASS:
        return None
    return partial(
        host_attempts,
        criteria=args.criteria_data,
        attempts=args.attempts,
        fail_at=args.fail_at,
        options=dict(sweep_options),
    )


def scheduler_security(address: str) -> Any:
    """The client's ``distributed.Security`` from Dask's configuration
    (``distributed.comm.tls.*``); a ``tls://`` scheduler without the client's CA file,
    certificate and key is bad input, and plain TCP beyond the loopback interface gets
    a one-line warning (whoever reaches the scheduler runs code on every worker)."""
    from distributed import Security

    security = Security()
    if address.startswith("tls://"):
        missing = [
            key
            for key, value in (
                ("ca-file", security.tls_ca_file),
                ("client.cert", security.tls_client_cert),
                ("client.key", security.tls_client_key),
            )
            if not value
        ]
        if missing:
            raise UsageError(
                f"--scheduler {address}: TLS needs Dask's distributed.comm.tls."
                f"{', '.join(missing)} (see docs/fleet.md, 'Security')"
            )
    elif not _loopback(address):
        print(
            f"warning: --scheduler {address} is plain TCP: anyone who reaches it can run "
            "code on every worker; use tls:// (docs/fleet.md, 'Security')",
            file=sys.stderr,
        )
    return security


def _loopback(address: str) -> bool:
    """Whether a scheduler address names this machine's loopback interface."""
    host = address.split("://", 1)[-1].rsplit(":", 1)[0].strip("[]")
    return host in ("localhost", "::1") or host.startswith("127.")


def _emit(result: Any, args: argparse.Namespace) -> int:
    """Print the fleet's verdict (table or JSON), draw the figure into --out; the status."""
    from ..check.fleetitems import host_verdicts, warned_by_host
    from ..fleet import analyse
    from .output import output_for

    analysis = analyse(result, threshold=args.threshold)
    verdict = analysis.verdict
    failing, again, items = _criteria_failing(result, args)
    warned = {} if items is None else warned_by_host(items)
    strict = getattr(args, "strict", False)
    # 130 when interrupted (fleet.analysis.verdict); a host failing --criteria is 1
    status = max(verdict["exit_status"], 1 if failing or (warned and strict) else 0)
    named, out = _named(result, args), output_for(args.format)
    criteria = (
        {}
        if failing is None
        else {
            "criteria": {
                "file": str(args.criteria[-1]),
                "files": [str(f) for f in args.criteria],
                "failing_items": failing,
                "warned_items": warned,
                "verdicts": host_verdicts(list(map(str, result.hosts)), failing, warned),
                "measured_again": again,
            }
        }
    )
    saved = None if args.out is None else str(args.out)
    out.json(
        {
            **verdict,
            "exit_status": status,
            "interrupted": result.interrupted,
            "saved_to": saved,
            **named,
            **criteria,
        }
    )
    out.table(lambda: _print_all(analysis, result, status, named, failing, warned, args))
    if args.out is not None:
        _figure(analysis, args.out, out)
    _history(args, result, items)
    return status


def _print_criteria(args: argparse.Namespace, failing: Any, warned: Any) -> None:
    """The hosts' failing (then warned) items against --criteria, or that every host passes."""
    files = ", ".join(str(f) for f in args.criteria)
    parts = [
        f"{word} items per host:\n"
        + "\n".join(f"  {host}: {', '.join(ids)}" for host, ids in per_host.items())
        for word, per_host in (("failing", failing), ("warned (severity warn)", warned))
        if per_host
    ]
    print(f"\ncriteria {files}: " + ("\n".join(parts) or "every host passes"))


def _named(result: Any, args: argparse.Namespace) -> dict[str, str]:
    """With --criteria: the server(s) the hosts that answered measured and the criteria's
    source, as check names them (``server``, ``criteria_source``); else nothing."""
    from .server import criteria_source, fleet_server

    if getattr(args, "criteria", None) is None:
        return {}
    metas = {str(r.host): r.meta for r in result.results.values() if r.run is not None}
    return {"server": fleet_server(metas), "criteria_source": criteria_source(args.criteria_data)}


def _history(args: argparse.Namespace, result: Any, items: Any) -> None:
    """--history: every host's points and, with --criteria, its items (one run each)."""
    from .historyopt import append_items, append_run

    store = getattr(args, "history_store", None)
    for r in result.results.values():
        if store is None or r.run is None:
            continue
        append_run(store, r.run, NAME)
        if items is not None:
            mine = items[items["host"].astype(str) == r.host].drop(columns="host")
            append_items(store, mine, r.run.meta, NAME)


def _criteria_failing(result: Any, args: argparse.Namespace) -> tuple[Any, Any]:
    """With --criteria: the failing items' ids per host (check/fleetitems.py), and per
    host the items measured again (n-of-m: id, status, attempts, failures); else None."""
    from ..check.attempts import merge_attempts
    from ..check.fleetitems import failing_by_host, fleet_items
    from .deliveropts import write_fleet_metrics

    if getattr(args, "criteria", None) is None:
        return None, None, None

    criteria = args.criteria_data
    probes = {r.host: r.probe for r in result.results.values()}
    counts = {r.host: r.meta.device_count for r in result.results.values()}
    items = merge_attempts(
        fleet_items(criteria, result.frame, probes),
        {r.host: r.attempts for r in result.results.values()},
    )
    if getattr(args, "metrics", None) is not None:  # one HOST.prom per host
        files = ", ".join(str(f) for f in args.criteria)
        write_fleet_metrics(args.metrics, items, files, args.deliver_started)
    cols = ["id", "status", "attempts", "failures"]
    again = {
        str(h): g[cols].to_dict("records")
        for h, g in items[items["attempts"] > 1].groupby("host", sort=True)
    }
    return failing_by_host(items, counts, criteria.device_count), again, items


def _print_all(
    analysis: Any, result: Any, status: int, named: dict, failing: Any, warned: Any, args: Any
) -> None:
    """The server and criteria, the fleet's tables, each host's failing and warned items."""
    if named:  # the first line, as check's
        print(f"server {named['server']}; criteria: {named['criteria_source']}")
    _print_table(analysis, result, status)
    if failing is not None:
        _print_criteria(args, failing, warned)


def _print_table(analysis: Any, result: Any, status: int) -> None:
    import pandas as pd

    v = analysis.verdict
    measured = (
        "no link measured"
        if v["size_bytes"] is None
        else f"at {format_size(v['size_bytes'])} per link"
    )
    stopped = ", interrupted" if result.interrupted else ""
    print(
        f"fleet: {len(result.hosts)} hosts{stopped}, unidirectional P2P {measured}, "
        f"outliers below {v['threshold']:g} of the class median ({result.wall_s:.1f} s)\n"
    )
    hosts = analysis.hosts.copy()
    hosts["host_bound_share"] = hosts["host_bound_share"].map(
        lambda x: "-" if pd.isna(x) else f"{x:.0%}"
    )
    hosts["error"] = hosts["error"].str.slice(0, 60)
    print(hosts.to_string(index=False))
    if not analysis.outliers.empty:
        print("\noutliers:")
        cols = [
            *("host", "src", "dst", "link", "bandwidth_GBps"),
            *("class_median_GBps", "fraction", "error_kind"),
        ]
        print(analysis.outliers[cols].to_string(index=False, float_format="{:.3f}".format))
    failed = len(v["failed_hosts"])
    print(
        f"\nverdict: {len(v['outliers'])} outlier link(s), {failed} failed host(s) -> exit {status}"
    )


def _figure(analysis: Any, out: Path, output: Output) -> None:
    try:
        from ..plots import fleet_heatmaps  # the plot extra: optional
    except ImportError as exc:
        print(f"no figure: {exc} (pip install 'ascend-p2p-lab[plot]')", file=sys.stderr)
        return
    if analysis.fractions.empty:
        return
    fig = fleet_heatmaps(analysis.fractions, threshold=analysis.verdict["threshold"])
    path = out / "fleet_heatmaps.png"
    fig.savefig(path, dpi=110)
    output.note(f"wrote {path}")
