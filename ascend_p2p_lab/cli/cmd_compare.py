"""The ``compare`` command: a run's bandwidth relative to a baseline, point by point.

``compare BASELINE RUN`` loads two run folders; ``compare --against-preset NAME RUN``
re-runs RUN's sweep parameters (``run.json``'s ``params``, with its seed) on the
simulated preset NAME and takes that as the baseline. The verdict is the exit status
(the epilog :func:`add` writes).

Example:
    $ ascend-p2p-lab compare run-monday run-today --threshold 0.9
    $ ascend-p2p-lab compare --against-preset atlas800t-a2 run-today --format json
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..units import format_size
from ..vocab import EXIT_FAILED, EXIT_OK
from .exitstatus import EXIT_USAGE, UsageError, bad_input, past_input_checks
from .options import add_format, add_out, add_topology, subcommand

if TYPE_CHECKING:
    import pandas as pd

    from ..comparison import Comparison
    from .output import Output

#: The command this module adds and runs.
NAME = "compare"

#: At most this many points below the threshold (and unmatched points) in the table;
#: ``--format json`` lists them all.
MAX_LISTED = 50
#: The figure file of one case: ``ratio_uni_on_p2p.png``.
FIGURE_NAME = "ratio_{direction}_{peer}_{path}.png"
#: A cell of the terminal matrix that was not compared, and the same device.
NOT_COMPARED, SAME_DEVICE = ".", "—"
BELOW_MARK = "*"


def run(args: argparse.Namespace) -> int:
    """Compare two runs (or a run and a preset's prediction); print, write, exit."""
    from ..comparison import check_threshold, compare, to_dict, unmatched
    from ..run.folder import check_out_dir, load
    from ..topology import list_presets
    from .collcompare import compare_collectives_cmd, has_collectives
    from .output import output_for

    with bad_input("--threshold: "):
        threshold = check_threshold(args.threshold)
    base_dir, run_dir = _folders(args)
    if args.out is not None:  # before any work: a verdict is never lost to the figures
        check_out_dir(args.out, overwrite=True)
    if args.against_preset is not None and args.against_preset not in list_presets():
        raise UsageError(
            f"--against-preset {args.against_preset}: no such preset (known: "
            f"{', '.join(list_presets())})"
        )
    run, out = load(run_dir), output_for(args.format, indent=2, allow_nan=False)

    if has_collectives(run):  # HCCL's (or the toolkit's) collectives against their links
        return compare_collectives_cmd(args, run, base_dir, threshold, output_for(args.format))
    if base_dir is None:
        baseline, run = _predict(run, run_dir, args.against_preset)
    else:
        baseline = load(base_dir)
        same = same_run(baseline, run, base_dir, run_dir)
        if same:
            print(f"ascend-p2p-lab: note: {same}", file=sys.stderr)
    result = compare(baseline, run, threshold=threshold)
    missing = unmatched(baseline, run)
    if result.points.empty:
        raise UsageError(f"the runs have no measured point in common ({_reasons(missing)})")
    named = _named(args, baseline, run, base_dir)
    with past_input_checks():
        out.json(lambda: {**to_dict(result, missing), **named})
        out.table(lambda: _print_table(result, missing, named))
        if args.out is not None:
            _write_figures(result, args.out, out)
        sys.stdout.flush()
        return EXIT_FAILED if result.points["below"].any() else EXIT_OK


def _named(args: argparse.Namespace, baseline: Any, run: Any, base_dir: Path | None) -> dict:
    """The server a comparison is of and what it judges against, in words (``server``,
    ``criteria_source``): the preset re-run, or BASELINE's folder at --threshold."""
    from .server import UNNAMED, server_of

    if args.against_preset is not None:
        seed = baseline.meta.seed
        return {
            "server": f"{args.against_preset} (preset)",
            "criteria_source": f"RUN's plan simulated on preset {args.against_preset} "
            f"(seed {seed}) x threshold {args.threshold:g}",
        }
    own, base = server_of(run.meta), server_of(baseline.meta)
    server = own or base or UNNAMED
    if own and base and own != base:  # two servers: both said
        server = f"{own}, BASELINE on {base}"
    return {
        "server": server,
        "criteria_source": f"baseline {base_dir} x threshold {args.threshold:g}",
    }


def same_run(baseline: Any, run: Any, base_dir: Path, run_dir: Path) -> str | None:
    """The words saying BASELINE and RUN are one run (one folder, or one run id), whose
    ratios are 1 by construction; None when they are two runs.

    Example:
        >>> same_run(None, None, Path("r"), Path("./r"))
        'BASELINE and RUN are one run (the folder r): every ratio is 1 by construction'
    """
    if Path(base_dir).resolve() == Path(run_dir).resolve():
        what = f"the folder {run_dir}"
    elif baseline.meta.run_id is not None and baseline.meta.run_id == run.meta.run_id:
        what = f"run id {run.meta.run_id}, in {base_dir} and {run_dir}"
    else:
        return None
    return f"BASELINE and RUN are one run ({what}): every ratio is 1 by construction"


def _folders(args: argparse.Namespace) -> tuple[Path | None, Path]:
    """(BASELINE, RUN): BASELINE is None with --against-preset."""
    folders = list(args.folders)
    if args.against_preset is not None:
        if len(folders) != 1:
            raise UsageError(f"with --against-preset give one RUN folder, not {len(folders)}")
        return None, folders[0]
    if len(folders) != 2:
        raise UsageError(
            f"give two run folders, BASELINE and RUN (got {len(folders)}), or "
            "--against-preset NAME and one RUN"
        )
    return folders[0], folders[1]


def _plans(params: Any, folder: Path) -> list[Any]:
    """The SweepSpecs a run's ``params`` describe: an import's ``plans`` (one per family
    of copies), else the one sweep's parameters (lists back to tuples)."""
    from ..measure import SweepSpec

    plans = params.get("plans", [params]) if isinstance(params, dict) else []
    copies = [p for p in plans if isinstance(p, dict) and p.get("sizes") and "patterns" in p]
    if not copies:
        said = ", ".join(
            f"{p['operation']} on {p.get('ranks')} ranks"
            for p in plans
            if isinstance(p, dict) and "operation" in p
        )
        imported = isinstance(params, dict) and "plans" in params
        raise UsageError(
            f"{folder}: its plan is a collective ({said}), which --against-preset does not re-run"
            if said
            else f"{folder}: the import holds no copy at a known size (an ascend-dmi "
            "--dg diagnosis gives values without one): nothing to re-run; judge "
            "it with criteria --from-dmi-diagnosis"
            if imported
            else f"{folder}: run.json has no sweep parameters (params) to re-run"
        )
    names = {f.name for f in dataclasses.fields(SweepSpec)}
    specs = []
    for plan in copies:
        kwargs = {k: v for k, v in plan.items() if k in names}
        for key in ("sizes", "directions", "peers", "patterns", "devices"):
            if kwargs.get(key) is not None:
                kwargs[key] = tuple(kwargs[key])
        if kwargs.get("pairs") is not None:
            kwargs["pairs"] = tuple(tuple(int(d) for d in p) for p in kwargs["pairs"])
        try:
            specs.append(SweepSpec(**kwargs))
        except TypeError as exc:
            raise UsageError(f"{folder}: run.json's params do not make a sweep ({exc})") from None
    return specs


def _predict(run: Any, folder: Path, preset: str) -> tuple[Any, Any]:
    """RUN's plan measured on the simulated ``preset`` with RUN's seed: (the baseline
    run, RUN with card ids placed on the preset's cards)."""
    from ..measure import sweep
    from ..patterns.cards import cards_of
    from ..results import place_cards
    from ..run import Run
    from ..runtime import open_runtime

    meta = Run.of(run).meta
    specs = _plans(meta.params, folder)
    seed = meta.seed if meta.backend == "sim" else None
    with open_runtime("sim", preset=preset, seed=seed) as rt:
        whose = "" if seed is not None else ", the simulator's: the run has none"
        print(f"simulating {folder}'s plan on {preset} (seed {rt.seed}{whose})", file=sys.stderr)
        try:
            run = place_cards(run, cards_of(rt))
        except ValueError as exc:
            raise UsageError(f"{folder}: {exc} ({preset})") from None
        parts = [sweep(rt, spec=spec, progress=sys.stderr.isatty()) for spec in specs]
    return Run.concat(parts), run


def _reasons(missing: pd.DataFrame) -> str:
    """``3 points only in baseline, 2 points only in run``, and a hint when the same
    points differ only in their link class (runs of two different servers)."""
    from ..comparison import KEYS

    if missing.empty:
        return "neither run has a measured point"
    counts = missing["reason"].value_counts(sort=False)
    text = ", ".join(f"{n} points {reason.replace('_', ' ')}" for reason, n in counts.items())
    keys = [k for k in KEYS if k != "link"]
    sides = [missing[missing["reason"] == r] for r in ("only_in_baseline", "only_in_run")]
    same = sides[0].merge(sides[1], on=keys, suffixes=("_b", "_r"))
    if len(same):
        r = same.iloc[0]
        text += (
            f"; the same points have other link classes (e.g. {r['src']} -> {r['dst']}: "
            f"{r['link_b']} in BASELINE, {r['link_r']} in RUN): another server?"
        )
    return text


def _cases(result: pd.DataFrame) -> list[tuple[str, str, str]]:
    """The (direction, peer, path) cases of the pair pattern, in order."""
    from ..schema import PAIR_PATTERN

    pairs = result[result["pattern"] == PAIR_PATTERN]
    return sorted(
        {
            (str(d), str(p), str(q))
            for d, p, q in pairs[["direction", "peer", "path"]].itertuples(index=False)
        }
    )


def _grid_text(grid: Any, i: int, j: int) -> str:
    import pandas as pd

    ratio = grid.ratios.iat[i, j]
    if grid.lost.iat[i, j]:
        return f"lost{BELOW_MARK}"
    if pd.isna(ratio):
        return SAME_DEVICE if i == j else NOT_COMPARED
    return f"{ratio:.2f}{BELOW_MARK if grid.below.iat[i, j] else ''}"


def _print_table(result: Comparison, missing: pd.DataFrame, named: dict) -> None:
    """The server and criteria, the ratio matrix of each case at its largest size, the
    points below, the verdict."""
    from ..comparison import ratio_grid
    from ..terminal import print_grid

    print(f"server {named['server']}; criteria: {named['criteria_source']}")
    meta = result.meta()
    threshold = meta["threshold"]
    points = result.points
    pairs = len(points[["src", "dst", "group"]].astype(object).drop_duplicates())  # cards too
    print(
        f"run      {meta['run_id']} ({meta['run_source']})\n"
        f"baseline {meta['baseline_run_id']} ({meta['baseline_source']})\n"
        f"{len(points)} points compared on {pairs} pairs, threshold {threshold:g}"
    )
    for direction, peer, path in _cases(points):
        grid = ratio_grid(result, direction=direction, peer=peer, path=path)
        n = len(grid.ratios)
        print()
        print_grid(
            f"ratio run / baseline, {direction} peer {peer} ({path}), {grid.title} "
            "(rows = source, columns = destination):",
            [str(i) for i in range(n)],
            [[_grid_text(grid, i, j) for j in range(n)] for i in range(n)],
            align=">",
        )
    print(
        f"({BELOW_MARK} below {threshold:g}; lost: measured in the baseline, not in the "
        f"run; {NOT_COMPARED} not compared)"
    )
    _print_below(points, threshold)
    _print_unmatched(missing)
    below = int(points["below"].sum())
    verdict = (
        f"BELOW: {below} of {len(points)} points below {threshold:g} x baseline"
        if below
        else f"OK: all {len(points)} points at or above {threshold:g} x baseline"
    )
    extra = f" ({len(missing)} points not compared, above)" if len(missing) else ""
    print(f"\n{verdict}{extra}")


def _ends(r: Any) -> str:
    """The ends of a listed point: ``src -> dst``, ``host`` for a host copy's other end,
    a group's own words (``0,1->2,3``) for a card or fan-out, never ``<NA>``.

    Example:
        >>> import pandas as pd
        >>> from types import SimpleNamespace as R
        >>> _ends(R(src=pd.NA, dst=0, group=None)), _ends(R(src=pd.NA, dst=pd.NA, group="0,1->2,3"))
        ('host -> 0', '0,1->2,3')
    """
    import pandas as pd

    if pd.isna(r.src) and pd.isna(r.dst):
        return str(r.group) if isinstance(r.group, str) else "-"
    return " -> ".join("host" if pd.isna(d) else str(d) for d in (r.src, r.dst))


def _print_below(result: pd.DataFrame, threshold: float) -> None:
    import pandas as pd

    from ..schema import PAIR_PATTERN

    below = result[result["below"]].sort_values(["ratio", "src", "dst", "size_bytes"])
    if below.empty:
        return
    print(f"\n{len(below)} points below {threshold:g} (src -> dst, direction, peer, size, ratio):")
    _print_points(
        below,
        lambda r: (
            (
                f"lost ({r.run_error_kind})"
                if pd.isna(r.run_GBps)
                else f"{r.ratio:.2f} ({r.baseline_GBps:.1f} -> {r.run_GBps:.1f} GB/s)"
            )
            + ("" if r.pattern == PAIR_PATTERN else f"  {r.pattern}")
        ),
    )


def _print_unmatched(missing: pd.DataFrame) -> None:
    from ..comparison import REASONS

    if missing.empty:
        return
    print(f"\n{len(missing)} points not compared: {_reasons(missing)}")
    # both sides without a bandwidth (refused with peer access off, say): counted only
    _print_points(missing[missing["reason"] != "measured_in_neither"], lambda r: REASONS[r.reason])


def _print_points(points: pd.DataFrame, what: Any) -> None:
    """The first MAX_LISTED points, a line each ending in ``what(point)``."""
    for r in points.head(MAX_LISTED).itertuples(index=False):
        print(
            f"  {_ends(r)}  {r.direction}  peer {r.peer} ({r.path})  "
            f"{format_size(int(r.size_bytes))}  {what(r)}"
        )
    if len(points) > MAX_LISTED:
        print(f"  ... and {len(points) - MAX_LISTED} more (--format json lists them all)")


def _write_figures(result: Comparison, out: Path, output: Output) -> list[Path]:
    """One ratio heatmap per case into out (messages: notes of ``output``)."""
    stream = output.notes
    try:
        from ..plots import ratio_heatmap  # the plot extra: optional
    except ImportError as exc:
        print(f"\nno figures: {exc} (pip install 'ascend-p2p-lab[plot]')", file=stream)
        return []
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for direction, peer, path in _cases(result.points):
        fig = ratio_heatmap(result, direction=direction, peer=peer, path=path)
        target = out / FIGURE_NAME.format(direction=direction, peer=peer, path=path)
        fig.savefig(target, dpi=fig.dpi)
        paths.append(target)
    print(f"\nwrote {len(paths)} figure{'s' if len(paths) != 1 else ''}:", file=stream)
    for p in paths:
        print(f"  {p}", file=stream)
    return paths


def add(sub: Any) -> None:
    """``compare``: RUN against BASELINE, or against a simulated preset."""
    p = subcommand(
        sub,
        NAME,
        "bandwidth of RUN relative to BASELINE, point by point (or to "
        "what a simulated preset predicts for RUN's plan)",
    )
    p.usage = "%(prog)s [options] BASELINE RUN\n       %(prog)s [options] --against-preset NAME RUN"
    p.epilog = f"""\
exit status:
  {EXIT_OK}    no compared point is below the threshold
  {EXIT_FAILED}    a point is below it (listed: src -> dst, direction, peer, size, ratio); a
       point BASELINE measured and RUN lost (failed, refused) counts as below, ratio 0
  {EXIT_USAGE}    bad input: a missing or unreadable run folder, a bad threshold, runs with
       no measured point in common
"""
    p.add_argument(
        "folders",
        nargs="+",
        type=Path,
        metavar="RUN_DIR",
        help="BASELINE then RUN (run folders, as `sweep --out` writes them); "
        "with --against-preset only RUN",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=0.9,
        metavar="RATIO",  # its default:
        # comparison.DEFAULT_THRESHOLD
        help="a point is below when RUN / BASELINE < this; 0 < RATIO <= 1 (default 0.9)",
    )
    add_format(p, "ratio matrix, points below and verdict", json="json")
    server = p.add_mutually_exclusive_group()  # one server: both at once is exit 2
    server.add_argument(
        "--against-preset",
        default=None,
        metavar="NAME",
        help="no BASELINE folder: re-run RUN's sweep parameters (and seed) on the "
        "simulated preset NAME and compare with that (default: off)",
    )
    add_out(p, "write a ratio heatmap PNG per case into DIR (default: none)", metavar="DIR")
    add_topology(
        server,
        "collectives against a P2P run (BASELINE) of a server that is no "
        "preset: its topology file (default: the preset BASELINE names)",
        metavar="FILE",
    )
