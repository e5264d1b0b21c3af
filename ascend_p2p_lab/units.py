"""Units every layer uses: copy sizes from text and back (``4KiB:1GiB``, ``4KiB,1MiB``).

``KiB``, ``MiB``, ``GiB`` (and ``K``, ``M``, ``G``) are binary; ``KB``, ``MB``, ``GB`` are
decimal. Bandwidth is decimal GB/s throughout (bytes per nanosecond).

Example:
    >>> parse_sizes("4KiB:16KiB")
    [4096, 8192, 16384]
    >>> format_size(3 << 20)
    '3 MiB'
"""

from __future__ import annotations

import itertools
import numbers
import re
from collections.abc import Iterable, Mapping

from .vocab import DEFAULT_SIZES

_UNITS = {
    "": 1,
    "b": 1,
    "k": 1 << 10,
    "kb": 1000,
    "kib": 1 << 10,
    "m": 1 << 20,
    "mb": 1000**2,
    "mib": 1 << 20,
    "g": 1 << 30,
    "gb": 1000**3,
    "gib": 1 << 30,
    "t": 1 << 40,
    "tb": 1000**4,
    "tib": 1 << 40,
}
_SIZE_RE = re.compile(r"^\s*([0-9]+)\s*([a-zA-Z]*)\s*$", re.ASCII)
MAX_SIZE = 1 << 40  # no device has a terabyte; bounds what a typo can ask for
MAX_SIZES = 64


def parse_size(text: str | int) -> int:
    """One size: an int, or a number with B/KiB/MiB/GiB (binary) or KB/MB/GB (decimal)."""
    if isinstance(text, bool):
        raise TypeError("a size must be an int or a string such as '4KiB'")
    if isinstance(text, numbers.Integral):
        value = int(text)
    elif isinstance(text, str):
        if len(text) > 64:
            raise ValueError(f"cannot read size {text[:20]!r}...: longer than 64 characters")
        m = _SIZE_RE.match(text)
        if not m or m.group(2).lower() not in _UNITS:
            raise ValueError(f"cannot read size {text!r}: use e.g. 4096, 4KiB, 1MiB, 1GiB")
        value = int(m.group(1)) * _UNITS[m.group(2).lower()]
    else:
        raise TypeError(f"a size must be an int or a string, not {type(text).__name__}")
    if value <= 0:
        raise ValueError(f"size {text!r} must be positive")
    if value > MAX_SIZE:
        raise ValueError(f"size {text!r} is larger than {format_size(MAX_SIZE)}")
    return value


def parse_sizes(spec: str | int | Iterable[str | int] | None = None) -> list[int]:
    """Sizes from ``"lo:hi"`` (powers of two from lo to hi), ``"a,b,c"`` or a list.

    A range's ends must be powers of two. The result is sorted and de-duplicated.
    """
    if spec is None:
        spec = DEFAULT_SIZES
    if isinstance(spec, str) and ":" in spec:
        lo_text, _, hi_text = spec.partition(":")
        lo, hi = parse_size(lo_text), parse_size(hi_text)
        if lo & (lo - 1) or hi & (hi - 1):
            raise ValueError(f"range {spec!r}: both ends must be powers of two")
        if lo > hi:
            raise ValueError(f"range {spec!r}: the start is larger than the end")
        sizes = [1 << k for k in range(lo.bit_length() - 1, hi.bit_length())]
    elif isinstance(spec, str):
        parts = [p for p in spec.split(",") if p.strip()]
        if not parts:
            raise ValueError("no sizes given")
        sizes = [parse_size(p) for p in parts]
    elif isinstance(spec, numbers.Integral) and not isinstance(spec, bool):
        sizes = [parse_size(spec)]
    elif isinstance(spec, (bytes, bytearray, Mapping)) or not isinstance(spec, Iterable):
        raise TypeError(
            "sizes must be a string such as '4KiB:1MiB', an int or a list of "
            f"them, not {type(spec).__name__}"
        )
    else:
        sizes = [parse_size(s) for s in itertools.islice(spec, MAX_SIZES + 1)]
        if len(sizes) > MAX_SIZES:
            raise ValueError(f"more than {MAX_SIZES} sizes; at most {MAX_SIZES} per sweep")
        if not sizes:
            raise ValueError("no sizes given")
    out = sorted(set(sizes))
    if len(out) > MAX_SIZES:
        raise ValueError(f"{len(out)} sizes; at most {MAX_SIZES} per sweep")
    return out


def format_size(n: int) -> str:
    """Binary units: 4096 -> '4 KiB'; non-round sizes keep one decimal."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            v = n / scale
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{n} B"
