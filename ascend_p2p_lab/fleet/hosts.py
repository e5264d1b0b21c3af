"""One server of a fleet, what its survey task returns, and how a host failure reads.

A :class:`HostTarget` says where a survey task runs and what it opens there (CANN's
pyACL on a real server, or a simulated preset with a seed and injected faults); a
:class:`HostResult` is what comes back: the host's run (a :class:`~ascend_p2p_lab.run.Run`
of rows tagged with ``host``, and its metadata), its probe table, and, when something went
wrong, the error as data (``error_kind``, ``error_code``, ``error_call``, ``error``), like
the rows of a sweep.

Example:
    >>> t = HostTarget("sim-1", backend="sim", preset="atlas800t-a2", seed=1)
    >>> failed_host("sim-1", "no_worker", "no worker serves sim-1").status
    'failed'
    >>> resource_name("atlas-07")
    'host-atlas-07'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..run import Run, RunMeta

#: The Dask worker resource that pins a task to one server: ``host-<name>``.
RESOURCE_PREFIX = "host-"
#: A host name is also a folder name in the fleet's output.
HOST_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")

#: Why a host has no results, or fewer than asked for (``HostResult.error_kind``).
HOST_ERROR_KINDS: dict[str, str] = {
    "runtime": "an ACL call failed (opening the runtime, probing or sweeping)",
    "missing_call": "the server's pyACL lacks a call the survey needs",
    "backend_unavailable": "pyACL could not be loaded on the worker (CANN's environment?)",
    "bad_input": "the sweep's parameters do not fit this server",
    "error": "the survey task raised an unexpected exception",
    "worker_lost": "the Dask worker died while surveying (KilledWorker)",
    "task_error": "the Dask task failed outside the survey code",
    "no_worker": "no single Dask worker serves this host",
    "timeout": "the host did not answer within the survey's timeout",
    "interrupted": "the survey was interrupted before this host finished",
}


def resource_name(host: str) -> str:
    """The worker resource that marks the worker of ``host``."""
    return f"{RESOURCE_PREFIX}{host}"


def check_host_name(name: Any) -> str:
    """A host name usable as a folder name, or ValueError."""
    if not isinstance(name, str) or not HOST_NAME.match(name) or name in (".", ".."):
        raise ValueError(
            f"host name {name!r} must be letters, digits, '.', '_' or '-' "
            "(it names the host's run folder)"
        )
    return name


@dataclass(frozen=True)
class HostTarget:
    """One server to survey: its name, and what to open there.

    ``backend`` ``"acl"`` (the default) takes CANN's pyACL on a real server, and a worker
    without it is a failed host (``backend_unavailable``), never a silent fallback to the
    simulator; the simulated fleet gives ``"sim"`` with a ``preset``, a ``seed`` and
    ``faults`` (dicts as :func:`ascend_p2p_lab.sim.faults.Fault.from_dict` takes them).
    """

    name: str
    backend: str = "acl"
    preset: str | None = None
    seed: int | None = None
    faults: tuple[Mapping[str, Any], ...] = ()

    def __post_init__(self) -> None:
        check_host_name(self.name)
        object.__setattr__(self, "faults", tuple(dict(f) for f in self.faults))


@dataclass
class HostResult:
    """What a survey task returns for one host."""

    host: str
    #: "ok" (every point measured), "partial" (some) or "failed" (nothing)
    status: str
    #: the host's run (rows and metadata), None when nothing was measured
    run: Run | None = None
    probe: pd.DataFrame | None = None
    error_kind: str | None = None
    error_code: int | None = None
    error_call: str | None = None
    error: str | None = None
    wall_s: float | None = None
    #: CPU time of the task's thread (the sweep itself), seconds
    cpu_s: float | None = None
    #: the Dask worker that ran the task (its address), None when run without Dask
    worker: str | None = None
    #: n-of-m: the items measured again on the host (``check.attempts.host_attempts``)
    attempts: pd.DataFrame | None = None

    @property
    def failed(self) -> bool:
        return self.status == "failed"

    @property
    def frame(self) -> pd.DataFrame | None:
        """The host's rows (its metadata in ``attrs["run"]``), None without a run."""
        return None if self.run is None else self.run.frame()

    @property
    def meta(self) -> RunMeta:
        """The host's run metadata (empty without a run)."""
        return RunMeta() if self.run is None else self.run.meta

    @property
    def interrupted(self) -> bool:
        return self.meta.interrupted

    def error_record(self) -> dict[str, Any]:
        """The host and its error as plain data (the ``failed_hosts`` entries)."""
        keys = ("host", "status", "error_kind", "error_code", "error_call", "error")
        return {k: getattr(self, k) for k in keys}


def failed_host(
    host: str, kind: str, message: str, *, code: int | None = None, call: str | None = None
) -> HostResult:
    """A host without results: its error as data."""
    if kind not in HOST_ERROR_KINDS:
        raise ValueError(f"unknown host error kind {kind!r}")
    return HostResult(
        host, "failed", error_kind=kind, error_code=code, error_call=call, error=message
    )
