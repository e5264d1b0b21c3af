"""The result schema every layer shares: columns and dtypes, vocabularies, error kinds.

One row per sample, units in the column names (``size_bytes``, ``elapsed_us``,
``bandwidth_GBps``). What went wrong is data too: ``error_kind``, ``error_code``,
``error_call`` beside the ``error`` text. ``latency_us`` is the time per copy
(``elapsed_us / copies``) of the ``latency`` pattern's rows, empty on other rows.
The ``h2d`` and ``d2h`` patterns copy between pinned host memory and one device: their
rows have no source (h2d) or no destination (d2h) device, ``path`` is ``host``, and
``cpu_affinity`` holds the CPUs npu-smi (or the preset) names for that device ("0-23"),
empty where unknown and on every other row. The ``group`` and ``card`` patterns copy from
every device of one group to every device of another at once: their rows have no source
or destination device; ``senders`` and ``receivers`` hold the two groups' devices (tuples
of ints), and ``group`` names them for people, senders first ("0,1->2,3"), never parsed.
The ``test`` pattern runs a set of transfers at once (a test file, ``ascend-p2p-lab run``):
``test`` names the test, ``transfer`` is the transfer's index in its list (from 0) on its
rows, and empty on the test's aggregate row (the bytes of all over the window); a host
end of a transfer is an empty ``src`` or ``dst``, and ``initiator`` is ``third`` when a
device that is neither end issues the copy.

Example:
    >>> list(empty_frame().columns[:5])
    ['run_id', 'backend', 'preset', 'host', 'src']
    >>> FAILURE_KINDS
    ('runtime', 'verification', 'missing_call', 'device_lost', 'worker_lost')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from .patterns.builtin import ROW_PATTERNS, rows_where
from .vocab import (
    DEFAULT_PROCESS_MODE,
    DIE_LINK_CHOICES,
    DIRECTIONS,
    DST,
    ERROR_KINDS,
    FAILURE_KINDS,
    HOST_LINK,
    INITIATORS,
    PATHS,
    PEERS,
    PROCESS_MODES,
    REFERENCE,
    RESULT_KINDS,
    SRC,
    TIMINGS,
)

__all__ = [
    "DEFAULT_PROCESS_MODE",
    "ERROR_KINDS",
    "FAILURE_KINDS",
    "HOST_LINK",
    "REFERENCE",
    "RESULT_KINDS",
]


# The pattern words by trait, read off their declarations (patterns/builtin.py), for the
# readers that select rows: never by a pattern's name.
#: Patterns measured on ordered pairs; drawn as device x device matrices.
PAIR_PATTERNS = rows_where(lambda p: p.on_pairs)
#: One ordered pair alone, each copy its own value: the link matrices' pattern.
PAIR_PATTERN = rows_where(lambda p: p.on_pairs and not p.per_copy)[0]
#: A fan-out: one device with all its peers at once; the one that pushes, the one that pulls.
FANOUT_PATTERNS = rows_where(lambda p: p.center is not None)
PUSH_FANOUT, PULL_FANOUT = (
    rows_where(lambda p: p.center == SRC)[0],
    rows_where(lambda p: p.center == DST)[0],
)
#: Host copies; the one whose source is the host (h2d), the one whose destination is.
HOST_PATTERNS = rows_where(lambda p: p.host_end is not None)
HOST_TO_DEVICE, DEVICE_TO_HOST = (
    rows_where(lambda p: p.host_end == SRC)[0],
    rows_where(lambda p: p.host_end == DST)[0],
)
#: Sets of devices to sets at once (senders and receivers); the one of ``--groups``.
GROUP_PATTERNS = rows_where(lambda p: p.grouped)
GIVEN_GROUPS = rows_where(lambda p: p.needs_groups)[0]
CARD_PATTERNS = rows_where(lambda p: p.on_cards)
#: The pattern of whole cards (their dies at once).
CARD_PATTERN = CARD_PATTERNS[0]
#: Patterns whose value adds up the bytes of several copies over one window.
AGGREGATE_PATTERNS = rows_where(lambda p: p.values in ("sum", "sum_per_direction"))
#: The test pattern: a set of transfers (``test`` and ``transfer`` columns).
TEST_PATTERN = rows_where(lambda p: p.of_transfers)[0]
#: A collective's rows: one per phase and the op's (``phase`` empty), hccl_test's columns.
COLLECTIVE_PATTERN = rows_where(lambda p: p.needs_collectives)[0]
LATENCY_PATTERN = rows_where(lambda p: p.per_copy)[0]
LOCAL_PATTERN = rows_where(lambda p: p.within)[0]

#: Column name -> pandas dtype. Scripts may rely on these names; new ones go at the end.
SCHEMA: dict[str, str] = {
    "run_id": "string",
    "backend": "string",
    "preset": "string",
    "host": "string",
    "src": "Int64",
    "dst": "Int64",
    "link": "string",
    "pattern": "string",
    "direction": "string",
    "peer": "string",
    "path": "string",
    "initiator": "string",
    "size_bytes": "int64",
    "copies": "Int64",
    "sample": "Int64",
    "elapsed_us": "float64",
    "bandwidth_GBps": "float64",
    "host_enqueue_us": "float64",
    "host_bound": "boolean",
    "verified": "boolean",
    "error": "string",
    "timing": "string",
    "nominal_GBps": "float64",
    "bidir_total_GBps": "float64",
    "error_kind": "string",
    "error_code": "Int64",
    "error_call": "string",
    "latency_us": "float64",
    "cpu_affinity": "string",
    "group": "string",
    # issue 23: how the copy was issued: in the buffers' own process, or by another
    # process through IPC memory (sweep --processes); rows without it are in_process
    "process_mode": "string",
    "test": "string",
    "transfer": "Int64",
    "senders": "object",
    "receivers": "object",
}
# ---- imported runs (imports/: ascend-dmi, hccl_test): what the tool ran (``operation``:
# "p2p", "h2d", "all_reduce", ...), the capture file and line a row came from, a collective's
# rank count, time per call, algorithm and bus bandwidth (nccl-tests factors) and the
# tool's check word, and a diagnosis threshold. Empty on the toolkit's own rows.
IMPORT_COLUMNS: dict[str, str] = {
    "operation": "string",
    "source_file": "string",
    "source_line": "Int64",
    "ranks": "Int64",
    "time_us": "float64",
    "algbw_GBps": "float64",
    "busbw_GBps": "float64",
    "check_result": "string",
    "threshold_GBps": "float64",
}
SCHEMA.update(IMPORT_COLUMNS)
# ---- collectives (issue 31; the collective pattern, and hccl_test imports compared with
# their links): the algorithm, the devices (``0,1,2,3``), the phase of a phase row (empty on
# the op's row) and its label, the prediction from links beside the measurement, the
# the link bound (the busbw the links alone allow: each phase only its most loaded link or
# budget), the bottleneck (the link or the shared budget that binds the phase that sets the
# time) and where that comes from (``bottleneck_basis``: the simulator's accounting of what
# was saturated, or the prediction on hardware), and how the reduction is done (``inline``
# in the DMA write, or a ``local pass``).
COLLECTIVE_COLUMNS: dict[str, str] = {
    "algorithm": "string",
    "devices": "string",
    "phase": "Int64",
    "phase_label": "string",
    "predicted_time_us": "float64",
    "predicted_busbw_GBps": "float64",
    "bound_busbw_GBps": "float64",
    "bottleneck_src": "Int64",
    "bottleneck_dst": "Int64",
    "bottleneck_budget": "string",
    "bottleneck_basis": "string",
    "reduction": "string",
}
SCHEMA.update(COLLECTIVE_COLUMNS)
# ---- the A3's die links (issue 38; patterns.dielink): the link a copy between the two dies
# of a card took (``sio``, ``hccs``, ``both`` at once), and SIO's share of a ``both`` point's
# bytes. Empty on every other row.
DIE_LINK_COLUMNS: dict[str, str] = {"die_link": "string", "die_split": "float64"}
SCHEMA.update(DIE_LINK_COLUMNS)
COLUMNS = tuple(SCHEMA)

#: The words each text column may hold (load_run refuses others).
VOCABULARY: dict[str, tuple[str, ...]] = {
    "direction": DIRECTIONS,
    "peer": PEERS,
    "path": PATHS,
    "pattern": tuple(ROW_PATTERNS),
    "initiator": INITIATORS,
    "timing": TIMINGS,
    "error_kind": tuple(ERROR_KINDS),
    "process_mode": PROCESS_MODES,
    "die_link": DIE_LINK_CHOICES,
}
#: What identifies one measured point (all samples of it share these).
POINT_KEYS = [
    "pattern",
    "direction",
    "peer",
    "path",
    "initiator",
    "src",
    "dst",
    "group",
    "test",
    "transfer",
    "link",
    "size_bytes",
    "process_mode",
    "die_link",
    "die_split",
]
#: Columns added after the first release; a run saved without them loads with them empty.
ADDED_COLUMNS = (
    "error_kind",
    "error_code",
    "error_call",
    "latency_us",
    "cpu_affinity",
    "group",
    "test",
    "transfer",
    "senders",
    "receivers",
    "process_mode",
    *IMPORT_COLUMNS,
    *COLLECTIVE_COLUMNS,
    *DIE_LINK_COLUMNS,
)
#: Columns whose values are tuples of device ids (lists in Parquet, JSON in CSV:
#: ``run/samples.py``).
LIST_COLUMNS = ("senders", "receivers")


def empty_frame() -> pd.DataFrame:
    """A frame with the schema and no rows."""
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in SCHEMA.items()})


def to_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Rows (dicts with schema keys) as a typed frame.

    The frame carries no run metadata: that travels beside it in an
    :class:`ascend_p2p_lab.run.Run` (``Run(to_frame(rows), meta)``).
    """
    rows = list(rows)
    if not rows:
        return empty_frame()
    # column by column, each list made once: assigning columns to a frame afterwards
    # would copy its blocks (pandas' copy-on-write), once per assignment
    data = {c: [r.get(c) for r in rows] for c in COLUMNS}
    for col in LIST_COLUMNS:  # a list (from JSON) or a tuple: a tuple, hashable
        data[col] = [None if _missing(v) else tuple(int(d) for d in v) for v in data[col]]
    data["process_mode"] = [
        DEFAULT_PROCESS_MODE if _missing(v) else v for v in data["process_mode"]
    ]
    return pd.DataFrame({c: pd.Series(v, dtype=SCHEMA[c]) for c, v in data.items()})


def _missing(v: Any) -> bool:
    """None, NaN or pd.NA: what a row holds where it has no value."""
    return v is None or v is pd.NA or (isinstance(v, float) and v != v)
