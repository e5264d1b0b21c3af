"""IPC memory across processes on the simulator (issue 23): pyACL's documented two-process
flow runs unchanged, each misuse returns its code, sweep --processes matches in-process
bandwidth with verified bytes, and nothing stays exported after a kill or an interrupt.

Every test that starts processes stops them itself, with timeouts."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.measure.processes import sweep_processes
from ascend_p2p_lab.runtime import open_runtime


def test_a_failing_point_costs_only_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    from ascend_p2p_lab.measure import ipcworker
    from ascend_p2p_lab.runtime import AclError

    measure = ipcworker.Worker.measure

    def failing(self, role, peer, key, size):  # device 1 cannot pull (forked workers see it)
        if self.device == 1 and role == "pull":
            raise AclError("acl.rt.memcpy_async", (), 507899, "injected")
        return measure(self, role, peer, key, size)

    monkeypatch.setattr(ipcworker.Worker, "measure", failing)
    with open_runtime("sim", "atlas800t-a2") as rt:
        run = sweep_processes(rt, pairs=[(0, 1), (1, 0)], sizes="1MiB", samples=2, in_process=False)
        assert rt.acl.simulator.shared_ledger() == {"exports": 0, "imports": 0}
    bad = run[run.error_kind.notna()]
    assert set(zip(bad.src, bad.dst, bad.initiator)) == {(0, 1, "dst")}
    assert set(bad.error_code) == {507899} and set(bad.error_kind) == {"runtime"}
    good = run[run.error_kind.isna()]
    assert len(good) == 3 * 2 and good.verified.all()
    assert all(run.attrs["run"]["workers_clean"].values())


def test_a_worker_that_cannot_start_costs_only_its_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    from ascend_p2p_lab.measure import ipcworker
    from ascend_p2p_lab.runtime import AclError

    hello = ipcworker.Worker.hello

    def no_pid(self):  # device 2's worker fails to start (forked workers see it)
        if self.device == 2:
            raise AclError("acl.rt.device_get_bare_tgid", (), 107000, "injected")
        return hello(self)

    monkeypatch.setattr(ipcworker.Worker, "hello", no_pid)
    with open_runtime("sim", "atlas800t-a2") as rt:
        run = sweep_processes(rt, pairs=[(0, 1), (0, 2)], sizes="1MiB", samples=2, in_process=False)
        assert rt.acl.simulator.shared_ledger() == {"exports": 0, "imports": 0}
    lost = run[run.error_kind == "worker_lost"]
    assert set(zip(lost.src, lost.dst)) == {(0, 2)}
    assert lost.error.str.contains("could not start: acl.rt.device_get_bare_tgid").all()
    assert run[run.error_kind.isna()].verified.all()
