"""Unit-test fixtures: every simulated runtime made during the session must end with an
empty ledger.

- A simulator a test makes (itself or through function-scoped fixtures) is checked when
  the test ends, unless the test is marked ``keeps_ledger`` (it checks the ledger itself).
- A simulator made outside any single test (by a module- or session-scoped fixture, at
  import or collection time, or while a previous module's fixtures were torn down) is
  found by the drain at the next test's setup and checked once every fixture has been
  torn down, at the end of the session. A leak there fails the session with an error that
  names the simulator and the test before whose setup it was found.
"""

from __future__ import annotations

import inspect
import signal
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

# the tests' shared helpers (helpers.py, browserapp.py) import by name from any test folder
sys.path.insert(0, str(Path(__file__).resolve().parent))

from ascend_p2p_lab.sim import drain_tracked, track

track(True)  # keep every simulator a test makes alive until its ledger is checked

# The Ctrl-C tests send SIGINT to this process and to the commands it starts. A suite
# started as a background job of a non-interactive shell (`cmd &`) inherits SIGINT
# ignored, and ignored it would stay in every command it starts: give it Python's own
# handler, as an interactive start has it, so those tests test the code, not the shell.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

#: Simulators made outside any single test, each with where it was first seen; checked
#: at the end of the session (see _empty_ledgers_at_session_end and pytest_sessionfinish).
_OUTSIDE_TESTS: list[tuple[Any, str]] = []


def _leaks(found: list[tuple[Any, str]]) -> list[str]:
    return [
        f"{sim!r} ({where}): {sim.simulator.ledger()}"
        for sim, where in found
        if not sim.simulator.ledger_is_empty()
    ]


def _check_outside_tests(where: str) -> list[str]:
    """Leaks among the simulators made outside tests so far (each is checked once)."""
    found = [*_OUTSIDE_TESTS, *((sim, where) for sim in drain_tracked())]
    _OUTSIDE_TESTS.clear()
    return _leaks(found)


@pytest.fixture(scope="module", autouse=True)
def _no_dask_offload_thread_after_a_module():
    """Once a Dask client has run, distributed keeps a thread (``Dask-Offload``), and a
    later test in the same worker that asks whether the process may fork
    (``measure.workers.may_fork``, ``forking.can_fork``) would see it. A module that
    started the thread stops it; distributed's executor is replaced by a fresh one, which
    starts its thread only when used."""
    yield
    utils = sys.modules.get("distributed.utils")
    executor = getattr(utils, "_offload_executor", None)
    if executor is not None and getattr(executor, "_threads", None):
        executor.shutdown(wait=True)
        utils._offload_executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="Dask-Offload"
        )


@pytest.fixture(scope="session", autouse=True)
def _empty_ledgers_at_session_end():
    yield  # torn down after every module- and session-scoped fixture that came later
    leaks = _check_outside_tests("made after the last test's setup")
    assert not leaks, (
        "simulator ledger not empty at the end of the session, for simulators made by "
        "module- or session-scoped fixtures (or outside any test):\n  " + "\n  ".join(leaks)
    )


@pytest.fixture(autouse=True)
def _empty_ledger_after_each_test(request: pytest.FixtureRequest):
    # Made before this test's setup (wider-scoped fixtures run first): checked at the end.
    _OUTSIDE_TESTS.extend(
        (sim, f"found at the setup of {request.node.nodeid}") for sim in drain_tracked()
    )
    yield
    made = drain_tracked()
    if request.node.get_closest_marker("keeps_ledger"):
        return
    leaks = {
        f"{sim!r} #{i}": sim.simulator.ledger()
        for i, sim in enumerate(made)
        if not sim.simulator.ledger_is_empty()
    }
    assert not leaks, f"simulator ledger not empty after the test: {leaks}"


#: Leaks that pytest-xdist workers found at their session's end (on the controller).
_WORKER_LEAKS: list[str] = []


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """On the xdist controller: gather what a worker's backstop found (see below)."""
    leaks = getattr(node, "workeroutput", {}).get("ledger_leaks")
    if leaks:
        _WORKER_LEAKS.append(f"{getattr(node, 'gateway', node).id}: {leaks}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Backstop for simulators made after the session-scoped check ran (or when it never
    ran): report them and make the exit status non-zero. Under pytest-xdist a worker
    hands its finding to the controller (``workeroutput``), which reports it and fails."""
    leaks = [*_check_outside_tests("made after the session-level check"), *_WORKER_LEAKS]
    if not leaks:
        return
    message = "simulator ledger not empty at the end of the session:\n  " + "\n  ".join(leaks)
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: the controller reports and fails
        workeroutput["ledger_leaks"] = message
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_sep("=", "simulator ledger leaks", red=True)
        reporter.write_line(message, red=True)
    else:
        print(message)
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture
def fake_plots(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Replace the dashboard's two figures with 1x1 blanks; the list the fixture returns
    grows by the row count of each run ``plots.heatmap`` was asked to draw."""
    from matplotlib.figure import Figure

    from ascend_p2p_lab import plots

    drawn: list[int] = []

    def blank(run: Any, **_kwargs: Any) -> Figure:
        return Figure(figsize=(1, 1), dpi=20)

    def heatmap(run: Any, **kwargs: Any) -> Figure:
        drawn.append(len(run))
        return blank(run, **kwargs)

    monkeypatch.setattr(plots, "heatmap", heatmap)
    monkeypatch.setattr(plots, "bandwidth_vs_size", blank)
    return drawn


@pytest.fixture
def planned_report(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """``plots.report`` replaced by its plan: every command that writes a report (``report``,
    ``demo``, ...) writes the files the report would draw, in its order, empty, and returns
    their paths, so a test of which figures a run gets runs the whole command but draws
    nothing (how figures look is tested in tests/plots/). The list the fixture returns
    grows by each report's file names."""
    from ascend_p2p_lab import plots
    from ascend_p2p_lab.plots import reports

    planned: list[list[str]] = []
    takes = inspect.signature(plots.report)  # a call the real report refuses fails here too

    def report(run: Any, out_dir: Any, **kwargs: Any):
        takes.bind(run, out_dir, **kwargs)
        table, size = kwargs.get("table"), kwargs.get("size")
        jobs = reports.plan(reports.frame_of(run), table=table, size=size)
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        for job in jobs:
            (out / job.name).write_bytes(b"")
        planned.append([job.name for job in jobs])
        return [out / job.name for job in jobs]

    monkeypatch.setattr(plots, "report", report)
    return planned


@pytest.fixture(scope="session")
def a2_checks() -> dict[str, Any]:
    """The delivery tests' checks (tests/deliver): ``{"degraded": Verdict, "clean":
    Verdict}``, the preflight of the A2 model x 0.9 on a simulated A2 with the directed
    link 2 -> 5 at half speed (5 -> 2 healthy), and on a healthy one."""
    import dataclasses

    from ascend_p2p_lab.check import criteria_from_preset, run_check
    from ascend_p2p_lab.check.preflight import preflight
    from ascend_p2p_lab.deliver import Verdict
    from ascend_p2p_lab.runtime import open_runtime
    from ascend_p2p_lab.topology import load_preset

    base = load_preset("atlas800t-a2")
    criteria = preflight(criteria_from_preset("atlas800t-a2"))
    slow = ({"kind": "degrade", "link": [2, 5], "factor": 0.5},)
    out = {}
    for name, faults in (("degraded", slow), ("clean", ())):
        with open_runtime("sim", topology=dataclasses.replace(base, faults=faults)) as rt:
            result = run_check(rt, criteria)
        out[name] = Verdict.of(
            result, host="a2", finished=1_800_000_000.0, duration_s=0.4, criteria=criteria.name
        )
    return out
