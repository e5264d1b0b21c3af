"""A simulated fleet for tests, notebooks and demos: a LocalCluster of worker processes.

Each worker is a separate process (as each server is a separate machine) with one
thread and the resource ``host-sim-<i>``; its host runs the simulated preset with seed
``seed + i``, and chosen hosts carry injected faults (:mod:`ascend_p2p_lab.sim.faults`):
a degraded link (:func:`degraded_link`), a device lost part-way (:func:`failing_device`),
peer access refused by the driver (:func:`peer_access_refused`), or a host whose runtime
does not open at all (:func:`failing_host`).

Example:
    >>> degraded_link(2, 5, 0.5)
    {'kind': 'degrade', 'link': [2, 5], 'factor': 0.5}
    >>> parse_degrade("sim-1:2-5:0.5", 3)
    ('sim-1', {'kind': 'degrade', 'link': [2, 5], 'factor': 0.5})
    >>> with simulated_fleet(3, faults={"sim-1": [degraded_link(2, 5, 0.5)]}) as fleet:
    ...     fleet.hosts                                        # doctest: +SKIP
    ['sim-0', 'sim-1', 'sim-2']
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..vocab import DEFAULT_PRESET
from .hosts import HostTarget, resource_name

#: Simulated hosts are named ``sim-0`` ... ``sim-(N-1)``.
HOST_PREFIX = "sim-"
MAX_HOSTS = 256
#: The simulated fleet's scheduler and workers listen here only: nobody else reaches them.
LOOPBACK = "127.0.0.1"
#: A device lost after this many calls that concern it: part-way through the sweep.
LOST_AFTER_CALLS = 200
#: Dask's setting for how a Nanny starts its worker process. A forkserver that has
#: imported distributed and pandas once starts each worker in a fraction of spawn's time.
MP_METHOD = "distributed.worker.multiprocessing-method"
#: Dask's background work in each worker process, turned down: N simulated servers share
#: one machine's cores, where real servers each have their own. The statistical profiler
#: samples the task's stack every 10 ms; the monitors poll psutil several times a second.
QUIET_WORKERS = {
    "distributed.worker.profile.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
}
DEGRADE = re.compile(r"^(?P<host>[^:]+):(?P<src>\d+)-(?P<dst>\d+):(?P<fraction>[^:]+)$")


def host_names(n: int) -> list[str]:
    return [f"{HOST_PREFIX}{i}" for i in range(n)]


def degraded_link(src: int, dst: int, fraction: float) -> dict[str, Any]:
    """The directed link src -> dst runs at ``fraction`` of its bandwidth."""
    return {"kind": "degrade", "link": [int(src), int(dst)], "factor": float(fraction)}


def failing_device(device: int, after_calls: int = LOST_AFTER_CALLS) -> dict[str, Any]:
    """The device is lost (heartbeat) from its ``after_calls``-th call on."""
    return {"kind": "device_lost", "device": int(device), "nth": int(after_calls)}


def peer_access_refused() -> dict[str, Any]:
    """The driver refuses every aclrtDeviceEnablePeerAccess (P2P disabled on the node)."""
    from ..sim.faults import peer_access_refused as refused

    return refused()


def failing_host() -> dict[str, Any]:
    """aclInit fails: the host has no results at all."""
    return {"kind": "error", "call": "init", "message": "aclInit failed on this host"}


def parse_degrade(text: str, n: int, devices: int | None = None) -> tuple[str, dict[str, Any]]:
    """``HOST:SRC-DST:FRACTION`` (``sim-1:2-5:0.5``) as (host, fault), checked against a
    fleet of n hosts of ``devices`` devices each (None: any); ValueError with one line
    otherwise (a link the server lacks would give a healthy run)."""
    m, bad = DEGRADE.match(text.strip()), f"--degrade {text!r}"
    if not m:
        raise ValueError(f"{bad}: use HOST:SRC-DST:FRACTION, e.g. sim-1:2-5:0.5")
    host = m["host"]
    if host not in host_names(n):
        raise ValueError(f"{bad}: no host {host} in a fleet of {n} (sim-0 to sim-{n - 1})")
    try:
        fraction = float(m["fraction"])
    except ValueError:
        raise ValueError(f"{bad}: fraction {m['fraction']!r} is not a number") from None
    if not 0 < fraction <= 1:
        raise ValueError(f"{bad}: fraction must be above 0 and at most 1")
    src, dst = int(m["src"]), int(m["dst"])
    if src == dst:
        raise ValueError(f"{bad}: a link joins two different devices")
    if devices is not None and max(src, dst) >= devices:
        raise ValueError(
            f"{bad}: device {max(src, dst)} is not on this server (its devices: 0..{devices - 1})"
        )
    return host, degraded_link(src, dst, fraction)


def fleet_targets(
    n: int,
    *,
    preset: str = DEFAULT_PRESET,
    seed: int = 0,
    faults: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
) -> list[HostTarget]:
    """The hosts of a simulated fleet: ``sim-i`` runs ``preset`` with seed ``seed + i``
    and the faults given for it; the faults are checked here (ValueError, TypeError)."""
    from ..sim.faults import as_faults

    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_HOSTS:
        raise ValueError(f"a simulated fleet has 1 to {MAX_HOSTS} hosts; got {n!r}")
    names = host_names(n)
    faults = dict(faults or {})
    unknown = sorted(set(faults) - set(names))
    if unknown:
        raise ValueError(
            f"faults for hosts not in the fleet: {', '.join(unknown)} "
            f"(hosts are sim-0 to sim-{n - 1})"
        )
    for items in faults.values():
        as_faults(items)  # bad fault data fails here, not on a worker
    return [
        HostTarget(
            name, backend="sim", preset=preset, seed=seed + i, faults=tuple(faults.get(name, ()))
        )
        for i, name in enumerate(names)
    ]


class SimulatedFleet:
    """A LocalCluster whose worker processes are simulated servers; ``client`` talks to
    it, ``targets`` are what :func:`~.survey.survey` takes. Close it (or use ``with``)."""

    def __init__(
        self,
        targets: list[HostTarget],
        *,
        dashboard_address: str = f"{LOOPBACK}:0",
        memory_limit: str | int = "auto",
        security: Any = None,
    ) -> None:
        """``security``: a ``distributed.Security`` (``Security.temporary()``): the
        scheduler, workers and client then speak TLS (``tls://``) to each other. The
        simulated fleet always listens on the loopback interface only."""
        import dask
        import distributed  # noqa: F401  (its defaults, before the setting is changed)

        self.targets = targets
        with dask.config.set({MP_METHOD: "forkserver", **QUIET_WORKERS}):
            self._start(targets, dashboard_address, memory_limit, security)

    def _start(
        self,
        targets: list[HostTarget],
        dashboard_address: str,
        memory_limit: str | int,
        security: Any,
    ) -> None:
        from distributed import Client, LocalCluster

        self.cluster = LocalCluster(
            n_workers=0,
            threads_per_worker=1,
            processes=True,
            host=LOOPBACK,
            protocol="tls://" if security is not None else "tcp://",
            security=security,
            dashboard_address=dashboard_address,
            silence_logs=logging.ERROR,
            memory_limit=memory_limit,
        )
        try:
            base = self.cluster.new_spec  # the worker LocalCluster would start
            for t in targets:
                self.cluster.worker_spec[t.name] = {
                    "cls": base["cls"],
                    "options": {**base["options"], "resources": {resource_name(t.name): 1}},
                }
            self.cluster.scale(len(targets))
            self.client = Client(self.cluster, security=security)
            self.client.wait_for_workers(len(targets))
        except BaseException:
            self.cluster.close()
            raise

    @property
    def hosts(self) -> list[str]:
        return [t.name for t in self.targets]

    def close(self) -> None:
        """Close the client and stop every worker process."""
        try:
            self.client.close()
        finally:
            self.cluster.close()

    def __enter__(self) -> SimulatedFleet:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<SimulatedFleet {len(self.targets)} hosts: {', '.join(self.hosts)}>"


def simulated_fleet(
    n: int,
    *,
    preset: str = DEFAULT_PRESET,
    seed: int = 0,
    faults: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    dashboard_address: str = f"{LOOPBACK}:0",
    security: Any = None,
) -> SimulatedFleet:
    """Start a simulated fleet of n hosts (``sim-0`` ...), one worker process each.

    ``faults`` maps a host to its fault dicts (:func:`degraded_link`,
    :func:`failing_device`, :func:`peer_access_refused`, :func:`failing_host`, or any
    :mod:`ascend_p2p_lab.sim.faults` record). Dask's dashboard (with bokeh installed)
    listens on ``dashboard_address``, by default a free port of the loopback interface:
    ``fleet.client.dashboard_link``. ``security`` (``distributed.Security.temporary()``)
    makes every connection TLS.
    """
    return SimulatedFleet(
        fleet_targets(n, preset=preset, seed=seed, faults=faults),
        dashboard_address=dashboard_address,
        security=security,
    )
