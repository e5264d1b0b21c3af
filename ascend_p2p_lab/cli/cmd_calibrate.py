"""The ``calibrate`` command: a digital twin (a preset TOML) fitted from a run folder.

``calibrate RUN_DIR --out my-server.toml [--topology npu-smi.txt | --preset NAME]``
fits the link classes, their latency and bandwidth, the host copy rates and, where
fan-outs were measured, the shared port limit from the run, and writes a preset whose
every number says it was fitted from that run (or that the run did not measure it).
``--topology my-server.toml`` then simulates that server. Without --preset/--topology,
the preset the run names fills what the run lacks. Exit status: 0 written, 2 bad input (a
missing or unreadable run folder, a run with nothing to fit, host copies alone and no
server, a link matrix neither the run nor the server gives completely, --preset/--topology
of another server than the run names, --out existing without --overwrite).

Example:
    $ ascend-p2p-lab calibrate run1 --out my-server.toml
    $ ascend-p2p-lab sweep --backend sim --topology my-server.toml --pairs 0-1
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..vocab import EXIT_OK
from .exitstatus import UsageError, past_input_checks
from .options import add_out, add_overwrite, add_server, subcommand

#: The command this module adds and runs.
NAME = "calibrate"


def run(args: argparse.Namespace) -> int:
    """Fit a preset from RUN_DIR, check that it loads, write it to --out."""
    from ..calibrate import calibrate, to_toml
    from ..run.folder import check_out_file, load
    from ..topology import topology_from_toml_text

    out: Path = args.out
    if out.exists() and not args.overwrite:
        raise UsageError(f"--out {out}: exists; pass --overwrite to replace it")
    if out.suffix != ".toml":
        raise UsageError(
            f"--out {out}: give a .toml file name (--topology reads TOML by its suffix)"
        )
    check_out_file(out, "--out")
    run = load(args.run_dir)
    topology, server = _server(args, run)
    cal = calibrate(run, topology=topology, name=args.name or out.stem)
    with past_input_checks():
        text = to_toml(cal)
        topology_from_toml_text(text, source=str(out))  # what we write must load
        out.write_text(text)
    fitted = [
        f for figs in (cal.server, cal.host_figures, *cal.classes.values()) for f in figs.values()
    ]
    n_fit = sum(f.fitted for f in fitted)
    print(f"server {server}; fitted from: {cal.origin}")
    print(
        f"wrote {out}: {n_fit} figures fitted from {cal.origin}, "
        f"{len(fitted) - n_fit} not measured there (each says so in its comment)"
    )
    for cls, figs in cal.classes.items():
        bw, lat = figs["bandwidth_GBps"], figs["latency_us"]
        print(
            f"  {cls:8s} {bw.value:9.2f} GB/s{'' if bw.fitted else ' (not fitted)'}  "
            f"{lat.value:7.2f} us{'' if lat.fitted else ' (not fitted)'}"
        )
    if cal.outliers:
        print(
            f"{len(cal.outliers)} ordered pair(s) far from their class's median (named "
            f"in {out} too):"
        )
        for o in cal.outliers:
            print(f"  {o.text()}")
    print(f"simulate it: ascend-p2p-lab sweep --backend sim --topology {out}")
    return EXIT_OK


def _server(args: argparse.Namespace, run: Any) -> tuple[Any, str]:
    """The server that fills what the run lacks, and its words: --preset/--topology, else
    the preset the run names (None: the run's own link classes). Given and named must be
    one server: another preset, or a topology of other links, is exit 2 naming both."""
    from ..topology import load_preset
    from .server import preset_named, server_given, server_of
    from .session import load_topology

    topology = load_preset(args.preset) if args.preset is not None else load_topology(args.topology)
    named = preset_named(run.meta)
    own = load_preset(named) if named is not None else None
    if topology is None:
        return own, server_of(run.meta) or "the run's own link classes"
    given = str(server_given(args, topology))
    if own is not None and not _same_server(topology, own, by_name=args.preset is not None):
        flag = "--preset" if args.preset is not None else "--topology"
        raise UsageError(
            f"{flag} names {given}, but the run {args.run_dir} names {named} (preset): "
            "give the run's server, or neither"
        )
    return topology, given


def _same_server(given: Any, own: Any, *, by_name: bool) -> bool:
    """A preset is the run's by its name; a topology file by its links (device count and
    every pair's link class)."""
    if by_name:
        return bool(given.name == own.name)
    n = own.device_count
    return bool(
        given.device_count == n
        and all(given.link(i, j) == own.link(i, j) for i in range(n) for j in range(n) if i != j)
    )


def add(sub: Any) -> None:
    """``calibrate``: a twin (a preset TOML) from a run folder."""
    p = subcommand(sub, NAME, "fit a digital twin (a preset TOML) from a run folder")
    p.add_argument("run_dir", type=Path, help="a run folder, as `sweep --out` writes it")
    add_out(p, "the preset file to write (.toml)", required=True)
    add_server(
        p,
        preset="the same from a packaged preset (default: none)",
        topology="npu-smi info -t topo text or a preset TOML: link classes of "
        "pairs the run did not measure or name, and figures it did not "
        "measure (default: none)",
        topology_first=True,
    )
    p.add_argument("--name", default=None, help="the preset's name (default: --out's stem)")
    add_overwrite(p, "replace an existing --out file")
