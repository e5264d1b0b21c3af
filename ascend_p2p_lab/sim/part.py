"""What every part of the simulator shares, and the base class that holds it.

The facade builds one :class:`Shared` (the server model, the virtual clocks, the fault
injector, the error log, the list of what a reset or finalize released implicitly) and
hands it to each per-concern part; :class:`Part` exposes it as plain attributes, so that
a part reads ``self.topology``, ``self.engine``, ``self.injector``, ``self.fail(...)``
and ``self.released`` the same way everywhere.

Example:
    >>> from ascend_p2p_lab.sim import simulated_acl
    >>> acl = simulated_acl("atlas800t-a2")
    >>> part = acl._peers
    >>> part.topology is acl.topology, part.fail(107000, "bad")
    (True, 107000)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..topology.model import Topology
    from .engine import Engine
    from .errors import ErrorLog
    from .injector import FaultInjector


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
