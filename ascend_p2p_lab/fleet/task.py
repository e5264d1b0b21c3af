"""The survey task that runs on one server's worker: open, probe, sweep, close.

:func:`survey_host` is what :func:`ascend_p2p_lab.fleet.survey` sends to each worker. It
never raises for what goes wrong on the server: an error opening the runtime, probing or
sweeping comes back as data in a :class:`~.hosts.HostResult` (``error_kind``, code, call,
message), with whatever the sweep measured before it stopped. The runtime is always
closed. It imports nothing of Dask, so it also runs alone:

Example:
    >>> r = survey_host(HostTarget("sim-0", backend="sim", seed=0),
    ...                 {"pairs": "0-1", "sizes": "1MiB", "samples": 2})
    >>> r.status, r.frame["host"].unique().tolist()
    ('ok', ['sim-0'])
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from ..measure import make_spec, plan, probe, run_tests
from ..measure.outcomes import from_exception
from ..results import FAILURE_KINDS
from ..run import Run
from ..runtime import AclError, BackendUnavailable, MissingCall, open_runtime
from .hosts import HostResult, HostTarget, failed_host


def _error_fields(exc: BaseException) -> dict[str, Any]:
    """An exception as the error columns of a host: kind, code, call, message."""
    if isinstance(exc, BackendUnavailable):
        return {"kind": "backend_unavailable", "message": str(exc).splitlines()[0]}
    if isinstance(exc, (AclError, MissingCall)):
        f = from_exception(exc)
        return {"kind": f.kind, "message": f.message, "code": f.code, "call": f.call}
    if isinstance(exc, (ValueError, TypeError)):
        return {"kind": "bad_input", "message": str(exc).splitlines()[0]}
    return {"kind": "error", "message": f"{type(exc).__name__}: {exc}".splitlines()[0]}


def tag_host(run: Run, host: str) -> Run:
    """The run with ``host`` set to the fleet's name for the server in every row and in
    ``meta.fleet_host`` (the machine's own name stays in ``meta.hostname``)."""
    run = Run.of(run)
    rows = run.samples.assign(host=pd.array([host] * len(run), dtype="string"))
    return run.replace(rows, fleet_host=host)


def _status(run: Run | None, error: dict[str, Any] | None) -> str:
    if run is None or run.samples.empty:
        return "failed"
    if error is not None or run.meta.interrupted:
        return "partial"
    kinds = run.samples["error_kind"].isin(FAILURE_KINDS).fillna(False)
    return "partial" if bool(kinds.any()) else "ok"


def _measure(
    rt: Any, options: Mapping[str, Any]
) -> tuple[Run | None, Run | None, dict[str, Any] | None]:
    """Probe, then the sweep the options make on this server (its spec planned and run by
    the engine); (run, probe table, error fields or None). A failed probe does not stop
    the sweep; a sweep that stops on an error after it started gives the rows it kept."""
    table = run = error = None
    try:
        table = probe(rt)
    except Exception as exc:
        error = _error_fields(exc)
    try:
        run_options = {k: options[k] for k in ("checkpoint", "on_block", "workers") if k in options}
        spec = make_spec(rt, **{k: v for k, v in options.items() if k not in run_options})
        run = run_tests(rt, plan(rt, spec), spec.sampling, params=spec.to_dict(), **run_options)
    except Exception as exc:
        partial = getattr(exc, "partial_run", None)
        if partial is not None and partial.meta.run_id:
            run = partial
        error = _error_fields(exc)
    return run, table, error


def _worker_address() -> str | None:
    """The address of the Dask worker running this task, if one is."""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return None


def survey_host(
    target: HostTarget,
    options: Mapping[str, Any],
    after: Callable[[Any, Run], pd.DataFrame] | None = None,
) -> HostResult:
    """Survey one server: open the runtime there, probe, sweep with ``options`` (as
    :func:`ascend_p2p_lab.measure.sweep` takes them: the spec's, and the run's
    ``checkpoint``, ``on_block``, ``workers``), ``after(rt, run)`` on the same runtime
    when given (a fleet's n-of-m: the items measured again, kept as the result's
    ``attempts``), close; a :class:`HostResult`."""
    start, cpu = time.perf_counter(), time.thread_time()
    try:
        rt = open_runtime(
            target.backend, target.preset, seed=target.seed, faults=list(target.faults) or None
        )
    except Exception as exc:
        e = _error_fields(exc)
        return failed_host(
            target.name, e["kind"], e["message"], code=e.get("code"), call=e.get("call")
        )
    again = None
    try:
        run, table, error = _measure(rt, options)
        if after is not None and run is not None and error is None:
            try:
                again = after(rt, run)
            except Exception as exc:
                error = _error_fields(exc)
    finally:
        try:
            rt.close()
        except Exception as exc:  # reported after the results, as the CLI does
            teardown = _error_fields(exc)
        else:
            teardown = None
    error = error or teardown
    if run is not None:
        run = tag_host(run, target.name)
    result = HostResult(
        target.name,
        _status(run, error),
        run=run,
        probe=None if table is None else table.frame(),
        wall_s=time.perf_counter() - start,
        cpu_s=time.thread_time() - cpu,
        worker=_worker_address(),
        attempts=again,
    )
    if error is not None:
        result.error_kind, result.error = error["kind"], error["message"]
        result.error_code, result.error_call = error.get("code"), error.get("call")
    return result
