"""``results.md`` from the measurements: the machine, each number beside its target, the
details, the before/after pairs, then the hand-written findings (``findings.md``).

Every measurement carries when it was taken, the commit and the load average around it,
so a file that merges runs (``run.py --only ...``) still says where each number came from.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

TARGETS = {
    "a2": 5.0,  # s, atlas800t-a2 full sweep
    "a3": 20.0,  # s, atlas800t-a3 full sweep
    "rss_mib": 500.0,  # MiB, peak RSS of a sweep's process
    "overhead": 1.2,  # enqueue_copies / bare memcpy_async loop, per copy
    "import": 1.3,  # import ascend_p2p_lab / import pandas
    "notebooks": 180.0,  # s, nbval over notebooks/
    "demo_a2": 8.0,  # s, `demo` on the A2
    "demo_a3": 25.0,  # s, `demo --preset atlas800t-a3`
    "report": 3.0,  # s, `report` of the A2 demo run
    "dashboard": 2.0,  # s, the dashboard's re-run on the A2
    "suite": 240.0,  # s, the README's `python -m pytest`
    "suite_ratio": 1.0,  # issues 41, 42: the README's test command no slower than the baseline
    "collectives": 15.0,  # s, five collectives at eight sizes on the A2 and the A3
    # issue 42, against the release 80b2676 measured alternately (--baseline 80b2676)
    "demo_cpu_ratio": 0.35,  # the demo's CPU seconds, after / before (every core)
    "demo_1core_ratio": 0.4,  # the demo's wall time on one core, after / before
    "report_cpu": 0.5,  # CPU of `report` on one core / the commit before issue 42's work
    "cli_start": 5.0,  # `--help` (and every command's) / `python -c "import argparse"`
}


def _ok(flag: bool | None) -> str:
    return "n/a" if flag is None else ("PASS" if flag else "FAIL")


def _when(r: dict[str, Any]) -> str:
    return (
        f"{r['when'][:16].replace('T', ' ')}, commit {r['commit']}, load "
        f"{r['load'][0]:.1f}/{r['load'][1]:.1f}"
    )


def _first_run_rows(res: dict[str, Any]) -> list[tuple[str, str, str, bool | None]]:
    rows = []
    for key, what in (
        ("demo_a2", "`demo` on the A2 (sweep, report; same rows and figures)"),
        ("demo_a3", "`demo --preset atlas800t-a3`"),
        ("report", "`report` of the A2 demo run (14 figures)"),
        ("dashboard", "Dashboard re-run on the A2, default controls (Python side)"),
    ):
        r = res.get(key)
        if not r:
            rows.append((what, f"<= {TARGETS[key]:g} s", "not measured", None))
            continue
        wall = r["after"]["wall_s"]
        text = f"{wall:.2f} s (CPU {r['after']['cpu_s']:.2f} s)"
        rows.append((what, f"<= {TARGETS[key]:g} s", text, wall <= TARGETS[key]))
    return rows


def _ratio_rows(res: dict[str, Any]) -> list[tuple[str, str, str, bool | None]]:
    """Issue 42's targets: the demos' CPU on every core and wall on one core, after /
    before (the baseline the run names, alternately)."""
    rows = []
    for key, ratio, target, what in (
        ("demo_a2", "cpu_ratio", "demo_cpu_ratio", "A2 demo CPU seconds, after / before"),
        ("demo_a3", "cpu_ratio", "demo_cpu_ratio", "A3 demo CPU seconds, after / before"),
        ("demo_a2_1core", "ratio", "demo_1core_ratio", "A2 demo wall on one core, after / before"),
        ("demo_a3_1core", "ratio", "demo_1core_ratio", "A3 demo wall on one core, after / before"),
    ):
        r = res.get(key)
        if r and ratio in r:
            got = f"{r[ratio]:.2f} (against {r.get('baseline') or '?'})"
            rows.append((what, f"<= {TARGETS[target]:g}", got, r[ratio] <= TARGETS[target]))
    return rows


def _startup_rows(res: dict[str, Any]) -> list[tuple[str, str, str, bool | None]]:
    """The report's CPU on one core against a baseline, and the command line's start."""
    rows: list[tuple[str, str, str, bool | None]] = []
    if rc := res.get("report_cpu"):
        a, b = rc["after"], rc.get("before")
        text = f"{a['cpu_s']:.2f} s CPU ({a['wall_s']:.2f} s wall)"
        if b and "ratio" in rc:
            text += f" / {b['cpu_s']:.2f} s before = {rc['ratio']:.2f}; {rc['same_figures']}"
        rows.append(
            (
                "`report` of the A2 demo run on one core: CPU / the baseline's",
                f"<= {TARGETS['report_cpu']:g}",
                text,
                rc["ratio"] <= TARGETS["report_cpu"] if "ratio" in rc else None,
            )
        )
    if cs := res.get("cli_start"):
        a = cs["after"]
        worst = max(a["ratio"], a["slowest_ratio"])
        before = f"; before {cs['before']['ratio']:.1f}x" if "before" in cs else ""
        rows.append(
            (
                "`ascend-p2p-lab --help` (and the slowest command's) / `import argparse`",
                f"<= {TARGETS['cli_start']:g}",
                f"{a['ratio']:.1f}x ({a['help_s'] * 1e3:.0f} / {a['argparse_s'] * 1e3:.0f} ms); "
                f"{a['slowest']}: {a['slowest_ratio']:.1f}x{before}",
                worst <= TARGETS["cli_start"],
            )
        )
    return rows


def target_rows(res: dict[str, Any]) -> list[tuple[str, str, str, bool | None]]:
    """(what, target, measured, pass) for every measurement present."""
    rows: list[tuple[str, str, str, bool | None]] = []
    for key, what in (
        ("a2", "Full sweep, atlas800t-a2 (56 pairs, 4 KiB-1 GiB, 5 samples, uni+bi)"),
        ("a3", "Full sweep, atlas800t-a3 (240 pairs, same)"),
    ):
        s = res.get(key)
        rows.append(
            (
                what,
                f"<= {TARGETS[key]:g} s wall",
                f"{s['wall_s']:.2f} s" if s else "not measured",
                s["wall_s"] <= TARGETS[key] if s else None,
            )
        )
    if "a2" in res and "a3" in res:
        rss = max(res["a2"]["maxrss_mib"], res["a3"]["maxrss_mib"])
        rows.append(
            (
                "Peak memory of a sweep's process (a2 / a3)",
                f"<= {TARGETS['rss_mib']:g} MiB",
                f"{res['a2']['maxrss_mib']:.0f} / {res['a3']['maxrss_mib']:.0f} MiB",
                rss <= TARGETS["rss_mib"],
            )
        )
    if ov := res.get("overhead"):
        rows.append(
            (
                "Harness overhead: enqueue_copies / bare memcpy_async loop, per copy",
                f"<= {TARGETS['overhead']:g}",
                f"{ov['ratio']:.3f}",
                ov["ratio"] <= TARGETS["overhead"],
            )
        )
    if im := res.get("import"):
        rows.append(
            (
                "`import ascend_p2p_lab` / `import pandas` (median of fresh interpreters)",
                f"<= {TARGETS['import']:g}, no matplotlib/ipywidgets",
                f"{im['ratio']:.3f} ({im['lab_ms']:.1f} / {im['pandas_ms']:.1f} ms); "
                f"pulled in: {', '.join(im['loaded']) or 'nothing of those'}",
                im["ratio"] <= TARGETS["import"]
                and not set(im["loaded"]) & {"matplotlib", "ipywidgets"},
            )
        )
    rows += _first_run_rows(res)
    rows += _ratio_rows(res)
    rows += _startup_rows(res)
    if co := res.get("collectives"):
        a2, a3 = (co["presets"][p] for p in ("atlas800t-a2", "atlas800t-a3"))
        ratios = [r for p in (a2, a3) for r in (p["ratio_min"], p["ratio_max"])]
        rows.append(
            (
                "Collectives: 5 ops x 8 sizes on the A2 and the A3 (1 sample each, verified)",
                f"<= {TARGETS['collectives']:g} s",
                f"{co['wall_s']:.2f} s (A2 {a2['wall_s']:.1f}, A3 {a3['wall_s']:.1f}; "
                f"CPU {co['cpu_s']:.1f} s); busbw / predicted "
                f"{min(ratios):.3f}-{max(ratios):.3f}",
                co["wall_s"] <= TARGETS["collectives"] and a2["verified"] and a3["verified"],
            )
        )
    for key, what in (
        ("notebooks", "Notebook suite under nbval"),
        ("suite", "The README's test command (`python -m pytest`)"),
    ):
        nb = res.get(key)
        if nb and nb.get("status") == "measured":
            rows.append(
                (
                    what,
                    f"<= {TARGETS[key]:g} s",
                    f"{nb['wall_s']:.1f} s ({nb['summary']})",
                    nb["wall_s"] <= TARGETS[key] and nb["returncode"] == 0,
                )
            )
        else:
            rows.append((what, f"<= {TARGETS[key]:g} s", "not measured", None))
    if (su := res.get("suite")) and "ratio" in su:
        rows.append(
            (
                "The README's test command, wall after / before (alternating)",
                f"<= {TARGETS['suite_ratio']:g} (no slower)",
                f"{su['ratio']:.2f}, CPU {su['cpu_ratio']:.2f} (against {su['baseline']}; "
                f"{su['wall_s']:.0f} / {su['before']['wall_s']:.0f} s)",
                su["ratio"] <= TARGETS["suite_ratio"]
                and su["returncode"] == 0
                and su["before"]["returncode"] == 0,
            )
        )
    return rows


def machine_lines(m: dict[str, Any]) -> list[str]:
    return [
        "## Machine",
        "",
        "| | |",
        "|---|---|",
        f"| CPU | {m['cpu']} |",
        f"| Cores (os.cpu_count) | {m['cores']} |",
        f"| RAM | {m['ram_gib']} GiB |",
        f"| OS | {m['platform']} |",
        f"| Python | {m['python']} |",
        f"| numpy / pandas / matplotlib | {m['numpy']} / {m['pandas']} / "
        f"{m.get('matplotlib', '?')} |",
        "",
    ]


def sweep_lines(res: dict[str, Any]) -> list[str]:
    out = [
        "### Sweeps",
        "",
        '`sweep(rt, sizes="4KiB:1GiB", direction="both", samples=5, progress=False)` '
        "on the simulator, each in a fresh child process; the median wall time of the "
        "`sweep(...)` call alone. Peak memory: the child's `ru_maxrss` from `os.wait4`.",
        "",
        "| Preset | Taken | Wall (median, min-max) | CPU | Copies enqueued | Rows | "
        "Peak RSS | Before: wall (CPU) | After / before |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for key in ("a2", "a3"):
        s = res.get(key)
        if not s:
            continue
        b = s.get("before")
        before = f"{b['wall_s']:.2f} s ({b['cpu_s']:.2f} s)" if b else "-"
        ratio = f"{s['ratio']:.2f}" if "ratio" in s else "-"
        out.append(
            f"| {s['preset']} | {_when(s)} | {s['wall_s']:.2f} s ({s['wall_min_s']:.2f}"
            f"-{s['wall_max_s']:.2f}) | {s['cpu_s']:.2f} s | {s['copies']:,} | "
            f"{s['rows']:,} | {s['maxrss_mib']:.0f} MiB | {before} | {ratio} |"
        )
    if ov := res.get("overhead"):
        out += [
            "",
            f"Harness overhead ({_when(ov)}): {ov['rounds']} alternating rounds of "
            f"{ov['copies']:,} copies of 4 KiB; median per copy: bare {ov['bare_ns']:.0f} "
            f"ns, enqueue_copies {ov['loop_ns']:.0f} ns; ratio {ov['ratio']:.3f} (of the "
            f"minima {ov['ratio_of_minima']:.3f}).",
        ]
    if im := res.get("import"):
        out += [
            "",
            f"Import ({_when(im)}): `import X` in {im['repeats']} fresh interpreters "
            "per module, interleaved, after one warm-up each; median.",
        ]
    return [*out, ""]


def first_run_lines(res: dict[str, Any]) -> list[str]:
    out = [
        "### The first run: demo, report, dashboard",
        "",
        "Each in a fresh process; wall and CPU (the child's and its drawing workers') of "
        "`cli.main(...)` after importing the package and pandas; with a baseline, the "
        "two trees ran alternately and after / before is the median of the per-round "
        "ratios of wall time (and of CPU seconds). `_1core`: each tree confined to one "
        "core (one worker), as on a machine busy with something else.",
        "",
        "| What | Taken | After: wall (CPU) | Report step | Before: wall (CPU) | After / "
        "before: wall, CPU | Same rows | Same figures |",
        "|---|---|---|---|---|---|---|---|",
    ]
    keys = ("demo_a2", "demo_a3", "report", "demo_a2_1core", "demo_a3_1core", "report_1core")
    for key in (*keys, "dashboard"):
        r = res.get(key)
        if not r:
            continue
        a, b = r["after"], r.get("before")
        step = f"{a['report_s']:.2f} s" if "report_s" in a and key != "report" else "-"
        if key == "dashboard":
            step = f"{a['draws']:.0f} draw(s), {a['draw_cpu_s']:.2f} s CPU"
        before = f"{b['wall_s']:.2f} s ({b['cpu_s']:.2f} s)" if b else "-"
        ratio = f"{r['ratio']:.2f}" if "ratio" in r else "-"
        if "cpu_ratio" in r:
            ratio += f", {r['cpu_ratio']:.2f}"
        out.append(
            f"| {key} | {_when(r)} | {a['wall_s']:.2f} s ({a['cpu_s']:.2f} s) | {step} "
            f"| {before} | {ratio} | {r.get('same_rows', '-')} | "
            f"{r.get('same_figures', '-')} |"
        )
    return [*out, ""]


def suite_rounds(su: dict[str, Any]) -> list[str]:
    """The suite's runs, round by round (before first when there is a baseline)."""
    out = [
        f"The suite against {su['baseline']}, alternately, each tree's command run in its "
        "own folder with `PYTHONPATH` set to it; the notebooks' kernels imported "
        + "; ".join(f"{k}: `{v}`" for k, v in su.get("kernels_import", {}).items())
        + ". After / before: the median of the per-round ratios.",
        "",
        "| Round | Tree | Wall | CPU | Passed | Skipped | Failed | Exit | Load |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for i, (b, a) in enumerate(zip(su["before"]["runs"], su["runs"]), 1):
        for side, r in (("before", b), ("after", a)):
            c = r["counts"]
            out.append(
                f"| {i} | {side} | {r['wall_s']:.1f} s | {r['cpu_s']:.1f} s | "
                f"{c.get('passed', 0)} | {c.get('skipped', 0)} | "
                f"{c.get('failed', 0) + c.get('errors', 0) + c.get('error', 0)} | "
                f"{r['returncode']} | {r.get('load', float('nan')):.1f} |"
            )
    return [*out, ""]


def tests_lines(res: dict[str, Any]) -> list[str]:
    out = []
    for key in ("notebooks", "suite"):
        nb = res.get(key)
        if nb and nb.get("status") == "measured":
            out += [
                f"`{nb['command']}` ({_when(nb)}): exit code {nb['returncode']}, "
                f"{nb['wall_s']:.1f} s: {nb['summary']}.",
                "",
            ]
            if "before" in nb:
                out += suite_rounds(nb)
    return out


def render(res: dict[str, Any]) -> str:
    """The whole results.md."""
    out = [
        "# Benchmark results",
        "",
        "Written by `python benchmarks/run.py` (see `benchmarks/README.md`); each "
        "measurement says when it was taken, at which commit and the 1-minute load "
        "average before/after it (2 cores: a load above ~1 means other work shared them).",
        "",
        *machine_lines(res["machine"]),
        "## Targets",
        "",
        "| What | Target | Measured | |",
        "|---|---|---|---|",
        *[f"| {w} | {t} | {v} | {_ok(p)} |" for w, t, v, p in target_rows(res)],
        "",
        "## Details",
        "",
        *sweep_lines(res),
        *first_run_lines(res),
        *tests_lines(res),
    ]
    findings = HERE / "findings.md"
    if findings.exists():
        out.append(findings.read_text())
    return "\n".join(out).rstrip() + "\n"
