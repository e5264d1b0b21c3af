"""One runtime session for a command (``cli/session.py``): the work's status, the runtime
closed after the work whatever happens, a teardown failure reported after the results
(and exit 1, unless the command was interrupted), and the topology file read or refused
in one line before any runtime opens."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from ascend_p2p_lab.cli import session
from ascend_p2p_lab.cli.exitstatus import UsageError

DATA = Path(__file__).resolve().parents[1] / "data"


class FakeRuntime:
    """A runtime whose close can fail; it records what was done to it."""

    def __init__(self, close_error: Exception | None = None) -> None:
        self.close_error, self.closed, self.opened_with = close_error, 0, None

    def close(self) -> None:
        self.closed += 1
        if self.close_error is not None:
            raise self.close_error


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch):
    """Make run_session open a FakeRuntime; returns a setter for the next one."""
    box: dict[str, FakeRuntime] = {}

    def fake_open(backend, preset, *, seed=None, topology=None):
        rt = box["rt"]
        rt.opened_with = (backend, preset, seed, topology)
        return rt

    monkeypatch.setattr(session, "open_runtime", fake_open)

    def use(rt: FakeRuntime) -> FakeRuntime:
        box["rt"] = rt
        return rt

    return use


def _args(**kw: object) -> argparse.Namespace:
    return argparse.Namespace(**{"backend": "sim", "preset": "atlas800t-a2", "seed": 3, **kw})


def test_the_work_runs_on_the_opened_runtime_and_its_status_is_returned(opened) -> None:
    rt = opened(FakeRuntime())
    seen = []
    assert session.run_session(_args(), lambda r: seen.append(r) or 7) == 7
    assert seen == [rt] and rt.closed == 1
    assert rt.opened_with == ("sim", "atlas800t-a2", 3, None)
    # a command's own backend and preset (the demo's defaults) win over the arguments'
    session.run_session(_args(), lambda r: 0, backend="acl", preset="atlas800t-a3")
    assert rt.opened_with[:2] == ("acl", "atlas800t-a3")


@pytest.mark.parametrize(
    "status, expected", [(0, 1), (1, 1), (130, 130)], ids=["ok", "failed", "interrupted"]
)
def test_a_teardown_failure_after_the_results_is_exit_1_unless_interrupted(
    opened, capsys, status, expected
) -> None:
    rt = opened(FakeRuntime(RuntimeError("aclFinalize returned 507899")))

    def work(r):
        print("the results")
        return status

    assert session.run_session(_args(), work) == expected
    out, err = capsys.readouterr()
    assert out == "the results\n" and rt.closed == 1
    assert err == (
        "ascend-p2p-lab: teardown failed after the results above: aclFinalize returned 507899\n"
    )


def test_a_failing_work_still_closes_and_its_own_error_is_what_is_raised(opened, capsys) -> None:
    rt = opened(FakeRuntime())

    def work(r):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        session.run_session(_args(), work)
    assert rt.closed == 1 and capsys.readouterr().err == ""
    rt = opened(FakeRuntime(RuntimeError("reset failed")))

    def broken(r):
        raise ValueError("the work's error")

    with pytest.raises(ValueError, match="the work's error"):
        session.run_session(_args(), broken)
    assert rt.closed == 1
    assert capsys.readouterr().err == "ascend-p2p-lab: teardown also failed: reset failed\n"


def test_the_topology_file_is_read_before_the_runtime_opens(opened, tmp_path) -> None:
    rt = opened(FakeRuntime())
    text = DATA / "npu-smi-topo-910b3-8npu.txt"
    session.run_session(_args(topology=text), lambda r: 0)
    topo = rt.opened_with[3]
    assert topo.device_count == 8 and topo.name == text.stem
    assert topo.link(0, 1) == "HCCS" and topo.link(1, 0) == "HCCS"
    rt.opened_with = None
    with pytest.raises(UsageError, match="no such file"):
        session.run_session(_args(topology=tmp_path / "none.txt"), lambda r: 0)
    assert rt.opened_with is None  # refused before any runtime opened


def test_load_topology_refuses_what_is_no_topology_file_in_one_line(tmp_path) -> None:
    assert session.load_topology(None) is None
    with pytest.raises(UsageError, match=r"is a folder; give the topology file"):
        session.load_topology(tmp_path)
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * ((1 << 20) + 1))
    with pytest.raises(UsageError, match=r"larger than 1 MiB; not npu-smi output"):
        session.load_topology(big)
    toml = session.load_topology(DATA / "a2-slow-2to5.toml")
    assert toml.device_count == 8
