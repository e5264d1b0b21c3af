"""The ``ascend-p2p-lab`` command: presets, probe, topo, sweep, report, demo, sim-path.

Bad arguments print one line and exit with code 2; no traceback.

Example:
    $ ascend-p2p-lab probe --backend sim --preset atlas800t-a3 --format json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from ._version import __version__

EXIT_USAGE = 2


class UsageError(Exception):
    """A bad argument or input file: one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _add_backend(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=["auto", "acl", "sim"], default=None,
                   help="auto (default; also ASCEND_P2P_LAB_BACKEND), acl or sim")
    p.add_argument("--preset", default=None,
                   help="simulated server (also ASCEND_P2P_LAB_PRESET); see `presets`")
    p.add_argument("--topology", type=Path, default=None,
                   help="a topology file: TOML of the preset schema, or npu-smi info -t topo text")
    p.add_argument("--seed", type=int, default=None, help="simulator jitter seed")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ascend-p2p-lab",
                     description="Probe, toggle and measure P2P copies between Ascend NPUs.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    sub.add_parser("presets", help="list the simulated servers")

    p = sub.add_parser("probe", help="peer-access matrix and link classes of all devices")
    _add_backend(p)
    p.add_argument("--format", choices=["table", "json"], default="table")

    p = sub.add_parser("topo", help="parse npu-smi info -t topo text")
    p.add_argument("file", type=Path)
    p.add_argument("--format", choices=["table", "json"], default="table")

    p = sub.add_parser("sweep", help="measure device-to-device copies over a range of sizes")
    _add_backend(p)
    _add_sweep_args(p)

    p = sub.add_parser("report", help="figures and a summary of a saved run")
    p.add_argument("run_dir", type=Path)
    p.add_argument("--out", type=Path, default=None, help="folder for figures (default RUN_DIR)")

    p = sub.add_parser("demo", help="probe, enable peer links, sweep and report on a simulated "
                                    "server")
    p.add_argument("--preset", default=None, help="simulated server (default atlas800t-a2)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--out", type=Path, default=Path("ascend-p2p-demo"))
    p.add_argument("--sizes", default="4KiB:1GiB")
    p.add_argument("--no-progress", action="store_true")

    sub.add_parser("sim-path", help="print a folder whose `acl` package is the simulator")
    return parser


def _add_sweep_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pairs", default="all", help="all (default) or SRC-DST list, e.g. 0-1,1-0")
    p.add_argument("--sizes", default="4KiB:1GiB", help="LO:HI powers of two, or a list")
    p.add_argument("--direction", choices=["uni", "bi", "both"], default="uni")
    p.add_argument("--peer", choices=["on", "off", "both"], default="on")
    p.add_argument("--initiator", choices=["src", "dst"], default="src")
    p.add_argument("--patterns", default="pair",
                   help="comma list of pair, local, one_to_all, all_to_one")
    p.add_argument("--timing", choices=["events", "host"], default="events")
    p.add_argument("--samples", type=int, default=5)
    p.add_argument("--out", type=Path, default=None, help="folder to write the run to")
    p.add_argument("--checkpoint", type=Path, default=None, help="resume file")
    p.add_argument("--no-verify", action="store_true")
    p.add_argument("--no-progress", action="store_true")


# ---------------------------------------------------------------------- commands
def _load_topology(path: Path | None) -> Any:
    if path is None:
        return None
    from .topology import load_topology_file, parse_npu_smi_topo

    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    if path.suffix == ".toml":
        return load_topology_file(path)
    if path.stat().st_size > 1 << 20:
        raise UsageError(f"{path}: larger than 1 MiB; not npu-smi output")
    return parse_npu_smi_topo(path.read_bytes(), name=path.stem)


def _open(args: argparse.Namespace) -> Any:
    from .runtime import open_runtime

    return open_runtime(args.backend, args.preset, seed=args.seed,
                        topology=_load_topology(args.topology))


def cmd_presets(args: argparse.Namespace) -> int:
    from .topology import preset_summary

    rows = preset_summary()
    w = max(len(r["name"]) for r in rows)
    print(f"{'preset':<{w}}  devices  {'SoC':<15} links                 description")
    for r in rows:
        links = ",".join(r["link_classes"]) or "-"
        print(f"{r['name']:<{w}}  {r['device_count']:>7}  {r['soc_name']:<15} {links:<21} "
              f"{r['description']}")
    return 0


def _matrix_json(table: Any, n: int) -> dict[str, Any]:
    from .measure import access_matrix, link_matrix

    return {
        "can_access_peer": access_matrix(table).reindex(index=range(n), columns=range(n))
        .fillna(0).astype(int).values.tolist(),
        "peer_enabled": access_matrix(table, "peer_enabled").values.tolist(),
        "links": link_matrix(table).values.tolist(),
    }


def _print_grid(title: str, labels: list[str], cells: list[list[str]]) -> None:
    width = max(6, *(len(x) + 1 for x in labels), *(len(c) + 1 for row in cells for c in row))
    print(title)
    print(" " * width + "".join(f"{lab:<{width}}" for lab in labels))
    for lab, row in zip(labels, cells):
        print(f"{lab:<{width}}" + "".join(f"{c:<{width}}" for c in row))


def cmd_probe(args: argparse.Namespace) -> int:
    from .measure import device_labels, probe

    with _open(args) as rt:
        table = probe(rt)
        if table.attrs["run"].get("interrupted"):
            print(f"ascend-p2p-lab: interrupted after {len(table)} pairs", file=sys.stderr)
            return 130
        labels = device_labels(rt)
        n = rt.device_count
        data = {"backend": rt.backend, "preset": rt.preset, "device_count": n,
                "devices": labels, "soc_name": rt.soc_name, **_matrix_json(table, n)}
    if args.format == "json":
        print(json.dumps(data, indent=2))
        return 0
    where = f"simulated {data['preset']}" if data["backend"] == "sim" else "pyACL"
    print(f"{n} x {data['soc_name']} ({where})")
    links = data["links"]
    _print_grid("\nLink classes", labels, links)
    acc = [["X" if i == j else str(v) for j, v in enumerate(row)]
           for i, row in enumerate(data["can_access_peer"])]
    _print_grid("\naclrtDeviceCanAccessPeer (row -> column)", labels, acc)
    return 0


def cmd_topo(args: argparse.Namespace) -> int:
    topo = _load_topology(args.file)
    if args.format == "json":
        print(json.dumps({"backend": None, "preset": None, "source": str(args.file),
                          "device_count": topo.device_count, "devices": list(topo.labels),
                          "links": [list(r) for r in topo.links],
                          "cpu_affinity": list(topo.cpu_affinity) or None}, indent=2))
        return 0
    _print_grid(f"{topo.device_count} devices from {args.file}", list(topo.labels),
                [list(r) for r in topo.links])
    return 0


def _sweep_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "pairs": args.pairs, "sizes": args.sizes, "direction": args.direction,
        "peer": args.peer, "initiator": args.initiator,
        "patterns": tuple(p.strip() for p in args.patterns.split(",") if p.strip()),
        "timing": args.timing, "samples": args.samples, "verify": not args.no_verify,
        "progress": not args.no_progress, "out": args.out, "checkpoint": args.checkpoint,
    }


def print_summary(run: Any, out: Path | None = None) -> None:
    """A compact terminal summary of a run: asymptotic bandwidth per case and link class."""
    from .measure import format_size
    from .results import fit_latency_bandwidth, summarize

    meta = run.attrs.get("run", {})
    where = f"simulated {meta.get('preset')}" if meta.get("backend") == "sim" else "pyACL"
    print(f"run {meta.get('run_id')} on {meta.get('device_count')} x {meta.get('soc_name')} "
          f"({where}), {len(run)} rows")
    if meta.get("interrupted"):
        print("interrupted: the rows measured so far are kept")
    good = run[run["bandwidth_GBps"].notna()]
    if len(good):
        top = int(good["size_bytes"].max())
        summ = summarize(good[good["size_bytes"] == top])
        fits = fit_latency_bandwidth(good)
        keys = ["pattern", "direction", "peer", "path", "link"]
        agg = summ.groupby(keys, dropna=False).agg(
            pairs=("bandwidth_GBps_median", "size"),
            median_GBps=("bandwidth_GBps_median", "median"),
            min_GBps=("bandwidth_GBps_median", "min"),
            nominal_GBps=("nominal_GBps", "first")).reset_index()
        if len(fits):
            lat = fits.groupby(keys, dropna=False)["latency_us"].median().rename("latency_us")
            agg = agg.merge(lat.reset_index(), on=keys, how="left")
        print(f"\nat {format_size(top)} (median over samples, then over pairs):")
        print(agg.to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    bad = run[run["error"].notna()].copy()
    if len(bad):
        # one line per kind of failure, not per pair: device numbers become src->dst
        bad["reason"] = bad["error"].str.replace(r"\b\d+ ?-> ?\d+\b", "src->dst", regex=True)
        bad["reason"] = bad["reason"].str.replace(r"\(\d+, \d+\)", "(src, dst)", regex=True)
        reasons = bad.groupby(["pattern", "path", "reason"], dropna=False).size()
        print(f"\n{len(bad)} rows without a number:")
        for (pattern, path, err), count in reasons.items():
            print(f"  {count:>5} x {pattern}/{path}: {err}")
    unverified = run[run["verified"].eq(False).fillna(False)]
    if len(unverified):
        print(f"\nWARNING: {len(unverified)} samples failed data verification")
    if out is not None:
        print(f"\nsaved to {out}")


def cmd_sweep(args: argparse.Namespace) -> int:
    from .measure import sweep

    with _open(args) as rt:
        try:
            run = sweep(rt, **_sweep_kwargs(args))
        except Exception as exc:
            partial = getattr(exc, "partial_frame", None)
            if partial is not None and args.out is not None and (args.out / "run.json").is_file():
                print(f"ascend-p2p-lab: the {len(partial)} rows measured before the failure "
                      f"are saved in {args.out}", file=sys.stderr)
            raise
    print_summary(run, args.out)
    return 130 if run.attrs["run"].get("interrupted") else 0


def cmd_report(args: argparse.Namespace) -> int:
    from .results import load_run

    run = load_run(args.run_dir)
    print_summary(run)
    return _write_report(run, args.out or args.run_dir)


def _write_report(run: Any, out: Path, table: Any = None) -> int:
    """summary.csv and the figures of a run, into out."""
    from .results import summarize

    out.mkdir(parents=True, exist_ok=True)
    summarize(run).to_csv(out / "summary.csv", index=False)
    try:
        from . import plots
    except ImportError as exc:
        print(f"\nno figures: {exc} (pip install 'ascend-p2p-lab[plot]')")
        return 0
    paths = plots.report(run, out, table=table)
    print(f"\nwrote {out / 'summary.csv'} and {len(paths)} figures:")
    for p in paths:
        print(f"  {p}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from .measure import enable_all, probe, sweep
    from .results import save_run
    from .runtime import open_runtime

    out: Path = args.out
    with open_runtime("sim", args.preset or "atlas800t-a2", seed=args.seed) as rt:
        print(f"1. probe: {rt.device_count} x {rt.soc_name} (simulated {rt.preset})")
        table = probe(rt)
        print(f"   {int(table['can_access_peer'].sum())} of {len(table)} ordered pairs can "
              "access each other")
        refused = enable_all(rt)
        print(f"2. peer links: enabled {len(rt.peer_refs())} directions, {len(refused)} refused")
        print("3. sweep: uni- and bidirectional P2P, device-local copies, P2P off and staged")
        run = sweep(rt, sizes=args.sizes, direction="both", peer="both",
                    patterns=("pair", "local"), samples=3, progress=not args.no_progress)
        save_run(run, out)
        out.mkdir(parents=True, exist_ok=True)
        table.to_csv(out / "probe.csv", index=False)
    print_summary(run, out)
    print("\n4. report")
    return _write_report(run, out, table=table)


def cmd_sim_path(args: argparse.Namespace) -> int:
    from .sim import shim_path

    print(shim_path())
    return 0


COMMANDS = {"presets": cmd_presets, "probe": cmd_probe, "topo": cmd_topo, "sweep": cmd_sweep,
            "report": cmd_report, "demo": cmd_demo, "sim-path": cmd_sim_path}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    from .results import ResultsError
    from .runtime import AclError, BackendUnavailable

    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except UsageError as exc:
        print(f"ascend-p2p-lab: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, TypeError, FileNotFoundError, ResultsError, BackendUnavailable) as exc:
        print(f"ascend-p2p-lab: error: {exc}".splitlines()[0], file=sys.stderr)
        return EXIT_USAGE
    except AclError as exc:
        print(f"ascend-p2p-lab: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("ascend-p2p-lab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `ascend-p2p-lab probe --format json | head`
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:  # a path that cannot be read or written: one line, no traceback
        print(f"ascend-p2p-lab: error: {exc}".splitlines()[0], file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
