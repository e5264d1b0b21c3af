"""The simulated CANN runtime: a drop-in for pyACL (``import acl``) on a modelled server.

Use :func:`simulated_acl` from Python, or put the folder printed by
``ascend-p2p-lab sim-path`` on ``PYTHONPATH`` so that ``import acl`` in an unchanged
pyACL script gives the simulator (configured by ``ASCEND_P2P_LAB_PRESET`` and
``ASCEND_P2P_LAB_SEED``).

Example:
    >>> acl = simulated_acl("atlas800t-a3", seed=1)
    >>> acl.init(), acl.rt.get_device_count(), acl.finalize()
    (0, (16, 0), 0)
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..topology.model import Topology
from .faults import Fault
from .runtime import NEWER_CALLS, SimulatedACL

DEFAULT_PRESET = "atlas800t-a2"
#: Every simulator made by simulated_acl() that is still alive.
LIVE: weakref.WeakSet[SimulatedACL] = weakref.WeakSet()
#: With tracking on (see track()), every simulator made since the last drain, kept alive
#: so that a test can check its ledger even after the code under test dropped it.
_TRACKED: list[SimulatedACL] | None = None


def track(on: bool = True) -> None:
    """Keep every new simulator until :func:`drain_tracked` (for test suites)."""
    global _TRACKED
    _TRACKED = [] if on else None


def drain_tracked() -> list[SimulatedACL]:
    """The simulators made since the last drain (tracking must be on); forgets them."""
    if _TRACKED is None:
        return []
    made = list(_TRACKED)
    _TRACKED.clear()
    return made

__all__ = [
    "DEFAULT_PRESET", "LIVE", "NEWER_CALLS", "Fault", "SimulatedACL", "drain_tracked",
    "shim_path", "simulated_acl", "track",
]


def simulated_acl(
    preset: str | Topology = DEFAULT_PRESET,
    *,
    seed: int = 0,
    faults: Iterable[Fault | Mapping[str, object]] | None = None,
    api_level: str = "new",
    jitter: float | None = None,
) -> SimulatedACL:
    """A fresh simulated ``acl`` module for a preset name (or a Topology) and a seed.

    Faults listed in the preset's own ``[[fault]]`` tables come first, then ``faults``.
    """
    if isinstance(preset, Topology):
        topo = preset
    else:
        from ..topology import load_preset

        topo = load_preset(preset)
    sim = SimulatedACL(
        topo, seed=seed, faults=[*topo.faults, *(faults or ())], api_level=api_level,
        jitter=jitter,
    )
    LIVE.add(sim)
    if _TRACKED is not None:
        _TRACKED.append(sim)
    return sim


def shim_path() -> Path:
    """Folder whose ``acl`` package is the simulator (put it on PYTHONPATH)."""
    return Path(__file__).resolve().parent / "shim"
