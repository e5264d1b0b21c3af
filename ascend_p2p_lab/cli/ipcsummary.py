"""What ``sweep --processes`` prints: the in-process summary and matrices as ``sweep``
prints them, then IPC against in-process per link class and initiator.

Example:
    $ ascend-p2p-lab sweep --preset atlas800t-a2 --pairs 0-1,1-0 --sizes 1MiB:16MiB --processes
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ..comparison import compare, split_process_modes
from ..matrices import matrices_json
from ..results import failures
from ..run import Run
from ..terminal import print_summary, run_status
from ..units import format_size
from ..vocab import IN_PROCESS, INITIATOR_WORDS, WORKER_LOST
from .output import Output, output_for

#: Sizes from which the two modes are set against each other (smaller copies are
#: dominated by fixed costs the simulation does not separate by mode).
MIN_COMPARED_BYTES = 1 << 20


def mode_ratios(run: Run) -> pd.DataFrame:
    """IPC / in-process per link class, initiator and size (>= 1 MiB): the median over the
    pairs of the per-point ratios (``comparison.compare`` of the two modes).

    Example:
        >>> mode_ratios(run)  # doctest: +SKIP
           link initiator  size_bytes  ratio  pairs
    """
    cmp = compare(*split_process_modes(run)).points
    cmp = cmp[cmp["size_bytes"] >= MIN_COMPARED_BYTES]
    out = (
        cmp.groupby(["link", "initiator", "size_bytes"])["ratio"]
        .agg(["median", "size"])
        .reset_index()
        .rename(columns={"median": "ratio", "size": "pairs"})
    )
    return out


def emit_processes(run: Run, out: Output | str, saved: Path | None) -> int:
    """Print a ``sweep --processes`` run (table or JSON: ``out``); return its exit status
    (the whole run's: a lost worker's points count as failures)."""
    out, run = output_for(out), Run.of(run)
    status = run_status(run)
    inside = run.select(run.samples["process_mode"] == IN_PROCESS)
    try:
        ratios = mode_ratios(run)
    except ValueError:  # one mode only (interrupted before the other)
        ratios = pd.DataFrame(columns=["link", "initiator", "size_bytes", "ratio", "pairs"])
    out.json(
        lambda: {
            **matrices_json(inside),
            "exit_status": status,
            "saved_to": None if saved is None else str(saved),
            "failures": json.loads(failures(run).to_json(orient="records")),
            "process_modes": json.loads(ratios.to_json(orient="records")),
        }
    )
    out.table(lambda: _print_table(run, inside, ratios, saved))
    return status


def _print_table(run: Run, inside: Run, ratios: pd.DataFrame, saved: Path | None) -> None:
    """The in-process summary and matrices, then IPC / in-process per link class."""
    print_summary(inside if len(inside) else run, saved, matrices=True)
    print("\nacross processes (IPC) / in one process, median over pairs:")
    if ratios.empty:
        print("  nothing to compare (one mode only, or no size of 1 MiB or more)")
    else:
        words = ratios["initiator"].map(INITIATOR_WORDS).fillna(ratios["initiator"])
        table = ratios.assign(initiator=words)
        wide = table.pivot_table(index=["link", "initiator"], columns="size_bytes", values="ratio")

        wide.columns = [format_size(int(c)) for c in wide.columns]
        print(wide.round(3).to_string())
    lost = run.samples[run.samples["error_kind"] == WORKER_LOST]
    if len(lost):
        print(
            f"\n{len(lost)} rows lost with their worker process "
            f"(error_kind worker_lost); the other workers' rows are kept"
        )
