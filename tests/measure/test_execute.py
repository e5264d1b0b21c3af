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
from helpers import run_cli, topology_with

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep
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
        for *k, ok in run[[*keys, "verified"]].itertuples(index=False, name=None)
    }


def _pairs(faults: list[dict], verify: bool = True) -> dict[tuple, object]:
    with open_runtime("sim", "atlas800t-a2", faults=faults, announce=False) as rt:
        run = sweep(
            rt, pairs="0-1", direction="both", sizes="16KiB", verify=verify, **QUICK
        )  # uni 0 -> 1, then bi 0 -> 1 with 1 -> 0: one receive buffer on device 1
    return _verified(run, "direction", "src", "dst")


def test_a_pair_sweep_fails_the_point_whose_copies_never_landed() -> None:
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
    bad = run[run["verified"].eq(False).fillna(False)]
    assert set(bad["error_kind"]) == {"verification"}
    assert "device 1 differ from device 0's pattern" in bad["error"].iloc[0]
    unchecked = _tests(tmp_path, ALWAYS, verify=False)
    assert unchecked["verified"].isna().all() and unchecked["error_kind"].isna().all()


def test_run_file_on_a_server_that_drops_exits_1(tmp_path: Path, capsys) -> None:
    """The command-line route: the fault in the server's file, ``run FILE`` on it."""
    tests = tmp_path / "two.toml"
    tests.write_text(TWO_TESTS, encoding="utf-8")
    topo = topology_with(tmp_path, 'kind = "drop"\nlink = [0, 1]')
    argv = ["run", str(tests), "--topology", topo, "--samples", "1", "--no-progress"]
    code, out, _ = run_cli(capsys, *argv)
    assert code == 1 and "verification" in out
    assert "device 1 differ from device 0's pattern" in out
