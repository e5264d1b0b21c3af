"""sweep(workers=N) on the simulator: blocks in forked processes, the same rows to the
bit and in the same order; failures, interrupts and dead workers said as in one process."""

from __future__ import annotations

import importlib
import multiprocessing
import os
import time
from pathlib import Path

import pandas as pd
import pytest

from ascend_p2p_lab.measure import make_spec, plan, sweep
from ascend_p2p_lab.measure import workers as workers_mod
from ascend_p2p_lab.runtime import AclError, open_runtime

sweep_mod = importlib.import_module("ascend_p2p_lab.measure.sweep")
pytestmark = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs fork"
)


@pytest.fixture(autouse=True)
def _fork_beside_the_runners_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest-xdist's worker runs threads (execnet), so can_fork says no there; these
    tests fork anyway (the forked workers touch nothing of those threads)."""
    monkeypatch.setattr(workers_mod, "can_fork", lambda: True)


KW = dict(
    devices="0,1,2,3",
    sizes="4KiB,16MiB",
    direction="both",
    peer="both",
    samples=2,
    progress=False,
    patterns=["pair", "local", "one_to_all", "h2d"],
)


def _run(workers: int, **extra) -> pd.DataFrame:
    with open_runtime("sim", "atlas800t-a2", seed=4, announce=False) as rt:
        return sweep(rt, workers=workers, **{**KW, **extra}).frame()


def _cols(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if c != "run_id"]


@pytest.fixture(scope="module")
def alone() -> pd.DataFrame:
    return _run(1)


def test_workers_give_the_rows_of_one_process_to_the_bit(alone) -> None:
    two = _run(2)
    assert two.attrs["run"]["workers"] == 2 and alone.attrs["run"]["workers"] is None
    assert len(alone) > 200 and alone["path"].eq("staged").any()
    pd.testing.assert_frame_equal(alone[_cols(alone)], two[_cols(two)], check_exact=True)
    assert two.attrs["run"]["points_not_reached"] == 0


def test_on_block_and_the_checkpoint_see_every_block(tmp_path: Path, alone) -> None:
    seen = []
    ckpt = tmp_path / "sweep.ckpt"
    _run(2, on_block=seen.append, checkpoint=ckpt)
    total = alone.attrs["run"]["blocks"]
    assert sorted(d.done for d in seen) == list(range(1, total + 1))
    assert {d.total for d in seen} == {total} and len({d.block.key for d in seen}) == total
    resumed = _run(1, checkpoint=ckpt)  # every block is in the checkpoint: nothing runs
    assert resumed.attrs["run"]["resumed_blocks"] == total
    # the checkpoint holds the blocks in the order they finished
    key = ["pattern", "direction", "peer", "path", "src", "dst", "size_bytes", "sample"]
    pd.testing.assert_frame_equal(
        alone[_cols(alone)].sort_values(key).reset_index(drop=True),
        resumed[_cols(resumed)].sort_values(key).reset_index(drop=True),
        check_exact=True,
    )


def _failing_block(
    monkeypatch: pytest.MonkeyPatch, exc: BaseException, nth: int, hold: Path | None = None
) -> None:
    """The plan's nth block raises exc; with ``hold`` (a file its worker writes once it
    has closed the counter, as it makes the error sendable), the first block waits for
    that file, so another worker runs the blocks between them and the first finishes
    after the failure."""
    real, real_sendable = sweep_mod.run_test, workers_mod.sendable

    def sendable(error: BaseException) -> BaseException:
        if hold is not None:
            hold.touch()
        return real_sendable(error)

    def run_test(ctx, test):
        if test.key == ctx_keys[nth]:
            raise exc
        if test.key == ctx_keys[0] and hold is not None:
            deadline = time.monotonic() + 30
            while not hold.exists() and time.monotonic() < deadline:
                time.sleep(0.01)
        return real(ctx, test)

    with open_runtime("sim", "atlas800t-a2", seed=4, announce=False) as rt:
        ctx_keys = [
            t.key
            for t in plan(rt, make_spec(rt, **{k: v for k, v in KW.items() if k != "progress"}))
        ]
    monkeypatch.setattr(sweep_mod, "run_test", run_test)
    monkeypatch.setattr(workers_mod, "sendable", sendable)


def test_an_interrupt_in_a_worker_keeps_the_other_blocks(monkeypatch, alone) -> None:
    _failing_block(monkeypatch, KeyboardInterrupt(), nth=5)
    run = _run(2)
    assert run.attrs["run"]["interrupted"] is True
    assert 0 < len(run) < len(alone)
    assert run.attrs["run"]["points_not_reached"] > 0
    kept = run.merge(
        alone,
        on=[
            c
            for c in _cols(alone)
            if c not in ("elapsed_us", "bandwidth_GBps", "host_enqueue_us", "bidir_total_GBps")
        ],
        suffixes=("", "_alone"),
    )
    assert len(kept) == len(run)  # every row kept is a row of the whole run


def test_a_worker_error_no_row_can_carry_is_raised_with_the_rows(
    monkeypatch, alone, tmp_path
) -> None:
    """Block 3 fails in one worker while the other still runs block 0: the error waits
    for block 0 and no block is dealt after it, so the rows are those of one process."""
    boom = AclError("acl.rt.free", (1,), 507899, "a release failed")
    _failing_block(monkeypatch, boom, nth=3)
    with pytest.raises(AclError) as info:
        _run(1)
    one = info.value.partial_run.frame()
    _failing_block(monkeypatch, boom, nth=3, hold=tmp_path / "block3-failed")
    with pytest.raises(AclError) as info:
        _run(2)
    run = info.value.partial_run
    assert info.value.code == 507899 and 0 < len(one) < len(alone)
    assert "507899" in run.meta.failed
    two = run.frame()
    pd.testing.assert_frame_equal(one[_cols(one)], two[_cols(two)], check_exact=True)


def test_of_two_workers_failing_the_earlier_blocks_error_is_raised(monkeypatch, alone) -> None:
    """Block 1 fails at once, block 0 (the other worker) 0.5 s later: one process would
    have stopped at block 0, so its error is the one raised; no block after them ran."""
    real = sweep_mod.run_test

    def run_test(ctx, test):
        index = keys.index(test.key)
        if index == 0:
            time.sleep(0.5)
        if index < 2:
            raise AclError("acl.rt.memcpy", (index,), 507011 + index, "planted")
        return real(ctx, test)

    with open_runtime("sim", "atlas800t-a2", seed=4, announce=False) as rt:
        spec = make_spec(rt, **{k: v for k, v in KW.items() if k != "progress"})
        keys = [t.key for t in plan(rt, spec)]
    monkeypatch.setattr(sweep_mod, "run_test", run_test)
    with pytest.raises(AclError) as info:
        _run(2)
    assert info.value.code == 507011 and len(info.value.partial_run) == 0


def test_a_worker_that_dies_is_a_failure_not_a_hang(monkeypatch) -> None:
    _failing_block(monkeypatch, SystemExit(), nth=2)
    monkeypatch.setattr(workers_mod, "sendable", lambda exc: os._exit(9))
    with pytest.raises(workers_mod.WorkerDied, match="exit code 9") as info:
        _run(2)
    assert "WorkerDied" in info.value.partial_run.meta.failed


def test_workers_only_where_they_cannot_change_a_number(monkeypatch) -> None:
    with open_runtime("sim", "atlas800t-a2", announce=False) as rt:
        assert workers_mod.may_fork(rt, 2) and not workers_mod.may_fork(rt, 1)
        monkeypatch.setattr(workers_mod, "can_fork", lambda: False)  # say, a thread runs
        assert not workers_mod.may_fork(rt, 2)
        monkeypatch.undo()
    faults = [{"kind": "degrade", "link": [0, 1], "factor": 0.5}]
    with open_runtime("sim", "atlas800t-a2", faults=faults, announce=False) as rt:
        assert not workers_mod.may_fork(rt, 2)  # a fault's state is per process
        run = sweep(rt, pairs="0-1,1-0", sizes="4KiB", samples=1, workers=2, progress=False)
    assert run.meta.workers is None


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_a_bad_workers_value_is_refused_before_any_device_work(bad) -> None:
    with open_runtime("sim", "atlas800t-a2", announce=False) as rt:
        before = dict(rt.acl.simulator.call_counts)
        with pytest.raises(ValueError, match="workers must be a whole number"):
            sweep(rt, pairs="0-1", sizes="4KiB", workers=bad, progress=False)
        assert dict(rt.acl.simulator.call_counts) == before


def test_what_a_worker_did_instead_of_a_missing_call_is_said() -> None:
    with open_runtime("sim", "atlas800t-a2", announce=False) as rt:
        delattr(rt.acl.rt, "stream_wait_event")  # an older pyACL: staged legs wait on the host
        run = sweep(
            rt, pairs="0-1,2-3,4-5", peer="off", sizes="64KiB", samples=1, workers=2, progress=False
        )
    assert run.meta.workers == 2
    assert "acl.rt.stream_wait_event" in run.meta.fallbacks


def test_the_demo_simulates_in_one_process_per_idle_core(
    monkeypatch, tmp_path, capsys, planned_report
) -> None:
    """Two idle cores: two processes (the report planned, not drawn: not what is tested)."""
    import json

    from ascend_p2p_lab import forking
    from ascend_p2p_lab.cli import main

    monkeypatch.setattr(forking, "can_fork", lambda: True)
    monkeypatch.setattr(forking, "busy_cores", lambda window_s=0.0: 0.0)
    monkeypatch.setattr(forking.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--sizes", "4KiB,1MiB", "--no-progress"]) == 0
    assert "simulated in 2 processes" in capsys.readouterr().out
    assert json.loads((out / "run.json").read_text())["workers"] == 2


# ------------------------------------------------------------------ issue 30 (its last items)
pytestmark = pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="needs fork"
)


def test_a_workers_event_fallback_is_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers_mod, "can_fork", lambda: True)  # xdist's threads aside
    with open_runtime("sim", "atlas800t-a2", announce=False) as rt:
        delattr(rt.acl.rt, "create_event_with_flag")
        run = sweep(rt, pairs="0-1,2-3,4-5", sizes="64KiB", samples=1, workers=2, progress=False)
        assert rt.fallbacks == {}  # the parent made no event: the workers did
    assert run.meta.workers == 2
    assert list(run.meta.fallbacks) == ["acl.rt.create_event_with_flag"]
