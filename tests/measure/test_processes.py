"""sweep --processes runs in the report (the process-mode figure) and in compare (IPC
against in-process), and the table behind the figure.

IPC memory across processes on the simulator (issue 23): pyACL's documented two-process
flow runs unchanged, each misuse returns its code, sweep --processes matches in-process
bandwidth with verified bytes, and nothing stays exported after a kill or an interrupt.

Every test that starts processes stops them itself, with timeouts."""

from __future__ import annotations

import os
import signal

import pandas as pd
import pytest
from helpers import TIMEOUT_S

from ascend_p2p_lab.measure.processes import sweep_processes
from ascend_p2p_lab.run import Run
from ascend_p2p_lab.runtime import open_runtime


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    out = tmp_path_factory.mktemp("proc") / "run"
    with open_runtime("sim", "atlas800t-a3") as rt:
        Run.of(sweep_processes(rt, pairs=[(0, 1), (0, 2)], sizes="1MiB,8MiB", samples=2)).save(out)
    return Run.load(out).frame()


def test_the_saved_run_keeps_both_modes(run: pd.DataFrame) -> None:
    assert set(run["process_mode"]) == {"in_process", "ipc"}
    assert not run["process_mode"].isna().any()


def test_sweep_processes_refuses_what_it_does_not_measure() -> None:
    with open_runtime("sim", "atlas800t-a2") as rt:
        for bad in ({"direction": "bi"}, {"peer": "off"}, {"patterns": "local"}):
            with pytest.raises(ValueError, match="measures"):
                sweep_processes(rt, pairs=[(0, 1)], sizes="1MiB", **bad)


# ------------------------------------------------------------------------- sweep --processes
def test_sweep_processes_matches_in_process_within_5_percent() -> None:
    with open_runtime("sim", "atlas800t-a2") as rt:
        run = sweep_processes(rt, pairs=[(0, 1), (1, 0), (2, 5)], sizes="1MiB,16MiB", samples=3)
        assert rt.acl.simulator.shared_ledger() == {"exports": 0, "imports": 0}
    assert run.meta.workers_clean == {"0": True, "1": True, "2": True, "5": True}
    assert (
        run.samples.verified.notna().all()
        and run.samples.verified.all()
        and run.samples.error_kind.isna().all()
    )
    med = (
        run.samples.groupby(["process_mode", "initiator", "src", "dst", "size_bytes"])
        .bandwidth_GBps.median()
        .unstack("process_mode")
    )
    assert len(med) == 3 * 2 * 2  # pairs x initiators x sizes, both modes each
    ratio = med["ipc"] / med["in_process"]
    assert ((ratio - 1).abs() < 0.05).all(), ratio


def test_a_killed_worker_costs_only_its_points_and_leaves_nothing_exported() -> None:
    killed: list[int] = []

    def kill_device_2(procs: dict) -> None:
        if not killed:
            os.kill(procs[2].pid, signal.SIGKILL)
            procs[2].join(TIMEOUT_S)
            killed.append(procs[2].pid)

    with open_runtime("sim", "atlas800t-a2") as rt:
        run = sweep_processes(
            rt,
            pairs=[(0, 2), (0, 1), (1, 0)],
            sizes="1MiB",
            samples=2,
            in_process=False,
            on_point=kill_device_2,
        )
        assert rt.acl.simulator.shared_ledger() == {"exports": 0, "imports": 0}
    lost = run.samples[run.samples.error_kind == "worker_lost"]
    assert set(zip(lost.src, lost.dst)) == {(0, 2)}
    good = run.samples[run.samples.error_kind.isna()]
    assert set(zip(good.src, good.dst)) >= {(0, 1), (1, 0)} and good.verified.all()
    clean = run.meta.workers_clean
    assert clean["0"] and clean["1"] and clean["2"] is None


def test_an_interrupted_parent_keeps_its_rows_and_releases_everything() -> None:
    calls: list[int] = []

    def interrupt(procs: dict) -> None:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt

    with open_runtime("sim", "atlas800t-a2") as rt:
        run = sweep_processes(
            rt,
            pairs=[(0, 1), (1, 0)],
            sizes="1MiB",
            samples=2,
            in_process=False,
            on_point=interrupt,
        )
        assert rt.acl.simulator.shared_ledger() == {"exports": 0, "imports": 0}
    assert run.meta.interrupted is True
    assert len(run) == 2 * 2 and run.samples.verified.all()  # (0,1) pulled and pushed, kept
    assert all(run.meta.workers_clean.values())


def test_ctrl_c_while_a_worker_measures_releases_everything() -> None:
    import threading

    timers: list[threading.Timer] = []

    def sigint_soon(procs: dict) -> None:  # lands while the parent waits for a point
        if not timers:
            timers.append(threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)))
            timers[0].start()

    with open_runtime("sim", "atlas800t-a2") as rt:
        run = sweep_processes(
            rt,
            pairs=[(0, 1), (1, 0), (0, 2), (2, 0)],
            sizes="1MiB,64MiB",
            samples=5,
            in_process=False,
            on_point=sigint_soon,
        )
        timers[0].join(TIMEOUT_S)
        assert rt.acl.simulator.shared_ledger() == {"exports": 0, "imports": 0}
    assert run.meta.interrupted is True
    assert 0 < len(run) < 4 * 2 * 2 * 5 and run.samples.verified.all()
    assert all(run.meta.workers_clean.values())


def test_an_older_pyacl_gives_missing_call_rows_and_starts_no_worker() -> None:
    with open_runtime("sim", "atlas800t-a2", api_level="old") as rt:
        run = sweep_processes(rt, pairs=[(0, 1)], sizes="1MiB,2MiB", samples=2)
    ipc = run.samples[run.samples.process_mode == "ipc"]
    assert len(ipc) == 2 * 2 and set(ipc.error_kind) == {"missing_call"}
    assert set(ipc.error_call) == {"acl.rt.ipc_mem_get_export_key"}
    assert run.meta.workers_clean == {}
    inside = run.samples[run.samples.process_mode == "in_process"]
    assert len(inside) == 2 * 2 * 2 and inside.verified.all()  # measured in one process
