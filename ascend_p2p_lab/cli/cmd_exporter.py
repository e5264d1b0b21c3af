"""The ``exporter`` command: a Prometheus exporter of the health check. It re-checks the
server every ``--interval`` seconds (the preflight by default; ``--full`` for the whole
check), never two checks at once, and serves the last good result with its age at
``/metrics`` (nothing else) on ``--host`` (127.0.0.1 unless told) ``--port``.

Example:
    $ ascend-p2p-lab exporter --port 9873 --interval 300 --backend sim
"""

from __future__ import annotations

import argparse
import ipaddress
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..vocab import CHECK_WARMUP, DEFAULT_PRESET, EXIT_INTERRUPTED, EXIT_OK
from .exitstatus import UsageError
from .options import add_backend, add_devices, add_samples, checked_fraction, sampled, subcommand

if TYPE_CHECKING:
    from ..deliver.verdicts import Verdict

#: The command this module adds and runs.
NAME = "exporter"
#: the port when none is given (above 1023: no privileges needed)
DEFAULT_PORT = 9873
#: seconds between checks when not told
DEFAULT_INTERVAL_S = 300.0

EXPORTER_HELP = (
    "serve the health check's verdict to Prometheus at /metrics, re-checking every "
    "--interval seconds (the preflight unless --full)"
)


def add(sub: Any) -> None:
    """``exporter``: its options (the server's, then the check's)."""
    p = subcommand(sub, NAME, EXPORTER_HELP)
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1: this machine only; give 0.0.0.0 "
        "for Prometheus elsewhere)",
    )
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    p.add_argument(
        "--interval",
        type=float,
        default=DEFAULT_INTERVAL_S,
        metavar="S",
        help=f"seconds between the starts of two checks (default {DEFAULT_INTERVAL_S:g})",
    )
    p.add_argument(
        "--full", action="store_true", help="the whole check each time (default: the preflight)"
    )
    add_backend(p)
    p.add_argument("--criteria", type=Path, default=None, help="a criteria file (see `check`)")
    p.add_argument(
        "--fraction",
        type=float,
        default=0.9,
        help="without --criteria: the preset's model x this (default 0.9)",
    )
    add_devices(p, "all (default) or the devices to check", default=None)
    add_samples(p, "copy", samples=None, warmup=CHECK_WARMUP, samples_default="the criteria's")


def _checked(args: argparse.Namespace) -> Any:
    """Every input before the server binds: the port, the interval, the criteria."""
    import importlib.util

    from ..check import criteria_from_preset, load_criteria
    from ..check.preflight import preflight
    from ..topology import load_preset
    from .deliveropts import NEEDS_CLIENT
    from .session import load_topology

    if importlib.util.find_spec("prometheus_client") is None:
        raise UsageError(f"exporter {NEEDS_CLIENT}")
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: must be 1 to 65535")
    if not args.interval > 0:
        raise UsageError(f"--interval {args.interval:g}: must be above 0 seconds")
    fraction = checked_fraction(args.fraction)
    if args.criteria is not None:
        criteria = load_criteria(args.criteria)
    elif args.topology is not None:
        topo = load_topology(args.topology)
        criteria = criteria_from_preset(topo.name, fraction=fraction, topology=topo)
    elif args.backend == "acl" and args.preset is None:
        raise UsageError("--backend acl: give --criteria FILE (or --preset NAME)")
    else:
        criteria = criteria_from_preset(
            load_preset(args.preset or DEFAULT_PRESET).name, fraction=fraction
        )
    return criteria if args.full else preflight(criteria)


def _one_check(args: argparse.Namespace, criteria: Any) -> Verdict:
    """One check on a freshly opened runtime (closed after), as a Verdict."""
    from ..check import run_check
    from ..deliver.verdicts import Verdict
    from ..measure.spec import parse_devices
    from .session import run_session

    got: dict[str, Any] = {}
    t0 = time.time()

    def work(rt: Any) -> int:
        devices = parse_devices(args.devices or "all", rt.device_count)
        got["result"] = run_check(rt, criteria, devices, **sampled(args))
        return EXIT_OK

    run_session(args, work)
    now = time.time()
    name = criteria.meta.get("path") or criteria.name
    return Verdict.of(got["result"], finished=now, duration_s=now - t0, criteria=str(name))


def run(args: argparse.Namespace) -> int:
    """Serve until SIGTERM or Ctrl-C (exit 130 on Ctrl-C, 0 on SIGTERM)."""
    from ..deliver.exporter import Rechecker, serve

    criteria = _checked(args)
    job = Rechecker(lambda: _one_check(args, criteria), args.interval)
    try:
        server = serve(job, args.host, args.port)
    except OSError as exc:
        raise UsageError(f"--host {args.host} --port {args.port}: {exc.strerror or exc}") from None
    if not _loopback(args.host):
        print(
            f"warning: --host {args.host}: /metrics is open to anyone who reaches this "
            "address (it serves only the check's metrics, read-only)",
            file=sys.stderr,
        )
    signal.signal(signal.SIGTERM, _stop)
    print(
        f"serving http://{args.host}:{server.server_address[1]}/metrics "
        f"({'full check' if args.full else 'preflight'} every {args.interval:g} s)",
        file=sys.stderr,
        flush=True,
    )
    job.start()
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Stopped:
        return EXIT_OK
    finally:
        job.stop()
        server.server_close()
    return EXIT_OK


class Stopped(Exception):
    """SIGTERM: stop serving (exit 0)."""


def _stop(*_: Any) -> None:
    raise Stopped


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"
