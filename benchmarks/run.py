"""Measure ascend_p2p_lab against its speed targets and write ``benchmarks/results.md``.

    python benchmarks/run.py                       # everything (tens of minutes)
    python benchmarks/run.py --only demo_a2,report,dashboard --baseline 80b2676

Measurements (``--only`` takes a comma-separated list of these names; ``demo`` is both
demos, ``sweeps`` both sweeps, ``render`` none: results.md is rewritten from the JSON):

- ``a2``, ``a3``: a full sweep of the preset in a fresh process (:mod:`sweeps`);
- ``overhead``: ``Runtime.enqueue_copies`` against a bare ``memcpy_async`` loop;
- ``import``: ``import ascend_p2p_lab`` against ``import pandas``;
- ``demo_a2``, ``demo_a3``, ``report``, ``dashboard``: the first run (:mod:`firstrun`);
- ``demo_a2_1core``, ``demo_a3_1core``, ``report_1core`` (group ``one_core``): the same,
  each tree confined to one core (``os.sched_setaffinity``: one worker), as on a
  newcomer's machine busy with something else; wall and CPU seconds, after / before;
- ``notebooks``: nbval over ``notebooks/``; ``suite``: the README's ``python -m pytest``;
- ``collectives``: the five collectives at eight sizes on the A2 and the A3 (:mod:`collectives`);
- ``report_cpu``: ``report`` of the A2 demo run on one core, its CPU (:mod:`startup`);
- ``cli_start``: ``--help`` and every command's ``--help`` against ``import argparse``.

``--baseline DIR_OR_COMMIT`` runs the sweeps, the first-run measurements and the suite
alternately with another tree (a folder holding the package, or a commit exported with ``git
archive``) and compares the demos' rows and figures. The raw numbers are kept in
``benchmarks/results.json``; a run with ``--only`` replaces just those entries, and
``results.md`` is written from all of them (each says when, at which commit and at which
load it was taken), followed by ``benchmarks/findings.md`` and the fleet section that
``benchmarks/fleet.py`` writes.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import collectives
import firstrun
import startup
import suite
import sweeps
from harness import ROOT, baseline_tree, commit_of, load, machine, one_core
from writeup import render

ALL = (
    "a2",
    "a3",
    "overhead",
    "import",
    "demo_a2",
    "demo_a3",
    "report",
    "demo_a2_1core",
    "demo_a3_1core",
    "report_1core",
    "dashboard",
    "notebooks",
    "suite",
    "collectives",
    "report_cpu",
    "cli_start",
)
GROUPS = {
    "demo": ("demo_a2", "demo_a3"),
    "one_core": ("demo_a2_1core", "demo_a3_1core", "report_1core"),
    "sweeps": ("a2", "a3"),
    "render": (),
}  # nothing measured: results.md rewritten from results.json
#: Sections other benchmarks write into the same file (benchmarks/fleet.py), kept as they are.
KEPT_SECTIONS = (("<!-- fleet benchmark: begin -->", "<!-- fleet benchmark: end -->"),)


def kept_sections(path: Path) -> str:
    """The marked sections of the file being replaced, to append after the new report."""
    if not path.exists():
        return ""
    old = path.read_text()
    out = []
    for begin, end in KEPT_SECTIONS:
        i, j = old.find(begin), old.find(end)
        if i >= 0 and j > i:
            out.append("\n" + old[i : j + len(end)] + "\n")
    return "".join(out)


def selected(only: str | None) -> list[str]:
    """The measurement names ``--only`` asks for, in the order of ALL."""
    if not only:
        return list(ALL)
    names = set()
    for word in only.split(","):
        word = word.strip()
        if word not in ALL and word not in GROUPS:
            raise SystemExit(
                f"--only: unknown measurement {word!r}; choose from {', '.join([*ALL, *GROUPS])}"
            )
        names.update(GROUPS.get(word, (word,)))
    return [n for n in ALL if n in names]


def measurements(
    args: argparse.Namespace, base: str | None, state: dict[str, Any]
) -> dict[str, Callable[[], dict[str, Any]]]:
    """Each measurement's call (``state`` carries the A2 demo run to the report)."""
    r = args.repeats

    def demo_run() -> str:
        if "run_dir" not in state:
            state.update(firstrun.measure_demo("atlas800t-a2", 1, base))
        return str(state["run_dir"])

    def report(cores: set[int] | None = None) -> dict[str, Any]:
        return firstrun.measure_report(demo_run(), r, base, state.get("baseline_run_dir"), cores)

    one = one_core()

    return {
        "a2": lambda: sweeps.measure_sweep("atlas800t-a2", r, base),
        "a3": lambda: sweeps.measure_sweep("atlas800t-a3", r, base),
        "overhead": sweeps.measure_overhead,
        "import": sweeps.measure_import,
        "demo_a2": lambda: firstrun.measure_demo("atlas800t-a2", r, base),
        "demo_a3": lambda: firstrun.measure_demo("atlas800t-a3", args.a3_repeats, base),
        "report": report,
        "demo_a2_1core": lambda: firstrun.measure_demo("atlas800t-a2", r, base, one),
        "demo_a3_1core": lambda: firstrun.measure_demo("atlas800t-a3", args.a3_repeats, base, one),
        "report_1core": lambda: report(one),
        "dashboard": lambda: firstrun.measure_dashboard(r, base),
        "notebooks": sweeps.measure_notebooks,
        "suite": lambda: suite.measure_suite(r, base),
        "collectives": lambda: collectives.measure_collectives(r),
        "report_cpu": lambda: startup.measure_report_cpu(demo_run(), max(r, 3), base),
        "cli_start": lambda: startup.measure_cli_start(r, base),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help=f"comma-separated: {', '.join([*ALL, *GROUPS])}")
    ap.add_argument("--repeats", type=int, default=3, help="runs per measurement (median)")
    ap.add_argument("--a3-repeats", type=int, default=1, help="runs of the A3 demo")
    ap.add_argument(
        "--baseline",
        metavar="DIR_OR_COMMIT",
        help="another tree to measure alternately as 'before'",
    )
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results.md"))
    ap.add_argument(
        "--json",
        default=str(ROOT / "benchmarks" / "results.json"),
        help="the raw numbers, merged across runs",
    )
    args = ap.parse_args(argv)
    names = selected(args.only)
    keep: list[tempfile.TemporaryDirectory] = []
    base, label = baseline_tree(args.baseline, keep) if args.baseline else (None, "")
    raw = Path(args.json)
    res: dict[str, Any] = json.loads(raw.read_text()) if raw.exists() else {}
    res["machine"] = machine()
    state: dict[str, Any] = {}
    calls = measurements(args, base, state)
    for name in names:
        before = load()
        print(f"{name} ...", flush=True)
        out = calls[name]()
        state.update({k: out[k] for k in ("run_dir", "baseline_run_dir") if k in out})
        out.update(
            when=_dt.datetime.now().astimezone().isoformat(timespec="seconds"),
            commit=commit_of(ROOT),
            load=(before, load()),
            baseline=label or None,
        )
        res[name] = out
        raw.write_text(json.dumps(res, indent=1, default=str) + "\n")
        print(
            f"  {json.dumps({k: v for k, v in out.items() if k != 'runs'}, default=str)}",
            flush=True,
        )
    Path(args.out).write_text(render(res) + kept_sections(Path(args.out)))
    print(f"wrote {args.out} and {raw}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
