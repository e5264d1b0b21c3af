"""The executor's verification (measure/execute.py): a copy that completes but never
lands (the simulator's ``drop`` fault) fails the point it belongs to, on a pair sweep and
on a test file's transfers at once; only because each point's receive buffers are
cleared before it and read back after it.

The fixtures are asymmetric: one direction of one link drops, and an earlier point wrote
the very bytes a dropped point should have written into the same receive buffer, so a
buffer left uncleared between points (or no verification) passes the dropped point.
Each point takes a known number of copies at first (a warm-up and one sample of one
copy: ``QUICK``); the drops start after the first point's."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from helpers import (
    QUICK_6,
    _without,
    run_cli,
    topology_with,
)

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.patterns.model import make_test
from ascend_p2p_lab.patterns.testfile import read_tests

QUICK = {"samples": 1, "warmup": 1, "max_copies": 1, "progress": False}
#: every copy over 0 -> 1 after the first two (the first point's warm-up and sample)
LATER = [{"kind": "drop", "link": [0, 1], "nth": n} for n in range(3, 67)]
ALWAYS = [{"kind": "drop", "link": [0, 1]}]
#: two tests at once into the same receive buffer of device 1 (slot 0) from device 0:
#: pulled by 1 first, then pushed by 0; 2 <-> 3 beside them
TWO_TESTS = """schema_version = 1

[[test]]
name = "pull"
sizes = ["16KiB"]
transfers = ["0->1", "2->3"]

[[test]]
name = "push"
sizes = ["16KiB"]
transfers = ["0->1 by 0", "3->2"]
"""


def _verified(run: pd.DataFrame, *keys: str) -> dict[tuple, object]:
    """verified per point (keys), None where nothing was checked."""
    return {
        tuple(None if pd.isna(v) else v for v in k): (None if pd.isna(ok) else bool(ok))
        for *k, ok in run.samples[[*keys, "verified"]].itertuples(index=False, name=None)
    }


def _pairs(faults: list[dict], verify: bool = True) -> dict[tuple, object]:
    with open_runtime("sim", "atlas800t-a2", faults=faults, announce=False) as rt:
        run = sweep(
            rt, pairs="0-1", direction="both", sizes="16KiB", verify=verify, **QUICK
        )  # uni 0 -> 1, then bi 0 -> 1 with 1 -> 0: one receive buffer on device 1
    return _verified(run, "direction", "src", "dst")


def test_a_pair_sweep_fails_the_point_whose_copies_never_landed() -> None:
    # no fault: each way of the bi pair holds its own source's bytes (checked against
    # the other end's pattern, a->b would fail)
    assert set(_pairs([]).values()) == {True} and len(_pairs([])) == 3
    assert _pairs(LATER) == {
        ("uni", 0, 1): True,  # landed
        ("bi", 0, 1): False,  # dropped: the uni point's bytes were cleared away
        ("bi", 1, 0): True,
    }
    assert _pairs(ALWAYS) == {("uni", 0, 1): False, ("bi", 0, 1): False, ("bi", 1, 0): True}
    assert set(_pairs(ALWAYS, verify=False).values()) == {None}


def _tests(tmp_path: Path, faults: list[dict], verify: bool = True) -> pd.DataFrame:
    path = tmp_path / "two.toml"
    path.write_text(TWO_TESTS, encoding="utf-8")
    with open_runtime("sim", "atlas800t-a2", faults=faults, announce=False) as rt:
        return sweep(rt, tests=read_tests(path, rt.device_count), verify=verify, **QUICK)


def test_a_test_files_transfers_at_once_fail_where_a_copy_never_landed(tmp_path: Path) -> None:
    run = _tests(tmp_path, LATER)
    assert _verified(run, "test", "transfer") == {
        ("pull", 0): True,
        ("pull", 1): True,
        ("pull", None): True,  # the aggregate of the test's transfers
        ("push", 0): False,  # 0 -> 1 pushed: dropped, the pull's bytes cleared away
        ("push", 1): True,
        ("push", None): False,
    }
    bad = run.samples[run.samples["verified"].eq(False).fillna(False)]
    assert set(bad["error_kind"]) == {"verification"}
    assert "device 1 differ from device 0's pattern" in bad["error"].iloc[0]
    unchecked = _tests(tmp_path, ALWAYS, verify=False)
    assert (
        unchecked.samples["verified"].isna().all() and unchecked.samples["error_kind"].isna().all()
    )


def test_run_file_on_a_server_that_drops_exits_1(tmp_path: Path, capsys) -> None:
    """The command-line route: the fault in the server's file, ``run FILE`` on it."""
    tests = tmp_path / "two.toml"
    tests.write_text(TWO_TESTS, encoding="utf-8")
    topo = topology_with(tmp_path, 'kind = "drop"\nlink = [0, 1]')
    argv = ["run", str(tests), "--topology", topo, "--samples", "1", "--no-progress"]
    code, out, _ = run_cli(capsys, *argv)
    assert code == 1 and "verification" in out
    assert "device 1 differ from device 0's pattern" in out


def test_an_unreachable_transfer_is_a_reason_not_a_crash(capsys):
    """On the 310 no pair reaches another: the test's rows say unreachable (exit 0)."""
    with open_runtime("sim", "atlas300i-310") as rt:
        run = sweep(
            rt,
            tests=[make_test("t", ["0->1", "host->2"], 8)],
            sizes="1MiB",
            samples=1,
            progress=False,
        )
    assert set(run.samples["error_kind"]) == {"unreachable"}


def test_each_transfer_runs_on_its_initiators_stream():
    """The pull on the destination's stream, the push on the source's, the host copy on
    its device's: the streams a test asks for, in transfer order after the lead's."""
    with open_runtime("sim", "atlas800t-a2") as rt:
        asked: list[int] = []
        real = rt.stream

        def stream(dev: int, *a, **k):
            asked.append(dev)
            return real(dev, *a, **k)

        rt.stream = stream  # type: ignore[method-assign]
        sweep(
            rt,
            tests=[make_test("t", ["0->1", "2->3 by 2", "host->4"], 8)],
            sizes="1MiB",
            samples=1,
            progress=False,
        )
    assert asked == [1, 1, 2, 4]


def test_a_lost_device_stops_its_work_and_the_others_go_on() -> None:
    """Device 2 is lost at its 10th async copy: later blocks on device 2 are
    ``device_lost`` without a call against it; blocks without it are measured."""
    fault = {"kind": "device_lost", "device": 2, "call": "rt.memcpy_async", "nth": 10}
    with open_runtime("sim", faults=[fault]) as rt:
        run = sweep(rt, pairs="1-2,0-1,2-3,3-0,0-2,2-0", **QUICK_6)
        calls_after = dict(rt.acl.call_counts)
    on2 = run.samples[
        ((run.samples.src == 2) | (run.samples.dst == 2)) & run.samples.error_kind.notna()
    ]
    assert set(on2.error_kind) == {"runtime", "device_lost"}
    first = on2[on2.error_kind == "runtime"]
    assert set(zip(first.src, first.dst)) == {(1, 2)}  # the block where it was lost
    skipped = on2[on2.error_kind == "device_lost"]
    assert set(zip(skipped.src, skipped.dst)) == {(2, 3), (0, 2), (2, 0)}
    assert set(skipped.error_code) == {507010}
    others = run.samples[(run.samples.src != 2) & (run.samples.dst != 2)]
    assert others.error_kind.isna().all() and others.bandwidth_GBps.notna().all()
    assert run.meta.lost_devices == {"2": first.error.iloc[0]}
    # no block tried to create streams on device 2 after it was lost
    assert calls_after["rt.create_stream"] <= 2 * 3 + 2


# --------------------------------------------------------------- honest verification
def test_a_failed_seeding_copy_is_a_runtime_error_not_corruption() -> None:
    """The 2nd aclrtMemcpy of the run fails while device 0's send buffer is filled: that
    point is ``runtime`` (call acl.rt.memcpy), and no later point over device 0 reports
    a verification failure (the half-filled buffer is not reused)."""
    fault = {"kind": "error", "call": "rt.memcpy", "nth": 2, "code": 507013}
    with open_runtime("sim", faults=[fault]) as rt:
        run = sweep(rt, pairs="0-1,0-2,1-0", sizes="4KiB,4MiB", samples=2, progress=False)
    first = run.samples[(run.samples.src == 0) & (run.samples.dst == 1)]
    assert set(first.error_kind) == {"runtime"} and set(first.error_call) == {"acl.rt.memcpy"}
    assert first.verified.isna().all()
    later = run.samples[~((run.samples.src == 0) & (run.samples.dst == 1))]
    assert later.error_kind.isna().all() and later.verified.all()


def test_a_missing_call_is_found_before_any_copy() -> None:
    with open_runtime("sim") as rt:
        _without(rt, "event_elapsed_time")
        run = sweep(rt, pairs="0-1", **QUICK_6)
        copies = rt.acl.call_counts.get("rt.memcpy_async", 0)
    assert set(run.samples.error_kind) == {"missing_call"} and copies == 0
    with open_runtime("sim") as rt:  # host timing needs no events
        _without(rt, "event_elapsed_time")
        run = sweep(rt, pairs="0-1", timing="host", **QUICK_6)
    assert run.samples.error_kind.isna().all()
