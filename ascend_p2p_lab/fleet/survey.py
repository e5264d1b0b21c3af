"""The fleet survey on Dask distributed: one task per server, gathered as they finish.

:func:`survey` sends :func:`~.task.survey_host` to each host's worker, pinned there (a
worker resource ``host-<name>`` when the worker has one, which survives a restarted
worker; else the worker whose name or address is the host's), gathers the results with
``distributed.as_completed`` (a tqdm bar in the terminal and the notebook), saves each
host's run folder as it arrives and returns a :class:`FleetSurvey`. Dask does the
scheduling, the transport and any retry of a task whose worker died; a host that fails
is a :class:`~.hosts.HostResult` with its error as data and never costs the others.

Example (a simulated fleet; see :mod:`.simulated`):
    >>> from ascend_p2p_lab.fleet import simulated_fleet
    >>> with simulated_fleet(2) as fleet:                       # doctest: +SKIP
    ...     result = survey(fleet.client, fleet.targets, sizes="1MiB", progress=False)
    >>> result.hosts                                            # doctest: +SKIP
    ['sim-0', 'sim-1']
"""

from __future__ import annotations

import socket
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..comparison import DEFAULT_THRESHOLD
from ..run import Run, RunMeta
from .hosts import (
    RESOURCE_PREFIX,
    HostResult,
    HostTarget,
    check_host_name,
    failed_host,
    resource_name,
)
from .task import survey_host

#: The fleet's summary files next to the host folders.
SUMMARY_JSON, LINKS_CSV, HOSTS_CSV = "fleet.json", "fleet_links.csv", "fleet_hosts.csv"


@dataclass
class FleetSurvey:
    """Every host's result, in the order the hosts were given."""

    results: dict[str, HostResult]
    interrupted: bool = False
    wall_s: float = 0.0
    saved_to: Path | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def hosts(self) -> list[str]:
        return list(self.results)

    @property
    def failed_hosts(self) -> list[HostResult]:
        return [r for r in self.results.values() if r.failed]

    @property
    def run(self) -> Run:
        """Every host's run as one (``Run.concat``: ``host`` says whose row, each host's
        metadata is in ``meta.parts``)."""
        return Run.concat(r.run for r in self.results.values() if r.run is not None)

    @property
    def frame(self) -> pd.DataFrame:
        """Every host's rows in one tidy frame (``host`` says whose): :attr:`run`'s."""
        return self.run.frame()

    @property
    def metas(self) -> dict[str, RunMeta]:
        """Each host's run metadata, in the order of the hosts (empty for a host without
        a run)."""
        return {r.host: r.meta for r in self.results.values()}

    def host_status(self) -> list[dict[str, Any]]:
        """Each host's status and error as plain data (for the analysis)."""
        return [r.error_record() for r in self.results.values()]


def as_targets(hosts: Iterable[HostTarget | str] | None, client: Any = None) -> list[HostTarget]:
    """HostTargets from names (real servers: ``backend="acl"``) or targets; None: one
    per worker of the cluster, named by its ``host-<name>`` resource, else its name."""
    if hosts is None:
        if client is None:
            raise ValueError("give hosts, or a client whose workers are the hosts")
        workers = client.scheduler_info(n_workers=-1)["workers"].values()
        hosts = sorted(_worker_host(w) for w in workers)
    if isinstance(hosts, (str, HostTarget)):
        hosts = [hosts]
    targets = [h if isinstance(h, HostTarget) else HostTarget(check_host_name(h)) for h in hosts]
    names = [t.name for t in targets]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"hosts named more than once: {', '.join(twice)}")
    if not targets:
        raise ValueError("no hosts to survey")
    return targets


def _worker_host(worker: Mapping[str, Any]) -> str:
    """The host a worker serves: its ``host-<name>`` resource, else its name, else its
    address."""
    for key in worker.get("resources", {}):
        if key.startswith(RESOURCE_PREFIX):
            return key.removeprefix(RESOURCE_PREFIX)
    return str(worker.get("name") or worker["host"])


def _address(host: str) -> str | None:
    try:
        return socket.gethostbyname(host)
    except OSError:
        return None


def placement(workers: Mapping[str, Mapping[str, Any]], host: str) -> dict[str, Any] | str:
    """How to pin a host's task (``client.submit`` keywords), or why it cannot be.

    ``workers`` is ``client.scheduler_info()["workers"]``. A worker with the resource
    ``host-<host>`` wins; else the one worker whose name, or address, is the host's.
    """
    resource = resource_name(host)
    having = [a for a, w in workers.items() if w.get("resources", {}).get(resource)]
    if having:
        return {"resources": {resource: 1}}
    named = [a for a, w in workers.items() if str(w.get("name")) == host]
    if not named:
        ip = _address(host)
        named = [a for a, w in workers.items() if w.get("host") in (host, ip)]
    if len(named) == 1:
        return {"workers": named, "allow_other_workers": False}
    if not named:
        return f"no Dask worker is named {host!r}, runs on it or has the resource {resource}"
    return (
        f"{len(named)} Dask workers serve {host!r}; start one worker per server "
        "(the devices belong to the server)"
    )


def _from_future(fut: Any, host: str) -> HostResult:
    """A finished future as a HostResult: its value, or its failure as data."""
    if fut.status == "finished":
        return fut.result()
    if fut.status == "cancelled":
        return failed_host(host, "interrupted", "the task was cancelled")
    exc = fut.exception()
    kind = "worker_lost" if type(exc).__name__ == "KilledWorker" else "task_error"
    return failed_host(host, kind, f"{type(exc).__name__}: {exc}".splitlines()[0])


def collect(
    futures: Mapping[Any, str],
    *,
    progress: bool = True,
    timeout: float | None = None,
    on_result: Callable[[HostResult], None] | None = None,
) -> tuple[dict[str, HostResult], bool]:
    """Gather futures (future -> host) as they finish; (host -> result, interrupted).

    A failed future is a failed host; after a KeyboardInterrupt or the ``timeout`` the
    hosts not yet back are cancelled and reported, and the ones back are kept.
    """
    from distributed import as_completed

    results: dict[str, HostResult] = {}
    if progress:
        from tqdm.auto import tqdm
    bar = tqdm(total=len(futures), desc="fleet", unit="host") if progress else None
    stopped: str | None = None
    try:
        for fut in as_completed(list(futures), timeout=timeout):
            host = futures[fut]
            results[host] = _from_future(fut, host)
            if on_result is not None:
                on_result(results[host])
            if bar is not None:
                bar.set_postfix_str(f"{host}: {results[host].status}", refresh=False)
                bar.update(1)
    except KeyboardInterrupt:
        stopped = "interrupted"
    except TimeoutError:
        stopped = "timeout"
    finally:
        if bar is not None:
            bar.close()
    for fut, host in futures.items():
        if host not in results:
            fut.cancel()
            results[host] = failed_host(
                host, stopped or "interrupted", f"no result after the survey was {stopped}"
            )
    return results, stopped == "interrupted"


def _saver(out: Path | None, overwrite: bool) -> Callable[[HostResult], None] | None:
    """A callback saving each host's run folder as its result arrives."""
    if out is None:
        return None
    from ..run.folder import check_out_dir, save

    def keep(result: HostResult) -> None:
        if result.run is not None:
            folder = out / result.host
            check_out_dir(folder, overwrite=True)
            save(result.run, folder, replace=True)  # an earlier report there goes

    check_fleet_out(out, overwrite=overwrite)
    return keep


def check_fleet_out(out: Path, *, overwrite: bool = False, option: str = "--out") -> None:
    """Raise OutputPathError unless out can take a fleet: a folder holding an earlier
    fleet (its summary, or a host's run folder) only with ``overwrite``."""
    from ..run.folder import OutputPathError, check_out_dir, holds_run

    out = Path(out)
    check_out_dir(out, overwrite=overwrite, option=option)
    if overwrite or not out.is_dir():
        return
    if (out / SUMMARY_JSON).exists() or any(p.is_dir() and holds_run(p) for p in out.iterdir()):
        raise OutputPathError(
            f"{option} {out}: holds a fleet survey already; pass "
            "--overwrite to replace it, or choose another folder"
        )


def survey(
    client: Any,
    hosts: Iterable[HostTarget | str] | None = None,
    *,
    out: str | Path | None = None,
    overwrite: bool = False,
    threshold: float = DEFAULT_THRESHOLD,
    progress: bool = True,
    timeout: float | None = None,
    after: Callable[[Any, Any], Any] | None = None,
    **sweep_options: Any,
) -> FleetSurvey:
    """Probe and sweep every host at once, one Dask task per host; a :class:`FleetSurvey`.

    Args:
        client: a ``distributed.Client`` (a LocalCluster, SSH, Slurm, Kubernetes, ...).
        hosts: names of servers (each served by one worker, see :func:`placement`),
            :class:`HostTarget` objects (the simulated fleet's ``targets``), or None for
            every worker of the cluster.
        out: a folder for one run folder per host (the format of ``sweep --out``, saved as
            each host finishes) and the fleet summary (``fleet.json``, ``fleet_links.csv``,
            ``fleet_hosts.csv``, outliers below ``threshold``).
        progress: a progress bar over the hosts.
        timeout: seconds to wait for all hosts; the hosts not back are failed hosts.
        after: called on each host as ``after(rt, run)`` after its sweep, on its runtime
            (a picklable function: n-of-m, ``check.attempts.host_attempts`` bound to the
            criteria); its answer is the host result's ``attempts``.
        **sweep_options: :func:`ascend_p2p_lab.measure.sweep`'s parameters (``sizes``,
            ``pairs``, ``samples``, ...): each host's spec, planned and run there.
    """
    targets = as_targets(hosts, client)
    folder = None if out is None else Path(out)
    save = _saver(folder, overwrite)
    workers = client.scheduler_info(n_workers=-1)["workers"]
    start = time.perf_counter()
    token = uuid.uuid4().hex[:8]
    futures: dict[Any, str] = {}
    early: dict[str, HostResult] = {}
    for target in targets:
        where = placement(workers, target.name)
        if isinstance(where, str):
            early[target.name] = failed_host(target.name, "no_worker", where)
            continue
        fut = client.submit(
            survey_host,
            target,
            dict(sweep_options),
            after,
            pure=False,
            key=f"survey-{target.name}-{token}",
            **where,
        )
        futures[fut] = target.name
    results, interrupted = collect(futures, progress=progress, timeout=timeout, on_result=save)
    results.update(early)
    ordered = {t.name: results[t.name] for t in targets}
    fleet = FleetSurvey(
        ordered, interrupted, time.perf_counter() - start, folder, dict(sweep_options)
    )
    if folder is not None:
        from .report import save_summary

        save_summary(fleet, folder, threshold=threshold)
    return fleet
