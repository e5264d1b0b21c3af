"""The option groups several commands share, each defined once: the subcommand maker
(every command's help ends with the exit status), the backend and preset, the output
format, the timing loop's sampling, the progress bar, the output folder.

Example:
    >>> p = Parser(prog="x")
    >>> add_progress(p)
    >>> p.parse_args(["--no-progress"]).no_progress
    True
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, NoReturn

from ..vocab import DIE_LINK_CHOICES, MAX_SAMPLE_US, US_PER_MS
from .exitstatus import EXIT_STATUS, UsageError, bad_input

#: The longest sample --min-sample-ms may ask for (the sweep's own limit, in ms).
MAX_SAMPLE_MS = MAX_SAMPLE_US / US_PER_MS


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are :class:`UsageError` (one line, exit 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def subcommand(sub: Any, name: str, help: str) -> argparse.ArgumentParser:
    """A subcommand whose description is its help and whose epilog the exit status."""
    return sub.add_parser(
        name,
        help=help,
        description=help,
        epilog=EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


#: The help texts of ``--backend``, ``--preset``, ``--topology`` and ``--seed`` most
#: commands share (:func:`add_backend`'s defaults).
BACKEND_HELP = "auto (default; also ASCEND_P2P_LAB_BACKEND), acl or sim"
PRESET_HELP = "simulated server (default atlas800t-a2; also ASCEND_P2P_LAB_PRESET); see `presets`"
TOPOLOGY_HELP = (
    "a topology file to simulate instead of a preset: TOML of the preset "
    "schema, or npu-smi info -t topo text (default: none)"
)
SEED_HELP = "simulator jitter seed (default 0; also ASCEND_P2P_LAB_SEED)"


def add_backend(
    p: argparse.ArgumentParser,
    *,
    backend: str = BACKEND_HELP,
    preset: str = PRESET_HELP,
    topology: str | None = TOPOLOGY_HELP,
    seed: str = SEED_HELP,
) -> None:
    """``--backend``, ``--preset`` | ``--topology`` (one server: both at once is exit 2),
    ``--seed``: the server to open; ``topology=None``: no ``--topology``."""
    p.add_argument("--backend", choices=["auto", "acl", "sim"], default=None, help=backend)
    if topology is None:
        add_preset(p, preset)
    else:
        add_server(p, preset, topology)
    add_seed(p, seed)


def add_server(
    p: argparse.ArgumentParser, preset: str, topology: str, *, topology_first: bool = False
) -> None:
    """``--preset NAME`` | ``--topology FILE``, one exclusive group (one server: both at
    once is exit 2); ``topology_first``: ``--topology`` listed first."""
    server = p.add_mutually_exclusive_group()
    if topology_first:
        add_topology(server, topology)
    add_preset(server, preset)
    if not topology_first:
        add_topology(server, topology)


def add_preset(p: Any, help: str, default: str | None = None) -> None:
    """``--preset NAME``: a packaged preset (``p`` a parser or an exclusive group)."""
    p.add_argument("--preset", default=default, help=help)


def add_topology(p: Any, help: str, **kwargs: Any) -> None:
    """``--topology FILE``: a topology file (``p`` a parser or an exclusive group)."""
    p.add_argument("--topology", type=Path, default=None, help=help, **kwargs)


def add_seed(p: argparse.ArgumentParser, help: str, default: int | None = None) -> None:
    """``--seed N``: the simulator's jitter seed."""
    p.add_argument("--seed", type=int, default=default, help=help)


def add_format(
    p: argparse.ArgumentParser, table: str, note: str = "", *, json: str | None = None
) -> None:
    """``--format table|json``: ``table`` says what the table shows, ``json`` what the
    JSON holds (default: the same as numbers, null where not measured, with the reason
    per cell, and ``note``)."""
    if json is None:
        json = f"json: the same as numbers, null where not measured, with the reason per cell{note}"
    p.add_argument(
        "--format",
        choices=["table", "json"],
        default="table",
        help=f"table (default): {table}; {json}",
    )


def sample_ms(text: str) -> float:
    """``--min-sample-ms``: milliseconds above 0 and at most a minute, refused in the
    option's own words (not the sweep's ``min_sample_us``).

    Example:
        >>> sample_ms("2.5")
        2.5
        >>> sample_ms("0")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        argparse.ArgumentTypeError: must be a number of milliseconds above 0 ...; got '0'
    """
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= MAX_SAMPLE_MS:
        raise argparse.ArgumentTypeError(
            f"must be a number of milliseconds above 0 and at most {MAX_SAMPLE_MS:g}; got {text!r}"
        )
    return value


def checked_fraction(value: float) -> float:
    from ..check.derive import check_fraction

    with bad_input("--fraction: "):
        return check_fraction(value)


def add_samples(
    p: argparse.ArgumentParser,
    what: str,
    *,
    samples: int | None = 5,
    warmup: int = 2,
    warmup_help: str | None = None,
    iters_help: str | None = None,
    min_sample_help: str | None = None,
    samples_default: str | None = None,
) -> None:
    """The timing loop's options, the same for every command that measures: samples per
    point, untimed warm-up windows, the shortest sample (``what`` repeats within one);
    ``iters_help``: also ``--iters`` (runs per sample, at most; ``collectives``);
    ``samples=None``: the default comes from elsewhere (``samples_default`` says where)."""
    per = "point" if what in ("copy", "copies") else what
    p.add_argument(
        "--samples",
        type=int,
        default=samples,
        help=f"samples per {per} (default {samples_default or samples})",
    )
    p.add_argument(
        "--warmup",
        type=int,
        default=warmup,
        help=warmup_help or f"untimed windows before each point's samples (default {warmup})",
    )
    if iters_help is not None:
        p.add_argument("--iters", type=int, default=1, help=iters_help)
    p.add_argument(
        "--min-sample-ms",
        type=sample_ms,
        default=1.0,
        help=min_sample_help
        or f"each sample repeats the {what} until it lasts at least this long (default 1.0 ms)",
    )


def sampled(args: argparse.Namespace) -> dict[str, Any]:
    """The timing loop's options :func:`add_samples` added, as a spec takes them."""
    return {
        "samples": args.samples,
        "warmup": args.warmup,
        "min_sample_us": args.min_sample_ms * US_PER_MS,
    }


def add_progress(p: argparse.ArgumentParser, help: str = "no progress bar") -> None:
    """``--no-progress``: no progress bar on stderr."""
    p.add_argument("--no-progress", action="store_true", help=help)


def add_out(
    p: argparse.ArgumentParser, help: str, overwrite: str | None = None, **kwargs: Any
) -> None:
    """``--out PATH`` (``kwargs``: its default, ``required``, ``metavar``) and, when
    ``overwrite`` says what it replaces, ``--overwrite`` right after it."""
    p.add_argument("--out", type=Path, help=help, **{"default": None, **kwargs})
    if overwrite is not None:
        add_overwrite(p, overwrite)


def add_overwrite(p: argparse.ArgumentParser, help: str) -> None:
    """``--overwrite``: replace what ``--out`` holds."""
    p.add_argument("--overwrite", action="store_true", help=help)


def add_sizes(p: argparse.ArgumentParser, help: str, default: str | None = None) -> None:
    """``--sizes LO:HI|A,B,...``: the copy sizes (parsed where the command runs)."""
    p.add_argument("--sizes", default=default, help=help)


def add_devices(p: argparse.ArgumentParser, help: str, default: str | None = "all") -> None:
    """``--devices all|0-3|0,2,5``: the devices (parsed where the command runs)."""
    p.add_argument("--devices", default=default, help=help)


def add_verify(
    p: argparse.ArgumentParser, help: str = "skip checking the copied bytes (default: verified)"
) -> None:
    """``--no-verify``: the copied bytes not checked."""
    p.add_argument("--no-verify", action="store_true", help=help)


def add_checkpoint(p: argparse.ArgumentParser, help: str) -> None:
    """``--checkpoint FILE``: the resume file of a measuring command."""
    p.add_argument("--checkpoint", type=Path, default=None, help=help)


def add_delivery(p: argparse.ArgumentParser) -> None:
    """``check``'s delivery options, in their own group."""
    g = p.add_argument_group("where the verdict goes (docs/deliver.md)")
    g.add_argument(
        "--preflight",
        action="store_true",
        help="only the items that catch a dead or slow link, a refused peer pair, a wrong "
        "link class or bytes that arrive wrong, on every ordered pair once (a third of "
        "the time or less)",
    )
    g.add_argument(
        "--metrics",
        type=Path,
        default=None,
        metavar="FILE",
        help="write Prometheus text (node_exporter's textfile collector: a *.prom file), "
        "atomically (default: none)",
    )
    g.add_argument(
        "--npu-exporter-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="write MindCluster NPU Exporter custom-metric JSON (-textMetricsFilePath), "
        "at most 128 items, failing ones first (default: none)",
    )
    g.add_argument(
        "--k8s-node",
        default=None,
        metavar="NAME",
        help="print the Kubernetes node condition AscendP2PHealthy and, on FAIL, the "
        "NoSchedule taint ascend.huawei.com/p2p-degraded for node NAME (default: none)",
    )
    g.add_argument(
        "--apply",
        action="store_true",
        help="with --k8s-node: apply them to that node (only) with kubectl; a PASS "
        "removes this tool's taint and no other",
    )
    g.add_argument(
        "--slurm",
        action="store_true",
        help="as a Slurm HealthCheckProgram: FAIL drains this node (only) with a reason "
        "'p2p: ...', WARN sets its comment, PASS resumes it when this tool drained it",
    )


def add_fleet_metrics(p: argparse.ArgumentParser) -> None:
    """``fleet --metrics DIR``."""
    p.add_argument(
        "--metrics",
        type=Path,
        default=None,
        metavar="DIR",
        help="with --criteria: write one Prometheus text file per host, HOST.prom, "
        "atomically (default: none)",
    )


def add_attempts(p: argparse.ArgumentParser) -> None:
    """``--attempts N --fail-at K``: n-of-m, a failing item measured again
    (``check.attempts``; defaults 1 and 1: one pass)."""
    p.add_argument(
        "--attempts",
        type=int,
        default=1,
        metavar="N",
        help="measure a failing item again, up to N times in all (default 1: one pass; "
        "a fleet: 3, see docs/check.md)",
    )
    p.add_argument(
        "--fail-at",
        type=int,
        default=1,
        metavar="K",
        help="an item fails when it has failed K times; it passes when it has passed "
        "N-K+1 times (default 1; a fleet: 2)",
    )


def add_history(p: argparse.ArgumentParser, help: str | None = None) -> None:
    """``--history DB``: append to the store (``help``: another command's use of it)."""
    p.add_argument(
        "--history",
        type=Path,
        default=None,
        metavar="DB",
        help=help
        or "append what was measured and judged (host, server model, time, item, "
        "value, verdict, run id) to this history store, SQLite, made when missing "
        "(see `history`) (default: none)",
    )


#: the most item histories ``report --history`` draws (more: choose with ``--item``)
MAX_HISTORY_FIGURES = 24


def add_report_history(p: argparse.ArgumentParser) -> None:
    """``report``'s ``--history DB`` and ``--item TEXT``: the history of the run's items."""
    add_history(
        p,
        "also draw the history of each item this run appended to the history store DB "
        "(run with --history DB): its values over time, its baseline band, this run "
        "marked (history_*.png; see `history`)",
    )
    p.add_argument(
        "--item",
        default=None,
        metavar="TEXT",
        help="with --history: only the items whose name contains TEXT (needed when the run "
        f"recorded more than {MAX_HISTORY_FIGURES} items)",
    )


# ---- severity and layered criteria (issue 39 items 3 and 4): check and fleet -------------


def add_criteria_layers(p: argparse.ArgumentParser, default: str) -> None:
    """``--criteria FILE``, repeatable: layers, later ones overriding earlier ones key by
    key (``check.layers``); ``default``: what the command judges against without it."""
    p.add_argument(
        "--criteria",
        type=Path,
        action="append",
        default=None,
        metavar="FILE",
        help=f"a criteria file; give it again to lay a site file, then a host file over it, "
        f"each overriding the bars it names (a file with overlay = true lies over the "
        f"preset's model) (default: {default})",
    )


def add_severity(p: argparse.ArgumentParser, *, verbose: bool = True) -> None:
    """``--strict`` (a WARN verdict exits 1) and, for check, ``--verbose`` (each item's
    criteria source in the table)."""
    p.add_argument(
        "--strict",
        action="store_true",
        help="a WARN verdict (only items of severity warn failed) exits 1, as a FAIL does "
        "(default: WARN exits 0)",
    )
    if verbose:
        p.add_argument(
            "--verbose",
            action="store_true",
            help="table: end each item's line with the FILE:LINE that set its bar",
        )


# ---- the A3's die links (issue 38 item 5; docs/die-links.md) ----------------------------
def die_splits(text: str) -> tuple[float, ...]:
    """``--die-split``: SIO's share of a ``--die-link both`` copy, or a comma list of
    shares (a point each: a sweep over the split).

    Example:
        >>> die_splits("0.6"), die_splits("0.5, 0.6,0.7")
        ((0.6,), (0.5, 0.6, 0.7))
    """
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a share or a comma list of shares in (0, 1): {text!r}"
        ) from None
    if not all(0 < v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"a share is in (0, 1), exclusive: {text!r}")
    return values


def add_die_link(p: argparse.ArgumentParser, what: str, *, split: bool = True) -> None:
    """``--die-link`` and (``split``) ``--die-split``: which link between the two dies of
    an A3 card ``what`` takes (``die_link_kwargs`` hands them on)."""
    g = p.add_argument_group("the A3's two links between the dies of a card (docs/die-links.md)")
    g.add_argument(
        "--die-link",
        choices=DIE_LINK_CHOICES,
        default=None,
        help=f"{what} between the two dies of an A3 card over sio (the default path), "
        "hccs (the HCCS lane, through aclrtMemMapSelectedLink) or both at once (the "
        "bytes split, --die-split); other pairs and servers: exit 2 (default: no choice made)",
    )
    if not split:
        return
    g.add_argument(
        "--die-split",
        type=die_splits,
        default=None,
        help="with --die-link both: SIO's share of the bytes, or a comma list of shares "
        "(a point each; default 0.6, hicann/shmem's dual path)",
    )


def die_link_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The sweep's keyword arguments of ``--die-link`` / ``--die-split`` (none when not
    given, so that a run without them records the parameters it always did)."""
    if args.die_link is None and getattr(args, "die_split", None) is None:
        return {}
    return {"die_link": args.die_link, "die_split": args.die_split}
