"""A run folder's schema, checked in one place: ``run.json``'s fields and the samples'
column types. :func:`~ascend_p2p_lab.results.load_run` (which every reader uses: report,
compare, calibrate, the fleet) and :func:`~ascend_p2p_lab.results.save_run` both call it,
so a damaged folder is refused with one line naming the field, before any work.

Example:
    >>> check_meta({"schema_version": 1, "rows": 3, "params": {}, "device_count": 8})
    >>> check_meta({"schema_version": 1, "rows": 3, "params": {}, "device_count": "eight"})
    Traceback (most recent call last):
    ...
    ValueError: device_count must be a whole number of at least 1 or null; got 'eight'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from .schema import SCHEMA


def _int(minimum: int) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= minimum


def _optional(test: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: v is None or test(v)


def _is(*types: type) -> Callable[[Any], bool]:
    return lambda v: (isinstance(v, types) and not isinstance(v, bool)) or (
        bool in types and isinstance(v, bool))


#: The backends the toolkit measures with; an imported run (``imported``) names its tool.
MEASURING_BACKENDS = ("sim", "acl", None)
#: run.json's fields: key -> (required, test, what the value must be). Keys not listed
#: (notes a user adds) are kept as they are.
RUN_FIELDS: dict[str, tuple[bool, Callable[[Any], bool], str]] = {
    "schema_version": (True, _int(1), "a whole number of at least 1"),
    "rows": (True, _int(0), "a whole number of at least 0"),
    "params": (True, _is(dict), "an object (the sweep's parameters)"),
    "run_id": (False, _optional(_is(str)), "text or null"),
    "device_count": (False, _optional(_int(1)), "a whole number of at least 1 or null"),
    "backend": (False, _optional(_is(str)), "text or null"),
    "imported": (False, _is(bool), "true or false"),
    "preset": (False, _optional(_is(str)), "text or null"),
    "soc_name": (False, _optional(_is(str)), "text or null"),
    "seed": (False, _optional(_int(0)), "a whole number or null"),
    "interrupted": (False, _is(bool), "true or false"),
    "failed": (False, _optional(_is(str)), "text or null"),
    "blocks": (False, _int(0), "a whole number of at least 0"),
    "resumed_blocks": (False, _int(0), "a whole number of at least 0"),
    "points": (False, _int(0), "a whole number of at least 0"),
    "points_not_reached": (False, _int(0), "a whole number of at least 0"),
    "lost_devices": (False, _is(dict), "an object"),
    "fallbacks": (False, _is(dict), "an object"),
    "inferred": (False, _is(dict), "an object"),
    "command": (False, _is(str), "text"),
}


def check_meta(meta: Mapping[str, Any]) -> None:
    """ValueError (one line, naming the field) unless meta fits :data:`RUN_FIELDS`."""
    if not isinstance(meta, Mapping):
        raise ValueError(f"expected a JSON object, got {type(meta).__name__}")
    for key, (required, test, what) in RUN_FIELDS.items():
        if key not in meta:
            if required:
                raise ValueError(f"{key} is missing")
            continue
        if not test(meta[key]):
            raise ValueError(f"{key} must be {what}; got {meta[key]!r}")
    backend = meta.get("backend")
    if not meta.get("imported") and backend not in MEASURING_BACKENDS:
        raise ValueError(f'backend must be "sim", "acl" or null (or the tool of an imported '
                         f"run); got {backend!r}")


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


_KIND = {"float64": "numbers", "int64": "whole numbers", "Int64": "whole numbers",
         "boolean": "true/false values"}
