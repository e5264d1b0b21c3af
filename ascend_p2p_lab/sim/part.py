"""What every part of the simulator shares, and the base class that holds it.

The facade builds one :class:`Shared` (the server model, the virtual clocks, the fault
injector, the error log, the list of what a reset or finalize released implicitly) and
hands it to each per-concern part; :class:`Part` exposes it as plain attributes, so that
a part reads ``self.topology``, ``self.engine``, ``self.injector``, ``self.fail(...)``
and ``self.released`` the same way everywhere.

Each method that serves a pyACL call says so beside its code, with :func:`pyacl`: the
call's name and argument format, and the facade's policy for it (the lock, whether it
keeps the kept copies, a fast path for its repeats). The facade builds ``acl`` from
these declarations alone (:func:`declared`), so a new call is one decorated method.

Example:
    >>> from ascend_p2p_lab.sim import simulated_acl
    >>> acl = simulated_acl("atlas800t-a2")
    >>> part = acl._peers
    >>> part.topology is acl.topology, part.fail(107000, "bad")
    (True, 107000)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from ..topology.model import Topology
    from .engine import Engine
    from .errors import ErrorLog
    from .injector import FaultInjector

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Shared:
    """The context the facade gives every part."""

    topology: Topology
    engine: Engine
    injector: FaultInjector
    errors: ErrorLog
    #: what reset/finalize released that the process had not (also in the ledger)
    released: list[str]


class Part:
    """Base of the simulator's parts: the shared context as attributes."""

    def __init__(self, shared: Shared) -> None:
        self.topology = shared.topology
        self.engine = shared.engine
        self.injector = shared.injector
        self.fail = shared.errors.fail
        self.released = shared.released


@dataclass(frozen=True)
class Call:
    """One simulated pyACL call, as its method declares it with :func:`pyacl`."""

    #: its name under ``acl``: ``"init"``, ``"rt.memcpy_async"``, ``"util.ptr_to_bytes"``
    name: str
    #: its arguments' ``PyArg_ParseTuple`` format (:mod:`.formats`)
    fmt: str
    #: made under the simulator's lock (counted too, if an ``acl.rt`` call); only a call
    #: that reads nothing a call changes and changes nothing runs unlocked, uncounted
    locked: bool = True
    #: cannot change what a copy resolves to (its regions, its stream, whether the device
    #: is set, peer access); after any other call the kept copies, routes, records and
    #: waits are dropped (``Copies.clear``)
    keeps_plans: bool = False
    #: the part's method that builds the bound call with a fast path for repeats of a
    #: kept call (``fast(name, lock, counts, checked)``), None: every call is checked
    fast: str | None = None
    #: only newer CANN releases have it (``api_level="old"`` hides it)
    newer: bool = False
    #: the name its errors give where it is not the call's: position -> label for one
    #: argument, "" for the whole call
    labels: Mapping[int | str, str] = field(default_factory=dict)
    #: the simulator's attribute for the part that serves it, and the part's method
    #: (filled by :func:`declared`)
    part: str = ""
    method: str = ""


def pyacl(name: str, fmt: str, **policy: Any) -> Callable[[F], F]:
    """Declare the method below as the simulated pyACL call ``name`` (see :class:`Call`
    for ``policy``); a method may serve more than one call."""

    def declare(method: F) -> F:
        calls = getattr(method, "pyacl_calls", ())
        method.pyacl_calls = (Call(name, fmt, **policy), *calls)  # type: ignore[attr-defined]
        return method

    return declare


def declared(parts: Mapping[str, type]) -> dict[str, Call]:
    """Every call the parts' methods declare (by the simulator's attribute for each part),
    in the order they are written; a call declared twice raises ValueError."""
    calls: dict[str, Call] = {}
    for attr, cls in parts.items():
        for method, fn in vars(cls).items():
            for call in getattr(fn, "pyacl_calls", ()):
                if call.name in calls:
                    first = calls[call.name]
                    raise ValueError(
                        f"{call.name} is declared twice: by {first.part}.{first.method} "
                        f"and by {attr}.{method}"
                    )
                calls[call.name] = replace(call, part=attr, method=method)
    return calls
