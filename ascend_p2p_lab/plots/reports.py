"""The figures that fit a run, written as PNG files (what ``ascend-p2p-lab report`` does).

:func:`report` first decides which figures fit the run (:func:`plan`: pure pandas, a list
of :class:`Job`), then draws them: one after the other, or split over forked worker
processes when the machine has cores to spare and forking is safe (the figures are
independent; each worker inherits the run, draws its share and writes the PNGs, so the
files are the same either way).
"""

from __future__ import annotations

import gc
import multiprocessing
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..forking import ctrl_c_deferred, idle_workers
from ..run import Run
from ..schema import CARD_PATTERNS, LATENCY_PATTERN, PAIR_PATTERN
from ..vocab import BI, INITIATOR_WORDS, IPC, OFF, ON, PAIR_INITIATORS, UNI
from .aggregates import aggregate_bars, aggregate_stats, card_heatmap
from .collectives import collective_bandwidth, collective_links
from .curves import bandwidth_vs_size, latency_vs_size, peer_on_off, uni_vs_bi
from .dielinks import die_links
from .heatmaps import heatmap, link_matrix, peer_access_matrix
from .host import HOST_DIRECTIONS, host_bandwidth_vs_size
from .prepare import combos, distinct, eq, frame_of, mode_rows, narrow, pair_count
from .processmodes import process_modes
from .style import save_png
from .testbars import CURVE_POINTS, bars_stats, scaling_curve, scaling_stats, transfer_bars
from .textsizes import measured_once
from .tickplaces import ticks_copied

#: At most this many drawing processes (a report has about 15 figures).
MAX_WORKERS = 4


@dataclass(frozen=True)
class Job:
    """One figure of a report: its file name, the function and what it is called with
    (``frame``: ``"run"``, the run's rows copied in one process; ``"all"``, every row,
    the IPC rows of ``sweep --processes`` too; ``"table"``, the probe table)."""

    name: str
    draw: Callable[..., Any]
    kwargs: dict[str, Any] = field(default_factory=dict)
    frame: str = "run"


def report(
    run: Run,
    out_dir: str | Path,
    *,
    table: pd.DataFrame | None = None,
    size: int | str | None = None,
    workers: int = 1,
) -> list[Path]:
    """Write the figures that fit this run as PNGs into out_dir; return their paths.

    Heatmaps for every direction / peer / path present (plus the bidirectional total),
    the link matrix, bandwidth and latency vs size, peer on/off and uni/bi when the run
    has both, the latency matrix (time per copy at the smallest size) when it has the
    latency pattern, host <-> device bandwidth vs size when it has h2d or d2h numbers,
    aggregate bars for fan-outs, groups and cards, and the card matrices. With a probe
    ``table``, the peer-access matrix too. ``workers``: drawing processes (1, the
    default, draws in this process; :func:`default_workers` is what this machine can
    take, which the ``report`` and ``demo`` commands use).

    Example:
        >>> paths = report(run, "out/figures", table=probe(rt))  # doctest: +SKIP
    """
    run = frame_of(run)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    jobs = plan(run, table=table, size=size)
    n = min(max(1, int(workers)), len(jobs))
    frames = {"run": in_process(run), "all": run, "table": table}
    with measured_once(), fewer_collections(), ticks_copied():  # each text measured once
        if n <= 1:
            return [_draw(job, frames, out) for job in jobs]
        global _FORKED
        _FORKED = (jobs, frames, out)
        try:
            with ExitStack() as stack:
                with ctrl_c_deferred():  # the pool made whole, then stopped on leaving
                    pool = stack.enter_context(multiprocessing.get_context("fork").Pool(n))
                return pool.map(_draw_forked, range(len(jobs)), chunksize=1)
        finally:
            _FORKED = None


#: Allocations between two collections of the young generation while a report draws
#: (Python's default is 700: a report's ~2 million short-lived matplotlib objects cost
#: ~330 collections, 0.13 s CPU of the A2 demo's report; at 20,000: 7, 0.02 s).
YOUNG_THRESHOLD = 20_000


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Within: the garbage collector's young generation collected every
    :data:`YOUNG_THRESHOLD` allocations (the thresholds put back on leaving; what is
    garbage is collected all the same, later)."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], YOUNG_THRESHOLD), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


#: What forked workers draw from: (jobs, frames, out), set by report while its pool runs.
_FORKED: tuple[list[Job], dict[str, Any], Path] | None = None


def _draw_forked(i: int) -> Path:
    assert _FORKED is not None
    jobs, frames, out = _FORKED
    return _draw(jobs[i], frames, out)


def _draw(job: Job, frames: dict[str, Any], out: Path) -> Path:
    path = out / job.name
    save_png(job.draw(frames[job.frame], **job.kwargs), path)
    return path


def default_workers() -> int:
    """Drawing processes for this machine (:func:`~ascend_p2p_lab.forking.idle_workers`,
    at most MAX_WORKERS). Each worker pays matplotlib's first-use costs again, so on a
    busy machine one process drawing everything is the faster choice.

    Example: 2 cores, 0.3 of them busy -> 2; 1.4 busy -> 1.
    """
    return idle_workers(MAX_WORKERS)


def in_process(run: pd.DataFrame) -> pd.DataFrame:
    """The run without the IPC rows of ``sweep --processes`` (drawn beside the in-process
    ones by process_modes; every other figure shows copies within one process) and
    without the rows over a chosen die link (drawn by die_links); the run itself when it
    has neither (a selection of every row and ~60 columns costs ~5 ms)."""
    keep = pd.Series(True, index=run.index)
    if "die_link" in run:  # and without the die links' rows (drawn by die_links)
        keep &= run["die_link"].isna().to_numpy(dtype=bool)
    if "process_mode" in run:
        keep &= ~eq(run["process_mode"], IPC)
    return run if keep.all() else run[keep]


#: What :func:`plan` reads of the pair rows (the modes, which rows have which numbers):
#: their selections take these columns, not the run's ~60.
PLANNED = (
    "direction",
    "peer",
    "path",
    "initiator",
    "src",
    "dst",
    "link",
    "size_bytes",
    "bandwidth_GBps",
    "bidir_total_GBps",
    "elapsed_us",
)


def plan(
    run: pd.DataFrame, *, table: pd.DataFrame | None = None, size: int | str | None = None
) -> list[Job]:
    """The figures :func:`report` draws for this run, in order (no drawing here)."""
    jobs: list[Job] = []
    if "process_mode" in run and eq(run["process_mode"], IPC).any():  # sweep --processes
        jobs.append(Job("process_modes.png", process_modes, frame="all"))
        run = in_process(run)
    if "die_link" in run and run["die_link"].notna().any():  # the A3's die links apart
        jobs.append(Job("die_links.png", die_links, frame="all"))
        run = in_process(run)
        if run.empty:
            return jobs
    pairs = narrow(run, PLANNED, eq(run["pattern"], PAIR_PATTERN))
    if table is not None:
        jobs += [
            Job("link_matrix.png", link_matrix, frame="table"),
            Job("peer_access.png", peer_access_matrix, frame="table"),
        ]
    elif pairs["link"].notna().any():  # an import without classes: no matrix of "?"
        jobs.append(Job("link_matrix.png", link_matrix))
    modes = {c: mode_rows(pairs, *c) for c in combos(run)}  # each mode's rows once
    for (direction, peer, path), rows in modes.items():
        for suffix, who in initiators_apart(rows):
            stem = f"heatmap_{direction}_{peer}_{path}"
            kw = {"size": size, "direction": direction, "peer": peer, "path": path, **who}
            jobs.append(Job(f"{stem}{suffix}.png", heatmap, kw))
            if direction == BI and rows["bidir_total_GBps"].notna().any():
                jobs.append(
                    Job(f"{stem}_total{suffix}.png", heatmap, {**kw, "value": "bidir_total_GBps"})
                )
    jobs += _curves(run, pairs, modes)
    latency = run[eq(run["pattern"], LATENCY_PATTERN) & run["latency_us"].notna()]
    for peer, path in sorted(set(zip(latency["peer"], latency["path"]))):
        part = latency[(latency["peer"] == peer) & (latency["path"] == path)]
        smallest = int(part["size_bytes"].min())  # a copy's fixed cost, as in notebook 6
        jobs.append(
            Job(
                f"latency_{peer}_{path}.png",
                heatmap,
                {
                    "size": smallest,
                    "value": "latency_us",
                    "pattern": LATENCY_PATTERN,
                    "peer": peer,
                    "path": path,
                },
            )
        )
    host = run[run["pattern"].isin(list(HOST_DIRECTIONS)).fillna(False).astype(bool)]
    if host["bandwidth_GBps"].notna().any():
        jobs.append(Job("host_bandwidth_vs_size.png", host_bandwidth_vs_size))
    if not aggregate_stats(run).empty:
        jobs.append(Job("aggregates.png", aggregate_bars))
    jobs += _cards(run)
    if run["algbw_GBps"].notna().any():  # collectives: own, or imported from hccl_test
        jobs.append(Job("collective_bandwidth.png", collective_bandwidth))
        if run[["predicted_busbw_GBps", "bound_busbw_GBps"]].notna().any(axis=None):
            jobs.append(Job("collectives_vs_links.png", collective_links))
    if not bars_stats(run).empty:  # tests: each transfer beside the aggregate
        jobs.append(Job("tests.png", transfer_bars))
        if scaling_stats(run)["transfers"].nunique() >= CURVE_POINTS:
            jobs.append(Job("scaling.png", scaling_curve))
    return jobs


def _curves(
    run: pd.DataFrame, pairs: pd.DataFrame, modes: dict[tuple[str, str, str], pd.DataFrame]
) -> list[Job]:
    """Bandwidth and latency vs size, peer on/off and uni vs bi, where the run has them
    (``modes``: each (direction, peer, path) of the run and its pair rows)."""
    jobs: list[Job] = []
    numeric = [c for c, rows in modes.items() if rows["bandwidth_GBps"].notna().any()]
    # a curve needs two sizes; by link class only where the rows name the classes
    curves = [c for c in numeric if _sizes_with(modes[c], "bandwidth_GBps") > 1]
    by = "link" if pair_count(pairs) > 8 and pairs["link"].notna().all() else "pair"
    for direction, peer, path in curves:
        for suffix, who in initiators_apart(modes[direction, peer, path]):
            jobs.append(
                Job(
                    f"bandwidth_vs_size_{direction}_{peer}_{path}{suffix}.png",
                    bandwidth_vs_size,
                    {"by": by, "direction": direction, "peer": peer, "path": path, **who},
                )
            )
    timed = [c for c in curves if _sizes_with(modes[c], "elapsed_us") > 1]
    if timed:  # time per copy: the run's own window of its copies (an import may lack it)
        direction, peer, path = timed[0]
        for suffix, who in initiators_apart(modes[direction, peer, path]):
            jobs.append(
                Job(
                    f"latency_vs_size_{direction}_{peer}_{path}{suffix}.png",
                    latency_vs_size,
                    {"by": by, "direction": direction, "peer": peer, "path": path, **who},
                )
            )
    uni = pairs[eq(pairs["direction"], UNI)]
    if {ON, OFF} <= set(distinct(uni, "peer")) and uni["bandwidth_GBps"].notna().any():
        jobs.append(Job("peer_on_off.png", peer_on_off))
    for peer in ("on", "off"):
        if {UNI, BI} <= {c[0] for c in numeric if c[1] == peer}:
            jobs.append(Job(f"uni_vs_bi_{peer}.png", uni_vs_bi, {"peer": peer}))
    return jobs


def initiators_apart(rows: pd.DataFrame) -> list[tuple[str, dict[str, str]]]:
    """(file name suffix, keyword) per initiator of a mode's rows when they have several
    (``_pull``, ``_push``: a figure each, never a median of both), else one figure.

    Example:
        >>> initiators_apart(pd.DataFrame({"initiator": ["dst", "src", "dst"]}))
        [('_pull', {'initiator': 'dst'}), ('_push', {'initiator': 'src'})]
    """
    present = set(rows["initiator"].dropna().unique())
    found = [i for i in PAIR_INITIATORS if i in present]
    if len(found) < 2:
        return [("", {})]
    return [(f"_{INITIATOR_WORDS[i]}", {"initiator": i}) for i in found]


def _sizes_with(rows: pd.DataFrame, value: str) -> int:
    """How many sizes the rows have a ``value`` at."""
    return int(rows.loc[rows[value].notna(), "size_bytes"].nunique())


def _cards(run: pd.DataFrame) -> list[Job]:
    """The card matrix of each direction measured (bi: with both directions' total)."""
    jobs: list[Job] = []
    cards = run[run["pattern"].isin(CARD_PATTERNS).fillna(False).astype(bool)]
    for direction in distinct(cards, "direction"):
        part = cards[cards["direction"] == direction]
        if part["bandwidth_GBps"].notna().any():  # an imported DMI card matrix: bi total only
            jobs.append(Job(f"card_{direction}.png", card_heatmap, {"direction": direction}))
        if direction == BI and part["bidir_total_GBps"].notna().any():
            jobs.append(
                Job(
                    "card_bi_total.png",
                    card_heatmap,
                    {"direction": "bi", "value": "bidir_total_GBps"},
                )
            )
    return jobs
