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
or destination device, and ``group`` names both groups, senders first ("0,1->2,3").

Example:
    >>> list(empty_frame().columns[:5])
    ['run_id', 'backend', 'preset', 'host', 'src']
    >>> FAILURE_KINDS
    ('runtime', 'verification', 'missing_call', 'device_lost')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

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
}
COLUMNS = tuple(SCHEMA)

#: What went wrong with a row, as data (``error_kind``); ``error`` is the sentence for
#: people, ``error_code`` the ACL return code and ``error_call`` the pyACL call.
ERROR_KINDS: dict[str, str] = {
    "unreachable": "aclrtDeviceCanAccessPeer reports that the pair cannot reach each other",
    "refused": "the runtime refused a direct copy between two devices with peer access off",
    "runtime": "an ACL call failed while setting up or measuring the point",
    "verification": "the bytes that arrived differ from the bytes sent",
    "missing_call": "the installed pyACL lacks a call this point needs",
    "device_lost": "a device of this point was lost earlier in the run; not measured",
}
#: Kinds that are results (the run measured what the server does); every other kind
#: cost data points, and makes a command exit with status 1.
RESULT_KINDS: tuple[str, ...] = ("unreachable", "refused")
FAILURE_KINDS: tuple[str, ...] = tuple(k for k in ERROR_KINDS if k not in RESULT_KINDS)

VOCABULARY: dict[str, tuple[str, ...]] = {
    "direction": ("uni", "bi"),
    "peer": ("on", "off"),
    "path": ("p2p", "direct", "staged", "local", "host"),
    "pattern": ("pair", "one_to_all", "all_to_one", "local", "latency", "h2d", "d2h",
                "group", "card"),
    "initiator": ("src", "dst"),
    "timing": ("events", "host"),
    "error_kind": tuple(ERROR_KINDS),
}
#: What identifies one measured point (all samples of it share these).
POINT_KEYS = ["pattern", "direction", "peer", "path", "initiator", "src", "dst", "group",
              "link", "size_bytes"]
#: Columns added after the first release; a run saved without them loads with them empty.
ADDED_COLUMNS = ("error_kind", "error_code", "error_call", "latency_us", "cpu_affinity",
                 "group")
#: The run folder schema save_run writes (``run.json``'s ``schema_version``); version 1
#: is the first; load_run refuses a run.json without it (runcheck.RUN_FIELDS).
RUN_SCHEMA_VERSION = 1


def empty_frame() -> pd.DataFrame:
    """A frame with the schema and no rows."""
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in SCHEMA.items()})


def to_frame(rows: Iterable[Mapping[str, Any]], meta: Mapping[str, Any] | None = None
             ) -> pd.DataFrame:
    """Rows (dicts with schema keys) as a typed frame; ``meta`` goes to ``attrs['run']``."""
    rows = list(rows)
    frame = pd.DataFrame.from_records(rows, columns=list(COLUMNS)) if rows else empty_frame()
    frame = frame.astype(SCHEMA)
    frame.attrs["run"] = dict(meta or {})
    return frame
