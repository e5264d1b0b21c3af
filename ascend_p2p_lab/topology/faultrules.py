"""What a fault record must say, checked once for the simulator and for topology files.

``sim.faults.Fault`` checks each fault it is given with :func:`fault_problem`, and a
topology file's ``[[fault]]`` tables are checked with the same rules when the file is
read, so that a fault a kind cannot take is refused at its ``FILE:LINE``.

Example:
    >>> fault_problem({"kind": "degrade", "factor": 0.5})
    ('link', 'a degrade fault needs link = [src, dst]')
    >>> fault_problem({"kind": "degrade", "link": (2, 5), "per": "copy"})[0]
    'per'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..codes import ACL_ERROR_RT_DRV_INTERNAL_ERROR, ACL_ERROR_RT_LOST_HEARTBEAT, ERROR_NAMES
from ..vocab import DIE_LINKS

#: the fault kinds that name a device (a fault kind, not a row's error kind of one word)
DEVICE_LOST_FAULT, MEMORY_FAULT = "device_lost", "memory_exhausted"
FAULT_KINDS = (
    "error",
    "degrade",
    DEVICE_LOST_FAULT,
    MEMORY_FAULT,
    "slow_host",
    "corrupt",
    "drop",
    "transient",
)
#: What a transient fault's draw is made for: each point (timing window), each copy.
TRANSIENT_DRAWS = ("point", "copy")
#: The kinds that act on the bytes of copies over one directed link: what they do to them.
COPY_FAULTS = {"corrupt": "corrupts", "drop": "drops"}


def default_code(kind: str) -> int:
    """The code a fault of ``kind`` returns when it names none."""
    return (
        ACL_ERROR_RT_LOST_HEARTBEAT
        if kind == DEVICE_LOST_FAULT
        else ACL_ERROR_RT_DRV_INTERNAL_ERROR
    )


def fault_problem(f: Mapping[str, Any]) -> tuple[str, str] | None:
    """The key at fault and why, for a fault record whose values have their types (absent
    keys take the simulator's defaults); None when a fault of its kind may say it."""
    kind, link = f["kind"], f.get("link")
    code = f.get("code")
    factor, share, per, lane = (f.get(k) for k in ("factor", "share", "per", "lane"))
    if kind not in FAULT_KINDS:
        return "kind", f"unknown fault kind {kind!r}; choose one of {FAULT_KINDS}"
    if code is not None and (code not in ERROR_NAMES or code == 0):
        return "code", f"fault code {code} is not a known ACL error code"
    if f.get("nth") is not None and f["nth"] < 1:
        return "nth", "fault nth counts uses from 1"
    if kind in ("degrade", "slow_host", "transient") and factor is not None and not factor > 0:
        return "factor", "fault factor must be positive"
    if kind == "degrade" and link is None:
        return "link", "a degrade fault needs link = [src, dst]"
    if kind in COPY_FAULTS and link is None:
        return "link", (
            f"a {kind} fault needs link = [src, dst] (the directed device "
            f"link whose copies it {COPY_FAULTS[kind]})"
        )
    if kind in COPY_FAULTS and link[0] == link[1]:
        return "link", f"a {kind} fault's link joins two different devices, got {list(link)}"
    if lane is not None and (kind != "degrade" or lane not in DIE_LINKS):
        return "lane", (
            f"a fault's lane is one of {DIE_LINKS} and only a degrade fault has one, "
            f"got lane {lane!r} on a {kind} fault"
        )
    if kind == "transient" and share is not None and not 0 < share <= 1:
        return "share", f"a transient fault's share is in (0, 1], got {share}"
    if per is not None and (per not in TRANSIENT_DRAWS or (per != "point" and kind != "transient")):
        return "per", (
            f"fault per is {' or '.join(TRANSIENT_DRAWS)}, and only a transient "
            f"fault's draw may be per copy, got {per!r}"
        )
    if kind in (DEVICE_LOST_FAULT, MEMORY_FAULT) and f.get("device") is None:
        return "device", f"a {kind} fault needs a device"
    return None
