"""Checks of topology values: each turns a TOML or text value into a typed one, or says
in one line what is wrong (a :class:`TopologyError` naming the source and the key).

Example:
    >>> as_positive(26.2)
    26.2
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from .model import PEER_OFF_MODES

_MISSING: Any = object()


class TopologyError(ValueError):
    """A topology file or text that cannot become a :class:`Topology`.

    The message is one line naming the source and the key or row at fault.

    Example:
        >>> from ascend_p2p_lab.topology import topology_from_toml_text
        >>> try:
        ...     topology_from_toml_text("name = 1", source="x.toml")
        ... except TopologyError as exc:
        ...     print(exc)
        x.toml: key 'name': expected a string, got int
    """


# ---- value checks (raise ValueError/TypeError with a short reason) ---------------------------


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"expected a number, got {type(value).__name__}")
    if not math.isfinite(value):
        raise ValueError(f"expected a finite number, got {value!r}")
    return float(value)


def as_positive(value: Any) -> float:
    x = _number(value)
    if x <= 0:
        raise ValueError(f"must be > 0, got {value!r}")
    return x


def as_non_negative(value: Any) -> float:
    x = _number(value)
    if x < 0:
        raise ValueError(f"must be >= 0, got {value!r}")
    return x


def as_integer(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {type(value).__name__}")
    return value


def as_text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def as_flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {type(value).__name__}")
    return value


def as_table(value: Any) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise TypeError(f"expected a table, got {type(value).__name__}")
    return value


def as_array(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"expected an array, got {type(value).__name__}")
    return value


def as_text_list(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise TypeError(f"expected an array of strings, got {type(value).__name__}")
    for item in value:
        as_text(item)
    return tuple(value)


def as_max_peers(value: Any) -> int | None:
    if value == "none":
        return None
    if isinstance(value, str):
        raise ValueError(f'expected an integer >= 1 or "none", got {value!r}')
    n = as_integer(value)
    if n < 1:
        raise ValueError(f'expected an integer >= 1 or "none", got {n}')
    return n


def as_peer_mode(value: Any) -> str:
    mode = as_text(value)
    if mode not in PEER_OFF_MODES:
        raise ValueError(f"expected one of {list(PEER_OFF_MODES)}, got {mode!r}")
    return mode


def checked_key(
    table: Mapping[str, Any],
    key: str,
    src: str,
    check: Callable[[Any], Any],
    default: Any = _MISSING,
) -> Any:
    """``check(table[key])``; missing keys give ``default`` or a :class:`TopologyError`."""
    if key not in table:
        if default is _MISSING:
            raise TopologyError(f"{src}: missing key {key!r}")
        return default
    try:
        return check(table[key])
    except (TypeError, ValueError) as exc:
        raise TopologyError(f"{src}: key {key!r}: {exc}") from None


def reject_unknown(table: Mapping[str, Any], allowed: frozenset[str], src: str) -> None:
    """A :class:`TopologyError` naming the first key of table not in allowed."""
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise TopologyError(
            f"{src}: unknown key {unknown[0]!r} (allowed: {', '.join(sorted(allowed))})"
        )
