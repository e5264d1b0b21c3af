"""The ``ascend-p2p-lab`` command: presets, probe, topo, sweep, report, demo, sim-path.

Exit status (every command; see ``EXIT_STATUS``): 0 when everything asked for was
measured, 1 when a failure cost data points, 2 for bad input (before any device work),
130 after Ctrl-C. Never a bare traceback.

Example:
    $ ascend-p2p-lab probe --backend sim --preset atlas800t-a3 --format json
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from ._version import __version__
from .terminal import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, print_grid, print_summary, run_status

EXIT_USAGE = 2
DEMO_OUT = "ascend-p2p-demo"
EXIT_STATUS = f"""\
exit status:
  {EXIT_OK}    everything asked for was measured (pairs without P2P and direct copies the
       runtime refused with peer access off are results, not failures)
  {EXIT_FAILED}    a runtime failure, a missing pyACL call, a lost device or a data-verification
       failure cost data points (the rows are still saved; the summary says how many and
       why), or an internal error (one line; the traceback goes to a file)
  {EXIT_USAGE}    bad input, found before any device work
  {EXIT_INTERRUPTED}  interrupted with Ctrl-C (the rows measured so far are kept)
"""


class UsageError(Exception):
    """A bad argument or input file: one line, exit code 2."""


class InternalError(Exception):
    """An unexpected error once the input was accepted: a bug, exit code 1."""


@contextmanager
def _past_input_checks() -> Iterator[None]:
    """From here on a ValueError or TypeError is not bad input but a bug (exit 1)."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        raise InternalError(exc) from exc


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _sub(sub: Any, name: str, help: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=help, description=help, epilog=EXIT_STATUS,
                          formatter_class=argparse.RawDescriptionHelpFormatter)


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
                     description="Probe, toggle and measure P2P copies between Ascend NPUs.",
                     epilog=EXIT_STATUS, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    _sub(sub, "presets", "list the simulated servers")

    p = _sub(sub, "probe", "peer-access matrix and link classes of all devices")
    _add_backend(p)
    p.add_argument("--format", choices=["table", "json"], default="table")

    p = _sub(sub, "topo", "parse npu-smi info -t topo text")
    p.add_argument("file", type=Path)
    p.add_argument("--format", choices=["table", "json"], default="table")

    p = _sub(sub, "sweep", "measure device-to-device copies over a range of sizes")
    _add_backend(p)
    _add_sweep_args(p)

    p = _sub(sub, "report", "figures and a summary of a saved run (replaces the figures of "
                            "an earlier report of it)")
    p.add_argument("run_dir", type=Path)
    p.add_argument("--out", type=Path, default=None, help="folder for figures (default RUN_DIR)")

    p = _sub(sub, "demo", "probe, enable peer links, sweep and report: on the simulator, or "
                          "on a server with --backend acl")
    p.add_argument("--backend", choices=["auto", "acl", "sim"], default=None,
                   help="sim (default; also ASCEND_P2P_LAB_BACKEND), acl or auto")
    p.add_argument("--preset", default=None, help="simulated server (default atlas800t-a2)")
    p.add_argument("--seed", type=int, default=None, help="simulator jitter seed (default 0)")
    p.add_argument("--out", type=Path, default=Path(DEMO_OUT),
                   help=f"folder to write to (default {DEMO_OUT}; an earlier demo there is "
                        "replaced)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace a run of another command in --out")
    p.add_argument("--sizes", default="4KiB:1GiB", help="copy sizes (default 4KiB:1GiB)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")

    _sub(sub, "sim-path", "print a folder whose `acl` package is the simulator")
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
    p.add_argument("--overwrite", action="store_true",
                   help="replace the run already in --out (its samples, metadata, summary and "
                        "figures are removed first)")
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


def _session(args: argparse.Namespace, work: Callable[[Any], int], *,
             backend: str | None = None, preset: str | None = None) -> int:
    """Open the runtime, do the work (which prints and saves its results), then close.

    The results are out before teardown: a failed release, reset or aclFinalize is
    reported after them, and makes the exit status 1.
    """
    from .runtime import open_runtime

    rt = open_runtime(backend or args.backend, preset or args.preset, seed=args.seed,
                      topology=_load_topology(getattr(args, "topology", None)))
    try:
        status = work(rt)
    except BaseException:
        try:
            rt.close()
        except Exception as exc:  # the work's own error is what the user gets
            print(f"ascend-p2p-lab: teardown also failed: {exc}", file=sys.stderr)
        raise
    try:
        rt.close()
    except Exception as exc:
        print(f"ascend-p2p-lab: teardown failed after the results above: {exc}",
              file=sys.stderr)
        return status if status == EXIT_INTERRUPTED else max(status, EXIT_FAILED)
    return status


def cmd_probe(args: argparse.Namespace) -> int:
    from .measure import device_labels, probe

    def work(rt: Any) -> int:
        with _past_input_checks():
            return _probe_output(rt, probe(rt))

    def _probe_output(rt: Any, table: Any) -> int:
        if table.attrs["run"].get("interrupted"):
            print(f"ascend-p2p-lab: interrupted after {len(table)} pairs", file=sys.stderr)
            return EXIT_INTERRUPTED
        labels = device_labels(rt)
        n = rt.device_count
        data = {"backend": rt.backend, "preset": rt.preset, "device_count": n,
                "devices": labels, "soc_name": rt.soc_name, **_matrix_json(table, n)}
        if args.format == "json":
            print(json.dumps(data, indent=2), flush=True)
            return EXIT_OK
        where = f"simulated {data['preset']}" if data["backend"] == "sim" else "pyACL"
        print(f"{n} x {data['soc_name']} ({where})")
        print_grid("\nLink classes", labels, data["links"])
        acc = [["X" if i == j else str(v) for j, v in enumerate(row)]
               for i, row in enumerate(data["can_access_peer"])]
        print_grid("\naclrtDeviceCanAccessPeer (row -> column)", labels, acc)
        sys.stdout.flush()
        return EXIT_OK

    return _session(args, work)


def cmd_topo(args: argparse.Namespace) -> int:
    topo = _load_topology(args.file)
    if args.format == "json":
        print(json.dumps({"backend": None, "preset": None, "source": str(args.file),
                          "device_count": topo.device_count, "devices": list(topo.labels),
                          "links": [list(r) for r in topo.links],
                          "cpu_affinity": list(topo.cpu_affinity) or None}, indent=2))
        return 0
    print_grid(f"{topo.device_count} devices from {args.file}", list(topo.labels),
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


def _sweep_out(args: argparse.Namespace) -> None:
    """Every output path of a sweep, checked before any device work."""
    from .runfolder import check_out_dir, check_out_file

    if args.out is not None:
        check_out_dir(args.out, overwrite=args.overwrite)
    if args.checkpoint is not None:
        check_out_file(args.checkpoint, "--checkpoint")


def _sweep_kept(rt: Any, **kwargs: Any) -> Any:
    """sweep(), or the rows it kept when it stopped on an error after it had started (its
    metadata then says why, and the exit status is 1)."""
    from .measure import sweep

    try:
        return sweep(rt, **kwargs)
    except Exception as exc:
        partial = getattr(exc, "partial_frame", None)
        if partial is None or not partial.attrs.get("run", {}).get("run_id"):
            raise
        return partial


def cmd_sweep(args: argparse.Namespace) -> int:
    from .runfolder import clear_stale

    _sweep_out(args)
    kwargs = _sweep_kwargs(args)

    def work(rt: Any) -> int:
        run = _sweep_kept(rt, **kwargs)  # bad input raises before any row is measured
        with _past_input_checks():
            if args.out is not None:
                clear_stale(args.out)  # the old run's report does not describe this run
            print_summary(run, args.out)
            return run_status(run)

    return _session(args, work)


def cmd_report(args: argparse.Namespace) -> int:
    from .results import load_run
    from .runfolder import check_out_dir, run_info

    out = args.out or args.run_dir
    if args.out is not None:
        check_out_dir(out, overwrite=True)  # figures go there; a run there must be this one
        other = run_info(out).get("run_id")
        if other is not None and other != run_info(args.run_dir).get("run_id"):
            raise UsageError(f"--out {out}: holds another run ({other}); choose another folder")
    run = load_run(args.run_dir)
    with _past_input_checks():
        print_summary(run, args.run_dir)
        _write_report(run, out)
        return run_status(run)


def _write_report(run: Any, out: Path, table: Any = None) -> None:
    """summary.csv and the figures of a run into out, replacing an earlier report there."""
    from .results import summarize
    from .runfolder import clear_report, write_manifest

    out.mkdir(parents=True, exist_ok=True)
    clear_report(out)
    summarize(run).to_csv(out / "summary.csv", index=False)
    written = [out / "summary.csv"]
    try:
        from . import plots
    except ImportError as exc:
        print(f"\nno figures: {exc} (pip install 'ascend-p2p-lab[plot]')")
        write_manifest(out, run.attrs.get("run", {}).get("run_id"), written)
        return
    paths = plots.report(run, out, table=table)
    write_manifest(out, run.attrs.get("run", {}).get("run_id"), [*written, *paths])
    print(f"\nwrote {out / 'summary.csv'} and {len(paths)} figures:")
    for p in paths:
        print(f"  {p}")


def cmd_demo(args: argparse.Namespace) -> int:
    from .measure import enable_all, parse_sizes, probe
    from .results import save_run
    from .runfolder import check_out_dir, clear_stale

    out: Path = args.out
    check_out_dir(out, overwrite=args.overwrite, replaces="demo")
    parse_sizes(args.sizes)  # bad sizes: exit 2 before any device work
    options = {"sizes": args.sizes, "direction": "both", "peer": "both",
               "patterns": ("pair", "local"), "samples": 3}
    state: dict[str, Any] = {}

    def work(rt: Any) -> int:
        with _past_input_checks():
            return _demo_steps(rt)

    def _demo_steps(rt: Any) -> int:
        where = f"simulated {rt.preset}" if rt.simulated else "pyACL"
        print(f"1. probe: {rt.device_count} x {rt.soc_name} ({where})")
        table = probe(rt)
        print(f"   {int(table['can_access_peer'].sum())} of {len(table)} ordered pairs can "
              "access each other")
        refused = enable_all(rt)
        print(f"2. peer links: enabled {len(rt.peer_refs())} directions, {len(refused)} refused")
        print("3. sweep: uni- and bidirectional P2P, device-local copies, P2P off and staged")
        run = _sweep_kept(rt, **options, progress=not args.no_progress)
        run.attrs["run"]["command"] = "demo"
        save_run(run, out)
        clear_stale(out)
        table.to_csv(out / "probe.csv", index=False)
        state.update(run=run, table=table)
        print_summary(run, out)
        return run_status(run)

    status = _session(args, work, backend=args.backend or os.environ.get(
        "ASCEND_P2P_LAB_BACKEND") or "sim", preset=args.preset or "atlas800t-a2")
    if "run" in state and status != EXIT_INTERRUPTED:
        print("\n4. report")
        with _past_input_checks():
            _write_report(state["run"], out, table=state["table"])
    return status


def cmd_sim_path(args: argparse.Namespace) -> int:
    from .sim import shim_path

    print(shim_path())
    return 0


COMMANDS = {"presets": cmd_presets, "probe": cmd_probe, "topo": cmd_topo, "sweep": cmd_sweep,
            "report": cmd_report, "demo": cmd_demo, "sim-path": cmd_sim_path}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (see ``EXIT_STATUS``)."""
    from .results import ResultsError
    from .runfolder import OutputPathError
    from .runtime import AclError, BackendUnavailable, MissingCall

    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args)
    except (UsageError, OutputPathError) as exc:
        print(f"ascend-p2p-lab: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, TypeError, FileNotFoundError, ResultsError, BackendUnavailable) as exc:
        print(f"ascend-p2p-lab: error: {exc}".splitlines()[0], file=sys.stderr)
        return EXIT_USAGE
    except (AclError, MissingCall) as exc:
        print(f"ascend-p2p-lab: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("ascend-p2p-lab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. `ascend-p2p-lab probe --format json | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:  # a path that cannot be read or written: one line, no traceback
        print(f"ascend-p2p-lab: error: {exc}".splitlines()[0], file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # a bug: one line, and the traceback in a file
        if isinstance(exc, InternalError) and exc.__cause__ is not None:
            exc = exc.__cause__  # type: ignore[assignment]
        where = _save_traceback(exc)
        text = f"{type(exc).__name__}: {exc}".splitlines()[0]
        print(f"ascend-p2p-lab: internal error: {text} (traceback in {where})", file=sys.stderr)
        return EXIT_FAILED


def _save_traceback(exc: BaseException) -> str:
    """Write exc's traceback to a file in the temporary folder; return its path."""
    stamp = _dt.datetime.now().strftime("%Y%m%dT%H%M%S")
    try:
        fd, path = tempfile.mkstemp(prefix=f"ascend-p2p-lab-{stamp}-", suffix=".traceback")
        with os.fdopen(fd, "w") as fh:
            traceback.print_exception(type(exc), exc, exc.__traceback__, file=fh)
    except OSError as err:
        return f"nowhere: {err}"
    return path


if __name__ == "__main__":
    sys.exit(main())
