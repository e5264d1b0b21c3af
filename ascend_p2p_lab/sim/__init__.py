"""The simulated CANN runtime: a drop-in for pyACL (``import acl``) on a modelled server.

Use :func:`simulated_acl` from Python, or put the folder printed by
``ascend-p2p-lab sim-path`` on ``PYTHONPATH`` so that ``import acl`` in an unchanged
pyACL script gives the simulator (configured by ``ASCEND_P2P_LAB_PRESET`` and
``ASCEND_P2P_LAB_SEED``).

Beyond pyACL's API, a simulated ``acl`` offers its extras in one small, documented place,
``acl.simulator`` (:class:`~.extras.Simulator`), for tools that know they run on the
simulator (the only way to them):

- ``topology``: the :class:`~ascend_p2p_lab.topology.Topology` being simulated;
- ``seed``: the jitter seed (the same seed gives the same numbers);
- ``host_time_us``: the virtual host clock, in microseconds since the simulator started;
  ``host_time_ns``: the same in whole nanoseconds (what the runtime's host timing reads);
- ``ledger()``: what the process still holds (initialized, devices set, device and host
  buffers, streams, events, peer references) plus what reset/finalize released
  implicitly; ``ledger_is_empty()``: nothing of either;
- ``app_log_path``: the file ``acl.app_log`` writes (CANN's plog folder; None before
  its first line kept, see :mod:`.applog`);
- ``faults``: the faults being injected (:class:`.faults.Fault` records; empty: none);
- ``call_counts``: calls made per pyACL name (``"rt.memcpy_async"``), a read-only view;
- ``implicit_releases``: what ``aclrtResetDevice``/``aclFinalize`` freed that the process
  had not released itself, oldest first;
- ``shared_ledger()``: what live processes hold in the IPC state this process shares with
  others (exports not yet freed, imports not yet closed; see :mod:`.ipc`), after dropping
  what dead processes held;
- ``copy_limit(event)``: what bound the last copy recorded before the event on its
  stream, from the engine's accounting of what was saturated (``("link", src, dst)`` or
  ``("budget", name)``: a port, a ``[[shared]]`` group's budget; None when no copy ran);
  the collectives name their bottleneck from it;
- ``reseed_jitter(key)``: restart the jitter draws from (seed, key), so the copies after
  it get the same time factors whatever ran before;
- ``begin_point(key)``: ``reseed_jitter(key)``, and with every stream idle the clock's
  origin moves to now (times are floats: ``t0 + x`` rounds differently for another t0).
  The runtime's ``begin_point`` calls it at each measurement point, so a point's rows
  are the same whatever ran before it or in which process it runs: a resumed sweep
  equals an uninterrupted one, to the bit.
- ``run_program(steps, copies, tail, current)``: a per-copy program of calls (a staged
  copy's legs and their waits) repeated, then a synchronize, computed as one operation
  where the order allows; ``repeat_copy(fn, args, copies)``: one async copy repeated, its
  repeats queued at once. The same results as the calls one by one, to the bit
  (:mod:`.programs`); the runtime uses them when present (``Runtime._run_program``,
  ``Runtime.enqueue_copies``).

Several processes share one simulated server for IPC memory (``acl.rt.ipc_mem_*``): a
process and the processes it starts share it with no setup; an unrelated process joins by
setting ``ASCEND_P2P_LAB_IPC_DIR`` to the same folder (:mod:`.ipcstate`).

The simulator is a dispatcher (:mod:`.facade`) over parts with one job each:
:mod:`.formats` (argument formats), :mod:`.devices`, :mod:`.peers`, :mod:`.allocations`,
:mod:`.routes` and :mod:`.copies`, :mod:`.streams`, :mod:`.programs` and :mod:`.actions`
(repeated calls at once), :mod:`.injector` (fault decisions;
:mod:`.faults` is the fault record), on :mod:`.engine` (virtual time) and :mod:`.memory`.

Example:
    >>> acl = simulated_acl("atlas800t-a3", seed=1)
    >>> acl.init(), acl.rt.get_device_count(), acl.finalize()
    (0, (16, 0), 0)
    >>> acl.simulator.topology.name, acl.simulator.seed, acl.simulator.ledger_is_empty()
    ('atlas800t-a3', 1, True)
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..topology.model import Topology
from ..vocab import DEFAULT_PRESET
from .extras import Simulator
from .facade import NEWER_CALLS, SimulatedACL
from .faults import Fault

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
    "DEFAULT_PRESET",
    "LIVE",
    "NEWER_CALLS",
    "Fault",
    "SimulatedACL",
    "Simulator",
    "drain_tracked",
    "shim_path",
    "simulated_acl",
    "track",
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
        topo,
        seed=seed,
        faults=[*topo.faults, *(faults or ())],
        api_level=api_level,
        jitter=jitter,
    )
    LIVE.add(sim)
    if _TRACKED is not None:
        _TRACKED.append(sim)
    return sim


def shim_path() -> Path:
    """Folder whose ``acl`` package is the simulator (put it on PYTHONPATH)."""
    return Path(__file__).resolve().parent / "shim"
