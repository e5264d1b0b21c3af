"""A run in the terminal: the summary a command prints, and the verdict it exits with.

Each function takes a :class:`~ascend_p2p_lab.run.Run` or a run frame (its metadata in
the convenience copy, ``Run.of``).

Example:
    >>> from ascend_p2p_lab.results import empty_frame, to_frame
    >>> run_status(to_frame([{"src": 0, "dst": 1, "size_bytes": 4096, "bandwidth_GBps": 26.0}]))
    0
    >>> run_status(empty_frame())  # a run of nothing is no result
    1
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .emptycells import NOT_MEASURED, SAME_DEVICE, TAGS, explain, number_failures
from .run import Run, RunMeta
from .schema import LATENCY_PATTERN, POINT_KEYS, TEST_PATTERN
from .texttable import Column, print_table
from .vocab import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK


def print_grid(title: str, labels: list[str], cells: list[list[str]], align: str = "<") -> None:
    """A labelled N x N grid of short texts (rows = source, columns = destination);
    ``align=">"`` right-aligns the cells (numbers)."""
    width = max(6, *(len(x) + 1 for x in labels), *(len(c) + 1 for row in cells for c in row))
    columns = [Column(width=width), *(Column(lab, width, align) for lab in labels)]
    print_table(([lab, *row] for lab, row in zip(labels, cells)), columns, title=title, sep="")


def _print_values(run: Any) -> None:
    """Every transfer's value and each test's aggregate, every group or card pair: one
    line each, the reason where there is no value."""
    from .matrices import aggregate_values
    from .units import format_size

    table = aggregate_values(run)
    if not len(table):
        return
    table = table.assign(
        size=[format_size(int(s)) for s in table["size_bytes"]],
        transfer=table["transfer"].astype("string").fillna("-"),
        test=table["test"].astype("string").fillna("-"),
        why=table["reason"].fillna(""),
    )
    tests = bool(table["pattern"].eq(TEST_PATTERN).any())
    # a total without a per-direction value (an import's bi cell): its own column
    total = bool((table["total_GBps"].notna() & table["median_GBps"].isna()).any())
    shown = [
        "pattern",
        *(["test", "transfer"] if tests else []),
        *("what", "direction", "initiator", "link", "size", "samples", "median_GBps"),
        *(["total_GBps"] if total else []),
        *("nominal_GBps", "why"),
    ]
    note = "; transfer '-' is the aggregate of all over one window" if tests else ""
    print(f"\nvalues of each copy set (median over samples at the largest size measured{note}):")
    print(
        _words(table[shown]).to_string(index=False, float_format=lambda v: f"{v:.1f}", na_rep="-")
    )


def print_matrices(run: Any) -> None:
    """The run's N x N matrices the way nvbandwidth prints them (rows = source, columns
    = destination, the title saying size, direction, peer mode and unit); a matrix with
    no number at all is one line saying why. An empty cell shows its tag (``n/m``,
    ``n/a``, ``—``, or ``E1``, ``E2``, ... for a failure or a refusal), explained under
    the matrix: the vocabulary of :mod:`.emptycells`, as the figures and the dashboard."""
    import numpy as np

    from .matrices import run_matrices

    run = Run.of(run)
    _print_values(run.samples)
    for m in run_matrices(run):
        values = m.frame.to_numpy(dtype=float)
        empty = [
            (k, r)
            for krow, rrow in zip(m.kinds, m.reasons)
            for k, r in zip(krow, rrow)
            if k is not None
        ]
        if len(empty) == values.size:
            why = sorted({r for k, r in empty if k not in (NOT_MEASURED, SAME_DEVICE)})
            print(f"\n{m.title}: no cell measured ({'; '.join(why) or explain(NOT_MEASURED)})")
            continue
        counts: dict[str, int] = {}
        for k, r in empty:
            if k not in TAGS:
                counts[r] = counts.get(r, 0) + 1
        numbered = number_failures(counts)
        digits = 1 if m.unit == "GB/s" and np.nanmax(values) >= 100 else 2
        cells = [
            [
                f"{v:.{digits}f}" if k is None else TAGS.get(k) or numbered[r]
                for v, k, r in zip(vrow, krow, rrow)
            ]
            for vrow, krow, rrow in zip(values, m.kinds, m.reasons)
        ]
        print_grid(f"\n{m.title}", m.labels, cells, align=">")
        if _local_diagonal(m):
            print(f"  {LOCAL_DIAGONAL}")
        shown = sorted({k for k, _ in empty if k in TAGS}, key=list(TAGS).index)
        for kind in shown:
            print(f"  {TAGS[kind]}: {explain(kind)}")
        for reason, tag in sorted(numbered.items(), key=lambda kv: int(kv[1][1:])):
            print(f"  {tag}: {reason} [{counts[reason]} cell{'s' if counts[reason] != 1 else ''}]")


#: The line under a matrix whose diagonal holds numbers: they are not a pair's.
LOCAL_DIAGONAL = "diagonal: a copy within each device (device-local), not a link between two"


def _local_diagonal(m: Any) -> bool:
    """Whether a device matrix's diagonal holds numbers (the run's local copies)."""
    if m.cards:
        return False
    values = m.frame.to_numpy(dtype=float)
    return any(
        m.kinds[i][i] is None and values[i, i] == values[i, i] for i in range(min(values.shape))
    )


#: The columns that hold what a run measured: a rate, a time, a collective's bandwidth.
NUMBER_COLUMNS = (
    *("bandwidth_GBps", "bidir_total_GBps", "latency_us", "elapsed_us"),
    *("algbw_GBps", "time_us"),
)


def measured_nothing(rows: Any) -> bool:
    """Whether a run's rows hold no measured number and no outcome either (no failure, no
    refusal): a run of nothing, which no reader may present as a result. A run whose
    pairs all refused or could not reach each other holds results, not nothing.

    Example:
        >>> import pandas as pd
        >>> measured_nothing(pd.DataFrame({"bandwidth_GBps": [float("nan")],
        ...                                "error_kind": [None]}))
        True
    """
    numbers = [c for c in NUMBER_COLUMNS if c in rows]
    return not (rows[numbers].notna().any().any() or rows["error_kind"].notna().any())


def run_status(run: Any) -> int:
    """The exit status a run earns: 130 interrupted, 1 when failures cost data points (or
    the sweep stopped on an error, or the run holds no measured number), else 0."""
    from .results import failures

    run = Run.of(run)
    if run.meta.interrupted:
        return EXIT_INTERRUPTED
    if run.meta.failed or len(failures(run.samples)) or measured_nothing(run.samples):
        return EXIT_FAILED
    return EXIT_OK


def _keyed(series: Any, like: Any, keys: list[str]) -> Any:
    """series' index as columns typed as ``like``'s keys (a key missing in every row, as
    an imported run's link, comes out of a groupby as float NaN)."""
    return series.reset_index().astype({k: like[k].dtype for k in keys})


def _print_refusals_and_failures(run: Any) -> None:
    """What the server refused (results, not failures) and what lost data, by kind, code
    and call."""
    from .results import RESULT_KINDS, failures

    results = run[run["error_kind"].isin(RESULT_KINDS).fillna(False).astype(bool)]
    if len(results):
        print(f"\n{len(results)} rows the server answered with a refusal (results, not failures):")
        for (kind, code, call), part in results.groupby(
            ["error_kind", "error_code", "error_call"], dropna=False
        ):
            print(f"  {len(part):>5} x {kind}: {_code_text(code)}{_text(call)}")
    failed = failures(run)
    if len(failed):
        print(
            f"\nFAILED: {int(failed['points'].sum())} points lost data "
            f"({int(failed['rows'].sum())} rows):"
        )
        for row in failed.itertuples(index=False):
            print(
                f"  {row.points:>5} points x {row.kind}: {_code_text(row.code)}"
                f"{_text(row.call)}\n          e.g. {row.example}"
            )


#: The columns :func:`print_summary` reads of the measured rows: a point's keys, what
#: results.summarize and results.fit_latency_bandwidth read (the keys keep cases apart).
SUMMARY_COLUMNS = (
    *POINT_KEYS,
    *("bandwidth_GBps", "elapsed_us", "copies", "verified", "error", "host_bound"),
    *("nominal_GBps", "bidir_total_GBps", "latency_us", "error_kind"),
)


def print_summary(
    run: Any, out: Path | None = None, *, matrices: bool = False, read_from: Path | None = None
) -> None:
    """A compact terminal summary of a run: bandwidth per case and link class at the largest
    size (with ``matrices``, then every N x N matrix: :func:`print_matrices`), what was
    refused (results), what failed (lost data) and the verdict."""
    from .results import fit_latency_bandwidth, inferred_notes, summarize
    from .units import format_size

    run = Run.of(run)
    meta, rows = run.meta, run.samples
    _print_header(meta, len(rows))
    keep = rows["bandwidth_GBps"].notna() & rows["error_kind"].isna()
    # selected several times below: only the columns read (~1 ms a selection, not ~5)
    good = rows[[c for c in rows.columns if c in SUMMARY_COLUMNS]][keep]
    _print_latency(good[good["pattern"] == LATENCY_PATTERN])
    # latency: its bandwidth at 4 bytes says nothing; tests: listed copy by copy below
    good = good[~good["pattern"].isin((LATENCY_PATTERN, TEST_PATTERN))]
    if len(good):
        top = int(good["size_bytes"].max())
        summ = summarize(good[good["size_bytes"] == top])
        fits = fit_latency_bandwidth(good)
        keys = ["pattern", "direction", "peer", "path", "link"]
        # pulls apart from pushes, one process apart from IPC, where a case has both
        keys += [
            c
            for c in ("process_mode", "initiator")
            if good.groupby(keys, dropna=False)[c].nunique().gt(1).any()
        ]
        keys += [c for c in ("die_link", "die_split") if good[c].notna().any()]  # the A3's
        agg = (
            summ.groupby(keys, dropna=False)
            .agg(
                pairs=("bandwidth_GBps_median", "size"),
                median_GBps=("bandwidth_GBps_median", "median"),
                min_GBps=("bandwidth_GBps_median", "min"),
                nominal_GBps=("nominal_GBps", "first"),
            )
            .reset_index()
        )
        at_top = good[(good["size_bytes"] == top) & good["bidir_total_GBps"].notna()]
        if len(at_top):  # bidirectional: both directions together, median per pair first
            per_pair = at_top.groupby([*keys, "src", "dst", "group"], dropna=False)[
                "bidir_total_GBps"
            ].median()
            both = per_pair.groupby(keys, dropna=False).median().rename("both_dirs_GBps")
            agg = agg.merge(_keyed(both, agg, keys), on=keys, how="left")
        if len(fits):
            lat = fits.groupby(keys, dropna=False)["latency_us"].median().rename("latency_us")
            agg = agg.merge(_keyed(lat, agg, keys), on=keys, how="left")
        print(f"\nat {format_size(top)} (median over samples, then over pairs):")
        print(_words(agg).to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    _print_collectives(rows)
    if matrices:
        print_matrices(run)
    _print_refusals_and_failures(rows)
    if measured_nothing(rows):
        print(
            f"\nno measured number: the run's {len(rows)} rows hold no bandwidth, time or "
            "rate, and no failure or refusal either (FAILED: nothing to report)"
        )
    _print_stop(meta)
    for what in meta.fallbacks.values():
        print(f"\nnote: {what}")
    inferred = inferred_notes(run)
    if inferred:
        print(
            "\nnote: these numbers rest on behaviours of the simulated preset that no "
            "source states:"
        )
        for key, why in inferred.items():
            print(f"  {key}: {why}")
    if read_from is not None:  # a saved run, read back (report): nothing new to save
        print(f"\nread from {read_from}")
    else:
        print(
            f"\nsaved to {out}"
            if out is not None
            else "\nnot saved (use --out DIR to keep the run)"
        )
    sys.stdout.flush()


def _print_collectives(rows: Any) -> None:
    """Collectives (own, or an hccl_test import) as hccl_test prints them: size, time,
    algbw, busbw, check, with the prediction from links where the rows carry one."""
    if "operation" not in rows or rows["operation"].isna().all():
        return  # no op at all (a P2P run): not worth importing the collectives (~30 ms)
    from .collectives.table import op_rows, summary, table_text

    ops = op_rows(rows)
    if len(ops):
        print("\ncollectives:")
        print(table_text(summary(ops)))


def _print_header(meta: RunMeta, rows: int) -> None:
    """Which run, where from, how many rows (a joined run: each of its runs); resumed
    blocks; an interrupt."""
    if meta.parts:
        print(f"run {meta.run_id}: {len(meta.parts)} runs joined, {rows} rows")
        for part in meta.parts:
            print(f"  {_origin(RunMeta.from_dict(part))}")
    else:
        print(f"run {_origin(meta)}, {rows} rows")
    if meta.resumed_blocks:
        print(
            f"resumed {meta.resumed_blocks} of {_or_unknown(meta.blocks)} blocks from the "
            "checkpoint"
        )
    if meta.interrupted:
        print("interrupted: the rows measured so far are kept")


def _origin(meta: RunMeta) -> str:
    """``ID on 8 x SOC (simulated PRESET)``: a run and where its numbers come from (an
    import that names no server: ``on a server it does not name``)."""
    where = (
        f"simulated {meta.preset}"
        if meta.backend == "sim"
        else f"imported from {meta.backend}"
        if meta.imported
        else "pyACL"
    )
    n, soc = meta.device_count, guessed_soc(meta)
    server = (
        f"{n} x {soc}"
        if n and soc
        else f"{n} devices"
        if n
        else soc
        if soc
        else "a server it does not name"
    )
    return f"{meta.run_id} on {server} ({where})"


def guessed_soc(meta: RunMeta) -> str | None:
    """The run's SoC as headers print it: ``(guessed)`` after one guessed from topology
    text (``meta.guessed``), not reported by the device."""
    soc = meta.soc_name
    return f"{soc} (guessed)" if soc and "soc_name" in (meta.guessed or {}) else soc


def _or_unknown(count: int | None) -> Any:
    return "?" if count is None else count


def _print_stop(meta: RunMeta) -> None:
    """Why the run stopped early, and how many points it never reached."""
    if meta.failed:
        print(f"\nFAILED: the run stopped early: {meta.failed}")
    if meta.points_not_reached:
        print(
            f"\n{meta.points_not_reached} of {_or_unknown(meta.points)} points not "
            "reached: the run stopped before them (their cells are empty, although asked "
            "for)"
        )


def _words(table: Any) -> Any:
    """The table with its empty words (a link an import does not name) shown as ``-``,
    as its empty numbers are, never ``<NA>``.

    Example:
        >>> import pandas as pd
        >>> _words(pd.DataFrame({"link": pd.Series([pd.NA], dtype="string")}))["link"].tolist()
        ['-']
    """
    import pandas as pd

    out = table.copy()
    for col in out.columns:
        if not pd.api.types.is_numeric_dtype(out[col]):
            out[col] = out[col].astype(object).where(out[col].notna(), "-")
    return out


def _print_latency(rows: Any) -> None:
    """The latency pattern's time per copy at its smallest size, per case and link."""
    if not len(rows) or "latency_us" not in rows:
        return
    from .units import format_size

    small = int(rows["size_bytes"].min())
    at = rows[rows["size_bytes"] == small]
    keys = ["peer", "path", "link"]
    per_pair = at.groupby([*keys, "src", "dst"], dropna=False)["latency_us"].median()
    table = (
        per_pair.groupby(keys, dropna=False)
        .agg(pairs="size", median_us="median", max_us="max")
        .reset_index()
    )
    print(f"\nlatency per copy at {format_size(small)} (median over samples, then over pairs):")
    print(_words(table).to_string(index=False, float_format=lambda v: f"{v:.1f}"))


def _text(value: Any) -> str:
    """A nullable text cell as text ('' for missing)."""
    import pandas as pd

    return "" if value is None or pd.isna(value) else str(value)


def _code_text(code: Any) -> str:
    """``NAME (code) from `` for an ACL code, '' for a missing one."""
    import pandas as pd

    from .codes import error_name

    return "" if code is None or pd.isna(code) else f"{error_name(int(code))} ({int(code)}) from "
