"""Faults as data: what the simulated runtime should get wrong, and when.

A fault is a small record, given to the simulator per preset (``[[fault]]`` tables in a
topology file) or per run (``simulated_acl(..., faults=[...])``):

- ``error``: a pyACL call returns ``code`` (at its ``nth`` matching use, or every use),
  optionally only when it concerns ``device`` or the copy ``link`` (src, dst).
- ``degrade``: the directed link ``link`` runs at ``factor`` of its bandwidth. The choice:
  only the link's own rate is scaled, not the ceilings of one side's copies over it
  (``push_efficiency``, ``pull_efficiency``, at the healthy link's rate), so a link
  degraded below its push ceiling gives push = pull (both the degraded link's rate: an A2
  HCCS link at 0.5 gives 13 GB/s either way), while a healthy link's push is 0.755 of its
  pull: a degrade models a link that carries less whoever issues the copy, not a slower
  engine.
- ``device_lost``: from the ``nth`` call that concerns ``device`` on, every call on it
  fails with ``code`` (default ACL_ERROR_RT_LOST_HEARTBEAT); freeing and resetting
  still release what the process held, as the driver does.
- ``memory_exhausted``: allocations on ``device`` fail with 207001.
- ``slow_host``: every host-side call costs ``factor`` times its modelled time.
- ``corrupt``: device-to-device copies over the directed link ``link`` (source buffer on
  device src, destination on device dst; ``aclrtMemcpy`` and ``aclrtMemcpyAsync``, or
  only ``call``) silently write wrong data: the copy returns 0, but byte 0 of every 4 KiB
  page of the written range (pages counted from the destination offset) and its last
  byte are inverted (XOR 0xFF), so every 4 KiB window a verification reads inside the
  copy differs. Every such copy, or only the ``nth`` one over the link (counting from 1).
- ``transient``: the directed link ``link`` (without it: every link, each drawn on its
  own) dips to ``factor`` of its rate for a whole measurement point (a timing window
  that ``begin_point`` opens) in a seeded ``share`` of the points; with ``nth``, only in
  the nth pass of a point (the nth time the same point is measured, counting from 1), so
  ``nth = 1`` is a dip that a second attempt does not see. The draw is a hash of (seed,
  fault, point, pass, link): the same for the same run, fresh for another pass. With
  ``per = "copy"`` the draw is made for each copy over the link instead (a hash of the
  same and the copy's number in the point): a dipped copy takes ``1 / factor`` as long,
  as the jitter slows a copy, so the samples of one point differ: the spread a
  ``spread`` criterion judges (at the check's size a sample is one copy).

Example:
    >>> f = Fault.from_dict({"kind": "error", "call": "rt.memcpy_async", "nth": 3, "code": 507013})
    >>> f.kind, f.call, f.nth, f.code
    ('error', 'rt.memcpy_async', 3, 507013)
    >>> Fault.from_dict({"kind": "corrupt", "link": [0, 1], "nth": 2}).link
    (0, 1)
    >>> Fault.from_dict({"kind": "drop", "link": [2, 5]}).kind
    'drop'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields

from ..codes import (
    ACL_ERROR_RT_DRV_INTERNAL_ERROR,
    ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
)
from ..topology.faultrules import (
    DEVICE_LOST_FAULT,
    default_code,
    fault_problem,
)
from ..topology.faultrules import FAULT_KINDS as FAULT_KINDS  # the kinds, declared there


@dataclass
class Fault:
    """One injected fault; see the module docstring for the kinds."""

    kind: str
    call: str | None = None
    code: int = ACL_ERROR_RT_DRV_INTERNAL_ERROR
    nth: int | None = None
    device: int | None = None
    link: tuple[int, int] | None = None
    factor: float = 1.0
    message: str = ""
    #: a transient fault's share of the points it dips (0 < share <= 1)
    share: float = 1.0
    #: a transient fault's draw: per ``point`` (a timing window) or per ``copy``
    per: str = "point"
    #: a degrade fault's die link on twin dies: "sio" (the link itself) or "hccs"
    lane: str | None = None
    seen: int = field(default=0, compare=False, repr=False)

    def __post_init__(self) -> None:
        for key, types in (
            ("kind", str),
            ("call", (str, type(None))),
            ("code", int),
            ("nth", (int, type(None))),
            ("device", (int, type(None))),
            ("factor", (int, float)),
            ("message", str),
            ("share", (int, float)),
            ("per", str),
            ("lane", (str, type(None))),
        ):
            value = getattr(self, key)
            if not isinstance(value, types) or isinstance(value, bool):
                raise TypeError(f"fault {key} has the wrong type: {value!r}")
        if self.link is not None and (
            not isinstance(self.link, (list, tuple))
            or len(self.link) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in self.link)
        ):
            raise TypeError(f"fault link must be two device ids [src, dst], got {self.link!r}")
        if self.kind == DEVICE_LOST_FAULT and self.code == ACL_ERROR_RT_DRV_INTERNAL_ERROR:
            self.code = default_code(self.kind)
        if self.link is not None:
            self.link = (int(self.link[0]), int(self.link[1]))
        problem = fault_problem({f.name: getattr(self, f.name) for f in fields(self)})
        if problem is not None:
            raise ValueError(problem[1])

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Fault:
        """Build a fault from plain data (TOML table, JSON object, dict)."""
        known = {f.name for f in fields(cls)} - {"seen"}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown fault keys: {sorted(unknown)}")
        return cls(**data)  # type: ignore[arg-type]

    def concerns(self, devices: tuple[int, ...], link: tuple[int, int] | None) -> bool:
        if self.device is not None and self.device not in devices:
            return False
        return self.link is None or self.link == link


def as_faults(items: Iterable[Fault | Mapping[str, object]] | None) -> list[Fault]:
    """Faults from a mix of Fault objects and dicts (each dict gets a fresh Fault)."""
    out = []
    for item in items or ():
        out.append(Fault.from_dict(item) if isinstance(item, Mapping) else item)
    return out


def peer_access_refused(message: str = "peer access disabled by the driver") -> dict[str, object]:
    """A fault record: the driver refuses every aclrtDeviceEnablePeerAccess with
    ACL_ERROR_RT_FEATURE_NOT_SUPPORT (a node with P2P disabled), as data for
    ``simulated_acl(..., faults=[...])``."""
    return {
        "kind": "error",
        "call": "rt.device_enable_peer_access",
        "code": ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
        "message": message,
    }
