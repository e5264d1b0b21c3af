"""Measure every published figure the toolkit can measure on its simulator, as published.

    python benchmarks/fidelity.py

reads the figures of docs/reference/ascend-topologies.md section E from
``benchmarks/fidelity_figures.toml`` (figure, source, published value or range, unit,
preset, and the sweep that corresponds to how it was published), runs each sweep on the
simulated preset through the public API (``open_runtime``, ``measure.sweep``,
``results.summarize``), and writes ``docs/fidelity.md``: figure, source, published value,
simulated value, difference in percent, and how it was measured. A row is *within* when
the simulated value is within 10% of the published value (of the nearest end of a
range); a row outside carries its known limit (``known_limit`` in the data). Figures the
toolkit cannot measure are listed as such.

Prints a summary and exits 1 if a row outside 10% has no known limit (so it serves as a
check), 0 otherwise. Seeds are fixed (the output is the same on every run of one
commit). Options: ``--out FILE`` (default docs/fidelity.md), ``--figures FILE``, ``--only
ID[,ID...]``, ``--no-write``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parent.parent
FIGURES = Path(__file__).resolve().parent / "fidelity_figures.toml"
OUT = ROOT / "docs" / "fidelity.md"
#: A row is within when |simulated / published - 1| <= this (nearest end of a range).
TOLERANCE = 0.10
SEED = 0
SAMPLES = 3
VALUES = ("bandwidth", "bidir_total", "us_per_copy", "ratio")
SWEEP_KEYS = ("pattern", "direction", "pairs", "groups", "devices", "initiator", "timing")
REQUIRED = (
    "id",
    "figure",
    "platform",
    "source",
    "published",
    "unit",
    "preset",
    "pattern",
    "sizes",
    "value",
    "how",
)
OK, EXPLAINED, UNEXPLAINED = "within 10%", "outside: known limit", "OUTSIDE, NO EXPLANATION"


def load_figures(path: Path = FIGURES) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ``[[figure]]`` and ``[[not_measurable]]`` tables, checked for their keys."""
    data = tomllib.loads(path.read_text())
    figures = data.get("figure", [])
    for fig in figures:
        missing = [k for k in REQUIRED if k not in fig]
        if missing:
            raise ValueError(f"{path}: figure {fig.get('id', '?')}: missing {missing}")
        if fig["value"] not in VALUES:
            raise ValueError(f"{path}: figure {fig['id']}: value must be one of {VALUES}")
    ids = [f["id"] for f in figures]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path}: duplicate figure ids")
    return figures, data.get("not_measurable", [])


def _sweep(fig: Mapping[str, Any]) -> Any:
    """The figure's sweep on its preset (seed fixed); returns the rows."""
    from ascend_p2p_lab import open_runtime
    from ascend_p2p_lab.measure import sweep

    opts: dict[str, Any] = {k: fig[k] for k in SWEEP_KEYS if k in fig}
    opts["patterns"] = (opts.pop("pattern"),)
    if "pairs" in opts:
        opts["pairs"] = [tuple(p) for p in opts["pairs"]]
    if "devices" in opts:
        opts["devices"] = tuple(opts["devices"])
    with open_runtime("sim", preset=fig["preset"], seed=SEED) as rt:
        return sweep(rt, sizes=list(fig["sizes"]), samples=SAMPLES, progress=False, **opts)


def simulated_value(fig: Mapping[str, Any], run: Any) -> float:
    """The figure's value from the rows of its sweep (see ``value`` in the data file)."""
    from ascend_p2p_lab.results import summarize

    bad = run.samples[run.samples["error_kind"].notna()]
    if len(bad):
        raise RuntimeError(f"{fig['id']}: the sweep failed: {bad['error'].iloc[0]}")
    kind = fig["value"]
    if kind == "bidir_total":
        return float(run.samples["bidir_total_GBps"].median())
    s = summarize(run)
    if kind == "ratio":
        small, large = fig["sizes"][:2]
        rate = s.groupby("size_bytes")["bandwidth_GBps_median"].median()
        return float(rate[small] / rate[large])
    col = "bandwidth_GBps_median" if kind == "bandwidth" else "us_per_copy_median"
    return float(s[col].median())


def difference(simulated: float, published: float | Sequence[float]) -> float:
    """simulated / published - 1, against the nearest end of a range (0 inside it).

    Example:
        >>> difference(27.0, [25.2, 25.7]), difference(25.5, [25.2, 25.7])
        (0.05058365758754868, 0.0)
    """
    lo, hi = (published, published) if isinstance(published, (int, float)) else published
    if lo <= simulated <= hi:
        return 0.0
    nearest = lo if simulated < lo else hi
    return simulated / nearest - 1.0


def evaluate(figures: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Measure each figure: one row per figure with value, difference and verdict."""
    rows = []
    for fig in figures:
        value = simulated_value(fig, _sweep(fig))
        diff = difference(value, fig["published"])
        limit = str(fig.get("known_limit", "")).strip()
        within = abs(diff) <= TOLERANCE
        verdict = OK if within else (EXPLAINED if limit else UNEXPLAINED)
        rows.append(
            {
                **fig,
                "simulated": value,
                "difference": diff,
                "verdict": verdict,
                "known_limit": limit,
            }
        )
    return rows


def _published(fig: Mapping[str, Any]) -> str:
    p = fig["published"]
    return f"{p:g}" if isinstance(p, (int, float)) else f"{p[0]:g}–{p[1]:g}"


def _simulated(value: float) -> str:
    return f"{value:.3g}" if abs(value) < 10 else f"{value:.1f}"


def _note(row: Mapping[str, Any]) -> str:
    if row["verdict"] == OK:
        return (
            "within 10% (a known limit is on file: " + row["known_limit"] + ")"
            if row["known_limit"]
            else "within 10%"
        )
    return row["known_limit"] or "**no explanation on file**"


def _header() -> list[str]:
    import ascend_p2p_lab

    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            text=True,
            capture_output=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            text=True,
            capture_output=True,
        ).stdout.strip()
        commit += " (with uncommitted changes)" if dirty else ""
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown (not a git checkout)"
    date = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return [
        "# Fidelity: the simulator against published measurements",
        "",
        f"Made by `python benchmarks/fidelity.py` on {date}, commit {commit}, "
        f"ascend-p2p-lab {ascend_p2p_lab.__version__}; seed {SEED}, {SAMPLES} samples per "
        "point. Do not edit by hand: edit `benchmarks/fidelity_figures.toml` and run it again.",
        "",
        "Each row is one figure of `docs/reference/ascend-topologies.md` section E, measured "
        "on the simulated preset that models its server (section H) with the pattern that "
        "corresponds to how it was published. *Difference* is simulated / published − 1, "
        "against the nearest end of a published range (0 inside it). A row is within when "
        f"the difference is at most {TOLERANCE:.0%}; a row outside says its known limit.",
        "",
    ]


def render(rows: Sequence[Mapping[str, Any]], not_measurable: Sequence[Mapping[str, Any]]) -> str:
    """The Markdown of docs/fidelity.md."""
    lines = _header()
    counts = {v: sum(r["verdict"] == v for r in rows) for v in (OK, EXPLAINED, UNEXPLAINED)}
    lines.append(
        f"**{len(rows)} figures measured: {counts[OK]} within 10%, "
        f"{counts[EXPLAINED]} outside with a known limit, {counts[UNEXPLAINED]} "
        f"outside without one; {len(not_measurable)} not measurable.**"
    )
    lines += [
        "",
        "| Figure | Platform | Source | Published | Simulated | Difference | Preset "
        "| How measured | Verdict |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        cells = [
            r["figure"],
            r["platform"],
            r["source"],
            f"{_published(r)} {r['unit']}",
            f"{_simulated(r['simulated'])} {r['unit']}",
            f"{r['difference']:+.1%}",
            f"`{r['preset']}`",
            r["how"],
            _note(r),
        ]
        lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    lines += [
        "",
        "## Figures the toolkit cannot measure",
        "",
        "| Figure | Platform | Source | Why not |",
        "|---|---|---|---|",
    ]
    for f in not_measurable:
        lines.append(f"| {f['figure']} | {f['platform']} | {f['source']} | {f['reason']} |")
    return "\n".join(lines) + "\n"


def summary(rows: Sequence[Mapping[str, Any]]) -> tuple[str, int]:
    """The lines printed to the terminal, and the exit status (1: unexplained rows)."""
    out = []
    for r in rows:
        out.append(
            f"{r['verdict']:24s} {r['difference']:+7.1%}  {r['id']}: simulated "
            f"{_simulated(r['simulated'])} {r['unit']}, published {_published(r)}"
        )
    bad = [r["id"] for r in rows if r["verdict"] == UNEXPLAINED]
    stale = [r["id"] for r in rows if r["verdict"] == OK and r["known_limit"]]
    out.append(
        f"{len(rows)} figures: {sum(r['verdict'] == OK for r in rows)} within 10%, "
        f"{sum(r['verdict'] == EXPLAINED for r in rows)} outside with a known limit, "
        f"{len(bad)} outside without one" + (f": {', '.join(bad)}" if bad else "")
    )
    if stale:
        out.append(f"within 10% but a known limit is on file (still true?): {', '.join(stale)}")
    return "\n".join(out), 1 if bad else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help="default docs/fidelity.md")
    parser.add_argument("--figures", type=Path, default=FIGURES, help="the figures' data")
    parser.add_argument("--only", default=None, help="comma-separated figure ids")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args(argv)
    figures, not_measurable = load_figures(args.figures)
    if args.only:
        wanted = set(args.only.split(","))
        figures = [f for f in figures if f["id"] in wanted]
        if wanted - {f["id"] for f in figures}:
            parser.error(f"--only: unknown ids {sorted(wanted - {f['id'] for f in figures})}")
    start = time.perf_counter()
    rows = evaluate(figures)
    text, status = summary(rows)
    print(text)
    print(f"measured in {time.perf_counter() - start:.1f} s")
    if not args.no_write:
        args.out.write_text(render(rows, not_measurable))
        print(f"wrote {args.out}")
    return status


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
