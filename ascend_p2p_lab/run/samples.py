"""A run's samples as a run folder stores them: typed columns, device lists, and the
checks every samples file passes when it is read back.

Parquet keeps the device lists (``senders``, ``receivers``) as lists; ``samples.csv`` holds
them as JSON text; a run of schema 1 had none and gets them from its ``group`` labels
(:func:`_legacy_groups`, the one reader of that label). Text where a number belongs is
refused with one line naming the column, never converted without a word.

Example:
    >>> from ascend_p2p_lab.schema import to_frame
    >>> f = to_frame([{"size_bytes": 4096, "senders": (0, 1), "receivers": [2]}])
    >>> list(lists_for_csv(f)[["senders", "receivers"]].iloc[0])
    ['[0, 1]', '[2]']
    >>> check_column_types(f.astype({"bandwidth_GBps": "object"}).assign(bandwidth_GBps="x"))
    Traceback (most recent call last):
    ...
    ValueError: column bandwidth_GBps holds text, not numbers
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from ..schema import ADDED_COLUMNS, CARD_PATTERNS, COLUMNS, LIST_COLUMNS, SCHEMA, VOCABULARY
from .meta import RUN_SCHEMA_VERSION

#: The run schema that first saved ``senders`` and ``receivers``.
LISTS_SINCE = 2
MAX_SAMPLES_BYTES = 1 << 30

_KIND = {
    "float64": "numbers",
    "int64": "whole numbers",
    "Int64": "whole numbers",
    "boolean": "true/false values",
}


def check_column_types(data: pd.DataFrame) -> None:
    """ValueError naming the first numeric or true/false column stored as text (a
    ``bandwidth_GBps`` of strings would otherwise be converted without a word)."""
    for col, dtype in SCHEMA.items():
        if dtype in ("string", "object") or col not in data.columns:  # object: device lists
            continue
        values = data[col]
        if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values):
            continue
        present = values.dropna()
        if len(present) and any(isinstance(v, str) for v in present.head(1000)):
            raise ValueError(f"column {col} holds text, not {_KIND[dtype]}")


def typed(frame: pd.DataFrame) -> pd.DataFrame:
    """The schema's columns of frame in the schema's types (ValueError naming what is
    missing or of the wrong type): what a run folder stores."""
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"the frame lacks the result columns {missing}")
    try:
        return frame.loc[:, list(COLUMNS)].astype(SCHEMA)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"a result column has the wrong type ({exc})") from None


def lists_for_csv(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy whose list columns are JSON text (``[0, 1]``), as ``samples.csv`` holds them;
    Parquet keeps them as lists."""
    out = frame.copy()
    for col in LIST_COLUMNS:
        out[col] = [None if v is None else json.dumps(list(v)) for v in out[col]]
    return out


def lists_loaded(data: pd.DataFrame, run_schema: int = RUN_SCHEMA_VERSION) -> pd.DataFrame:
    """The list columns of loaded samples as tuples: from Parquet lists, from CSV JSON
    text, or, in a run saved before they existed (``run_schema`` 1), from the ``group``
    label that run wrote (:func:`_legacy_groups`)."""
    out = data.copy()
    if run_schema < LISTS_SINCE and "group" in out.columns:
        pairs = [_legacy_groups(g) for g in out["group"]]
        out["senders"] = [p and p[0] for p in pairs]
        out["receivers"] = [p and p[1] for p in pairs]
    for col in LIST_COLUMNS:
        out[col] = [
            None
            if v is None or (isinstance(v, float) and v != v)
            else tuple(int(d) for d in (json.loads(v) if isinstance(v, str) else v))
            for v in out[col]
        ]
    return out


def _legacy_groups(label: Any) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """Senders and receivers of a run-schema-1 ``group`` label ("0,1->2,3"); None for an
    empty one. Only old runs are read this way: newer ones save the devices themselves.

    Example:
        >>> _legacy_groups("0,1->2,3")
        ((0, 1), (2, 3))
    """
    if label is None or label is pd.NA or (isinstance(label, float) and label != label):
        return None
    a, b = str(label).split("->")
    return tuple(int(d) for d in a.split(",")), tuple(int(d) for d in b.split(","))


class SamplesError(ValueError):
    """A samples file that cannot be read as this schema's rows (the folder's loader
    names the file)."""

    def __init__(self, where: Any, message: str) -> None:
        super().__init__(f"{where}: {message}")


def read_samples(
    folder: Path, run_schema: int, rows: int | None, device_count: int | None = None
) -> pd.DataFrame:
    """The samples of a run folder (Parquet preferred, CSV otherwise), typed and checked:
    size, readable, every column there (those added since the run was saved empty), no
    text in number columns, ``rows`` of them (what run.json says), known words only, no
    device outside the run's ``device_count`` devices (none below 0 when it is unknown).
    :class:`SamplesError` names the file and what is wrong."""
    pq, csv = folder / "samples.parquet", folder / "samples.csv"
    for path in (pq, csv):
        if path.is_file() and path.stat().st_size > MAX_SAMPLES_BYTES:
            raise SamplesError(path, f"larger than {MAX_SAMPLES_BYTES} bytes")
    try:
        if pq.is_file():
            data, source = pd.read_parquet(pq, engine="pyarrow"), pq
        elif csv.is_file():
            # only an empty field is missing: "NA" is a link class, "nan" may be a label
            # text stays text ("0" is a string in a string column)
            data = pd.read_csv(
                csv,
                keep_default_na=False,
                na_values=[""],
                dtype={c: "string" for c, t in SCHEMA.items() if t == "string"},
            )
            source = csv
        else:
            raise SamplesError(folder, "no samples.parquet or samples.csv")
    except SamplesError:
        raise
    except Exception as exc:  # pyarrow/pandas raise many types for truncated files
        raise SamplesError(folder, f"cannot read samples ({type(exc).__name__}: {exc})") from None
    data = _checked(data, source, run_schema, rows)
    check_devices(data, device_count, source)
    return data


def check_devices(data: pd.DataFrame, device_count: int | None, source: Any) -> None:
    """SamplesError naming the column and the value of a row whose device is not one of
    the run's ``device_count`` (a negative id whatever the count). An import's card rows
    that name card ids, not devices (no ``senders``), are held to no count.

    Example:
        >>> rows = pd.DataFrame({"pattern": ["pair"], "src": [9], "dst": [1],
        ...                      "senders": [None], "receivers": [None]})
        >>> try:
        ...     check_devices(rows, 8, "samples.csv")
        ... except SamplesError as exc:
        ...     print(exc)
        samples.csv: column src holds device 9; the run has 8 devices (0..7)
    """
    cards = data["pattern"].isin(CARD_PATTERNS).fillna(False).astype(bool) & data["senders"].isna()
    for col in ("src", "dst", "senders", "receivers"):
        values = data[col].dropna()
        ids = [d for g in values for d in g] if col in LIST_COLUMNS else [int(v) for v in values]
        bound = [int(v) for v in data.loc[~cards, col].dropna()] if col in ("src", "dst") else ids
        bad = [d for d in ids if d < 0] or (
            [d for d in bound if d >= device_count] if device_count else []
        )
        if bad:
            have = (
                f"the run has {device_count} devices (0..{device_count - 1})"
                if device_count
                else "a device id is 0 or more"
            )
            raise SamplesError(source, f"column {col} holds device {bad[0]}; {have}")


def _checked(data: pd.DataFrame, source: Path, run_schema: int, rows: int | None) -> pd.DataFrame:
    for col in ADDED_COLUMNS:  # runs saved before these columns existed
        if col not in data.columns:
            data[col] = pd.Series(index=data.index, dtype=SCHEMA[col])  # all missing
    missing = [c for c in COLUMNS if c not in data.columns]
    if missing:
        raise SamplesError(source, f"missing columns {missing}")
    try:
        data = lists_loaded(data, run_schema)  # device lists as tuples
        check_column_types(data)
    except (ValueError, TypeError) as exc:
        raise SamplesError(source, str(exc)) from None
    if rows is not None and rows != len(data):
        raise SamplesError(source, f"{len(data)} rows, run.json says {rows} (truncated?)")
    try:
        data = data.loc[:, list(COLUMNS)].astype(SCHEMA)
        data["process_mode"] = data["process_mode"].fillna("in_process")  # saved before it
    except (ValueError, TypeError) as exc:
        raise SamplesError(source, f"a column has the wrong type ({exc})") from None
    for col, allowed in VOCABULARY.items():
        bad = set(data[col].dropna().unique()) - set(allowed)
        if bad:
            raise SamplesError(source, f"column {col} has unknown values {sorted(bad)}")
    return data
