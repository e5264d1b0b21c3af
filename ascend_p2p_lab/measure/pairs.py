"""Device pairs from text: ``all`` or ``0-1,1-0``, checked against the device count.

Example:
    >>> parse_pairs("0-1,1-0", device_count=8)
    [(0, 1), (1, 0)]
"""

from __future__ import annotations

import re
from collections.abc import Sequence


def parse_pairs(
    spec: str | Sequence[tuple[int, int]] | None, device_count: int
) -> list[tuple[int, int]] | None:
    """Ordered pairs from ``"all"`` (None: every reachable pair), ``"0-1,1-0"`` or tuples.

    Ids are checked against device_count; a device paired with itself is refused.
    """
    if spec is None or (isinstance(spec, str) and spec.strip().lower() == "all"):
        return None
    if isinstance(spec, str):
        items: list[tuple[int, int]] = []
        for part in (p.strip() for p in spec.split(",")):
            m = re.fullmatch(r"(\d+)\s*-\s*(\d+)", part)
            if not m:
                raise ValueError(f"cannot read pair {part!r}: use SRC-DST, e.g. 0-1")
            items.append((int(m.group(1)), int(m.group(2))))
    else:
        items = []
        for p in spec:
            if len(p) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in p):
                raise TypeError(f"pair {p!r} must be two ints (src, dst)")
            items.append((p[0], p[1]))
    if not items:
        raise ValueError("the pair list is empty")
    for src, dst in items:
        for dev in (src, dst):
            if not 0 <= dev < device_count:
                raise ValueError(
                    f"device {dev} in pair {src}-{dst} is out of range 0..{device_count - 1}"
                )
        if src == dst:
            raise ValueError(
                f"pair {src}-{dst}: source and destination are the same device "
                "(device-local copies are the 'local' pattern)"
            )
    return list(dict.fromkeys(items))
