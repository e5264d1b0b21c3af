"""IPC memory across processes on the simulator (issue 23): pyACL's documented two-process
flow runs unchanged, each misuse returns its code, sweep --processes matches in-process
bandwidth with verified bytes, and nothing stays exported after a kill or an interrupt.

Every test that starts processes stops them itself, with timeouts."""

from __future__ import annotations

import pandas as pd
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
    bad = run.samples[run.samples.error_kind.notna()]
    assert set(zip(bad.src, bad.dst, bad.initiator)) == {(0, 1, "dst")}
    assert set(bad.error_code) == {507899} and set(bad.error_kind) == {"runtime"}
    good = run.samples[run.samples.error_kind.isna()]
    assert len(good) == 3 * 2 and good.verified.all()
    assert all(run.meta.workers_clean.values())


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
    lost = run.samples[run.samples.error_kind == "worker_lost"]
    assert set(zip(lost.src, lost.dst)) == {(0, 2)}
    assert lost.error.str.contains("could not start: acl.rt.device_get_bare_tgid").all()
    assert run.samples[run.samples.error_kind.isna()].verified.all()


# ------------------------------------------------ issue 37: a copy that never lands
QUICK = {"samples": 1, "warmup": 1, "max_copies": 1}  # 2 copies a point: warm-up, sample


def _ipc(run) -> dict[tuple[int, int, str, int], object]:
    """verified of each IPC point: (src, dst, initiator, size) -> True/False/None."""
    ipc = run.samples[run.samples.process_mode == "ipc"]
    return {
        (int(r.src), int(r.dst), r.initiator, int(r.size_bytes)): (
            None if pd.isna(r.verified) else bool(r.verified)
        )
        for r in ipc.itertuples()
    }


def test_a_dropped_link_in_the_servers_file_fails_its_ipc_points(tmp_path) -> None:
    """The workers simulate the parent's server, its [[fault]] tables included (before:
    the packaged preset of the same name, where nothing was dropped): every copy over
    0 -> 1 lands nothing, pulled or pushed, and only 0 -> 1 says so."""
    from ascend_p2p_lab.topology import load_topology_file
    from ascend_p2p_lab.topology.presets import read_packaged

    path = tmp_path / "a2-drop.toml"
    text = read_packaged("atlas800t-a2.toml") + '\n[[fault]]\nkind = "drop"\nlink = [0, 1]\n'
    path.write_text(text, encoding="utf-8")
    with open_runtime("sim", topology=load_topology_file(path), announce=False) as rt:
        run = sweep_processes(rt, pairs=[(0, 1), (1, 0)], sizes="16KiB", in_process=False, **QUICK)
    assert _ipc(run) == {
        (0, 1, "dst", 16384): False,
        (0, 1, "src", 16384): False,
        (1, 0, "dst", 16384): True,
        (1, 0, "src", 16384): True,
    }
    assert set(run.samples.loc[run.samples.verified.eq(False).fillna(False), "error_kind"]) == {
        "verification"
    }


@pytest.mark.parametrize("verify", [True, False])
def test_a_push_into_a_buffer_cleared_before_it_shows_a_drop(verify: bool) -> None:
    """Faults given in Python reach the workers too, counted in each: the first two
    copies over 0 -> 1 of each worker are dropped, that is the 16 KiB pull (worker 1
    issues it) and the 16 KiB push (worker 0). The push comes after the 64 KiB pull
    landed in the same receive buffer: only a buffer cleared before the push shows it.
    Without verification, nothing is claimed."""
    drops = [{"kind": "drop", "link": [0, 1], "nth": n} for n in (1, 2)]
    with open_runtime("sim", "atlas800t-a2", faults=drops, announce=False) as rt:
        run = sweep_processes(
            rt, pairs=[(0, 1)], sizes="16KiB,64KiB", in_process=False, verify=verify, **QUICK
        )
    got = _ipc(run)
    if not verify:
        assert set(got.values()) == {None} and run.samples.error_kind.isna().all()
        return
    assert got == {
        (0, 1, "dst", 16384): False,
        (0, 1, "dst", 65536): True,
        (0, 1, "src", 16384): False,
        (0, 1, "src", 65536): True,
    }
