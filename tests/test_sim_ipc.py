"""IPC memory across processes on the simulator (issue 23): pyACL's documented two-process
flow runs unchanged, each misuse returns its code, sweep --processes matches in-process
bandwidth with verified bytes, and nothing stays exported after a kill or an interrupt.

Every test that starts processes stops them itself, with timeouts."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.measure.processes import sweep_processes
from ascend_p2p_lab.runtime import MissingCall, open_runtime
from ascend_p2p_lab.sim import shim_path, simulated_acl

ROOT = Path(__file__).resolve().parents[1]
FLOW = ROOT / "tests" / "data" / "ipc"
MIB = 1 << 20
P2P = 3
TIMEOUT_S = 60


def _script_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(shim_path()), str(ROOT)])
    env["ASCEND_P2P_LAB_PRESET"] = "atlas800t-a2"
    env.update(extra)
    return env


@pytest.mark.parametrize("flags", [[], ["--no-pid"]], ids=["whitelist", "no-pid-validation"])
def test_the_documented_two_process_flow_runs_unchanged(flags: list[str]) -> None:
    done = subprocess.run([sys.executable, str(FLOW / "exporter.py"), *flags],
                          env=_script_env(), capture_output=True, text=True,
                          timeout=TIMEOUT_S, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == "verified"


def test_an_unrelated_process_joins_through_the_environment_variable(tmp_path: Path) -> None:
    folder = str(tmp_path / "ipc")
    done = subprocess.run([sys.executable, str(FLOW / "exporter.py"), "--no-pid"],
                          env=_script_env(ASCEND_P2P_LAB_IPC_DIR=folder),
                          capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    assert done.returncode == 0 and "verified" in done.stdout
    assert (Path(folder) / "registry.sqlite").exists()  # the named folder was the one used


# ------------------------------------------------------------------------- misuse, in-process
class Pair:
    """An exporter on device 0 and an importer on device 1 (two simulators: one pid)."""

    def __init__(self, preset: str = "atlas800t-a2") -> None:
        self.a, self.b = simulated_acl(preset), simulated_acl(preset)
        for acl, dev in ((self.a, 0), (self.b, 1)):
            assert acl.init() == 0 and acl.rt.set_device(dev) == 0
        self.ptr, ret = self.a.rt.malloc(4 * MIB, P2P)
        assert ret == 0
        self.mine, ret = self.b.rt.malloc(4 * MIB, P2P)
        assert ret == 0

    def export(self, flags: int = 1) -> str:
        key, ret = self.a.rt.ipc_mem_get_export_key(self.ptr, 4 * MIB, 65, flags)
        assert ret == 0
        return key

    def finish(self) -> None:
        assert self.b.rt.free(self.mine) == 0 and self.b.rt.reset_device(1) == 0
        assert self.a.rt.free(self.ptr) == 0 and self.a.rt.reset_device(0) == 0
        assert self.a.finalize() == 0 and self.b.finalize() == 0


def test_import_reads_and_writes_the_exporters_bytes() -> None:
    p = Pair()
    data = bytes(range(256)) * (4 * MIB // 256)
    assert p.a.rt.memcpy(p.ptr, 4 * MIB, p.a.util.bytes_to_ptr(data), 4 * MIB, 1) == 0
    key = p.export()
    peer, ret = p.b.rt.ipc_mem_import_by_key(key, 1)
    assert ret == 0 and peer  # the importer's own address for the same memory
    stream, _ = p.b.rt.create_stream()
    assert p.b.rt.memcpy_async(p.mine, 4 * MIB, peer, 4 * MIB, 3, stream) == 0
    assert p.b.rt.synchronize_stream(stream) == 0
    back = bytearray(4 * MIB)
    assert p.b.rt.memcpy(p.b.util.bytes_to_ptr(back), 4 * MIB, p.mine, 4 * MIB, 2) == 0
    assert bytes(back) == data
    # a write through the import lands in the exporter's buffer
    assert p.b.rt.memset(peer, 4 * MIB, 0xAB, 4096) == 0
    got = bytearray(4096)
    assert p.a.rt.memcpy(p.a.util.bytes_to_ptr(got), 4096, p.ptr, 4096, 2) == 0
    assert bytes(got) == b"\xab" * 4096
    assert p.b.rt.ipc_mem_close(key) == 0 and p.a.rt.ipc_mem_close(key) == 0
    assert p.b.rt.destroy_stream(stream) == 0
    p.finish()


def test_import_without_being_whitelisted_returns_507899() -> None:
    p = Pair()
    key = p.export(flags=0)
    assert p.a.rt.ipc_mem_set_import_pid(key, [os.getppid()]) == 0  # someone else
    assert p.b.rt.ipc_mem_import_by_key(key, 1) == (0, C.ACL_ERROR_RT_DRV_INTERNAL_ERROR)
    assert p.a.rt.ipc_mem_set_import_pid(key, [os.getpid()]) == 0
    ptr, ret = p.b.rt.ipc_mem_import_by_key(key, 1)
    assert ret == 0 and ptr
    assert p.b.rt.ipc_mem_close(key) == 0 and p.a.rt.ipc_mem_close(key) == 0
    p.finish()


def test_the_container_trap_returns_507899(monkeypatch: pytest.MonkeyPatch) -> None:
    p = Pair()
    key = p.export(flags=1)
    monkeypatch.setenv("ASCEND_P2P_LAB_SIM_PID_HOST", "0")
    assert p.b.rt.ipc_mem_import_by_key(key, 1)[1] == 507899
    assert p.a.rt.ipc_mem_close(key) == 0
    p.finish()


def test_the_exporter_closing_before_its_importer_returns_507022() -> None:
    p = Pair()
    key = p.export()
    assert p.b.rt.ipc_mem_import_by_key(key, 1)[1] == 0
    assert p.a.rt.ipc_mem_close(key) == C.ACL_ERROR_RT_IPC_ERROR == 507022
    assert p.b.rt.ipc_mem_close(key) == 0
    assert p.a.rt.ipc_mem_close(key) == 0
    assert p.b.rt.ipc_mem_import_by_key(key, 1)[1] == 107000  # closed: no new imports
    p.finish()


def test_an_unaligned_address_returns_107008() -> None:
    p = Pair()
    assert p.a.rt.ipc_mem_get_export_key(p.ptr + 4096, MIB, 65, 1) == ("", 107008)
    small, _ = p.a.rt.malloc(64 * 1024, 2)  # normal pages: 4 KiB is a page boundary
    key, ret = p.a.rt.ipc_mem_get_export_key(small + 4096, 4096, 65, 1)
    assert ret == 0
    assert p.a.rt.ipc_mem_get_export_key(small + 64, 4096, 65, 1) == ("", 107008)
    assert p.a.rt.ipc_mem_close(key) == 0 and p.a.rt.free(small) == 0
    p.finish()


def test_host_copies_and_inferred_directions_through_an_import_return_207000() -> None:
    p = Pair()
    key = p.export()
    peer, _ = p.b.rt.ipc_mem_import_by_key(key, 1)
    host = bytearray(4096)
    hp = p.b.util.bytes_to_ptr(host)
    assert p.b.rt.memcpy(hp, 4096, peer, 4096, 2) == 207000  # device to host
    assert p.b.rt.memcpy(peer, 4096, hp, 4096, 1) == 207000  # host to device
    assert p.b.rt.memcpy(p.mine, 4096, peer, 4096, 4) == 207000  # ACL_MEMCPY_DEFAULT
    assert p.b.rt.memcpy(p.mine, 4096, peer, 4096, 3) == 0  # explicit device to device
    stream, _ = p.b.rt.create_stream()  # asynchronous host copies are refused too
    assert p.b.rt.memcpy_async(hp, 4096, peer, 4096, 2, stream) == 207000
    assert p.b.rt.memcpy_async(peer, 4096, hp, 4096, 1, stream) == 207000
    assert p.b.rt.memcpy_async(p.mine, 4096, peer, 4096, 4, stream) == 207000
    assert p.b.rt.destroy_stream(stream) == 0
    assert p.b.rt.ipc_mem_close(key) == 0 and p.a.rt.ipc_mem_close(key) == 0
    p.finish()


def test_a_synchronous_copy_within_one_device_through_an_import_returns_207000() -> None:
    p = Pair()
    key = p.export()
    peer, _ = p.b.rt.ipc_mem_import_by_key(key, 1)
    assert p.b.rt.set_device(0) == 0  # the importer also uses the exporter's device
    local, _ = p.b.rt.malloc(4096, 2)
    assert p.b.rt.memcpy(local, 4096, peer, 4096, 3) == 207000
    stream, _ = p.b.rt.create_stream()
    assert p.b.rt.memcpy_async(local, 4096, peer, 4096, 3, stream) == 0  # async: allowed
    assert p.b.rt.synchronize_stream(stream) == 0 and p.b.rt.destroy_stream(stream) == 0
    assert p.b.rt.free(local) == 0 and p.b.rt.reset_device(0) == 0
    assert p.b.rt.set_device(1) == 0 and p.b.rt.reset_device(1) == 0
    assert p.b.rt.ipc_mem_close(key) == 0 and p.a.rt.ipc_mem_close(key) == 0
    p.finish()


def test_pyacl_argument_checks() -> None:
    acl = simulated_acl("atlas800t-a2")
    with pytest.raises(ValueError, match="less than 1024"):
        acl.rt.ipc_mem_get_export_key(1, 4096, 1024, 0)
    with pytest.raises(ValueError, match="list"):
        acl.rt.ipc_mem_set_import_pid("k", (1,))
    with pytest.raises(TypeError):
        acl.rt.ipc_mem_import_by_key(5, 0)
    with pytest.raises(TypeError):
        acl.rt.ipc_mem_get_export_key(1, 4096, 65, 1.0)


def test_the_runtime_layer_feature_detects_and_releases_in_order() -> None:
    with open_runtime("sim", "atlas800t-a2", api_level="old") as rt:
        assert rt.lacks(["ipc_memory"])
        with pytest.raises(MissingCall):
            rt.bare_pid()
    with open_runtime("sim", "atlas800t-a2") as exporter, \
            open_runtime("sim", "atlas800t-a2") as importer:
        assert not exporter.lacks(["ipc_memory"])
        buf = exporter.device_buffer(0, MIB)
        exp = exporter.export_buffer(buf)
        exp.allow([importer.bare_pid()])
        importer.import_key(exp.key, on=1, device=0, size=MIB)
        # no explicit close anywhere: each runtime's close releases in the guide's order
        # (the importer's close first, as the with statement closes it first)
    assert exporter.acl.simulator.ledger_is_empty()
    assert importer.acl.simulator.ledger_is_empty()


def test_freeing_an_exported_buffer_closes_its_key_first() -> None:
    with open_runtime("sim", "atlas800t-a2") as rt:
        buf = rt.device_buffer(0, MIB)
        exp = rt.export_buffer(buf, whitelist=False)
        buf.close()  # before the export: the runtime closes the key, then frees
        assert exp.closed and buf.closed
        assert rt.acl.simulator.ledger()["implicit_releases"] == []


def test_sweep_processes_refuses_what_it_does_not_measure() -> None:
    with open_runtime("sim", "atlas800t-a2") as rt:
        for bad in ({"direction": "bi"}, {"peer": "off"}, {"patterns": "local"}):
            with pytest.raises(ValueError, match="measures"):
                sweep_processes(rt, pairs=[(0, 1)], sizes="1MiB", **bad)


# ------------------------------------------------------------------------- sweep --processes
def test_sweep_processes_matches_in_process_within_5_percent() -> None:
    with open_runtime("sim", "atlas800t-a2") as rt:
        run = sweep_processes(rt, pairs=[(0, 1), (1, 0), (2, 5)], sizes="1MiB,16MiB",
                              samples=3)
        assert rt.acl.simulator.shared_ledger() == {"exports": 0, "imports": 0}
    assert run.attrs["run"]["workers_clean"] == {"0": True, "1": True, "2": True, "5": True}
    assert run.verified.notna().all() and run.verified.all() and run.error_kind.isna().all()
    med = run.groupby(["process_mode", "initiator", "src", "dst", "size_bytes"]
                      ).bandwidth_GBps.median().unstack("process_mode")
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
        run = sweep_processes(rt, pairs=[(0, 2), (0, 1), (1, 0)], sizes="1MiB", samples=2,
                              in_process=False, on_point=kill_device_2)
        assert rt.acl.simulator.shared_ledger() == {"exports": 0, "imports": 0}
    lost = run[run.error_kind == "worker_lost"]
    assert set(zip(lost.src, lost.dst)) == {(0, 2)}
    good = run[run.error_kind.isna()]
    assert set(zip(good.src, good.dst)) >= {(0, 1), (1, 0)} and good.verified.all()
    clean = run.attrs["run"]["workers_clean"]
    assert clean["0"] and clean["1"] and clean["2"] is None


def test_an_interrupted_parent_keeps_its_rows_and_releases_everything() -> None:
    calls: list[int] = []

    def interrupt(procs: dict) -> None:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt

    with open_runtime("sim", "atlas800t-a2") as rt:
        run = sweep_processes(rt, pairs=[(0, 1), (1, 0)], sizes="1MiB", samples=2,
                              in_process=False, on_point=interrupt)
        assert rt.acl.simulator.shared_ledger() == {"exports": 0, "imports": 0}
    assert run.attrs["run"]["interrupted"] is True
    assert len(run) == 2 * 2 and run.verified.all()  # (0,1) pulled and pushed, kept
    assert all(run.attrs["run"]["workers_clean"].values())


def test_ctrl_c_while_a_worker_measures_releases_everything() -> None:
    import threading

    timers: list[threading.Timer] = []

    def sigint_soon(procs: dict) -> None:  # lands while the parent waits for a point
        if not timers:
            timers.append(threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)))
            timers[0].start()

    with open_runtime("sim", "atlas800t-a2") as rt:
        run = sweep_processes(rt, pairs=[(0, 1), (1, 0), (0, 2), (2, 0)], sizes="1MiB,64MiB",
                              samples=5, in_process=False, on_point=sigint_soon)
        timers[0].join(TIMEOUT_S)
        assert rt.acl.simulator.shared_ledger() == {"exports": 0, "imports": 0}
    assert run.attrs["run"]["interrupted"] is True
    assert 0 < len(run) < 4 * 2 * 2 * 5 and run.verified.all()
    assert all(run.attrs["run"]["workers_clean"].values())


def test_a_dead_processs_folder_is_collected_but_not_one_in_use(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    from ascend_p2p_lab.sim import ipcstate

    monkeypatch.setattr(ipcstate, "_base_dir", lambda: str(tmp_path))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, timeout=TIMEOUT_S).stdout.strip()
    stale = tmp_path / f"ascend_p2p_lab_ipc_{dead}_aa"
    busy = tmp_path / f"ascend_p2p_lab_ipc_{dead}_bb"
    for folder, holder in ((stale, int(dead)), (busy, os.getpid())):
        reg = ipcstate.Registry(str(folder))
        reg.add_export("k", pid=holder, device=0, size=1, path="buf", offset=0, flags=1)
        (folder / "buf").write_bytes(b"x")
        reg.close()
        for p in (folder, *folder.iterdir()):
            os.utime(p, (0, 0))
    assert ipcstate.collect_stale() == [str(stale)]
    assert not stale.exists() and busy.exists()  # a live process still exports from busy
    assert ipcstate.collect_stale(min_age_s=1e12) == []


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
        run = sweep_processes(rt, pairs=[(0, 1), (1, 0)], sizes="1MiB", samples=2,
                              in_process=False)
        assert rt.acl.simulator.shared_ledger() == {"exports": 0, "imports": 0}
    bad = run[run.error_kind.notna()]
    assert set(zip(bad.src, bad.dst, bad.initiator)) == {(0, 1, "dst")}
    assert set(bad.error_code) == {507899} and set(bad.error_kind) == {"runtime"}
    good = run[run.error_kind.isna()]
    assert len(good) == 3 * 2 and good.verified.all()
    assert all(run.attrs["run"]["workers_clean"].values())


def test_a_repeated_copy_sees_the_other_processs_new_bytes() -> None:
    p = Pair()
    key = p.export()
    peer, _ = p.b.rt.ipc_mem_import_by_key(key, 1)
    stream, _ = p.b.rt.create_stream()
    back = bytearray(4096)
    for value in (0x11, 0x11, 0x22):  # the repeat may be skipped; a new write may not
        assert p.a.rt.memset(p.ptr, 4 * MIB, value, 4 * MIB) == 0  # the exporter writes
        for _ in range(2):
            assert p.b.rt.memcpy_async(p.mine, 4 * MIB, peer, 4 * MIB, 3, stream) == 0
        assert p.b.rt.synchronize_stream(stream) == 0
        assert p.b.rt.memcpy(p.b.util.bytes_to_ptr(back), 4096, p.mine, 4096, 2) == 0
        assert bytes(back) == bytes([value]) * 4096
    route, _ = p.b._router.resolve(p.mine, 4 * MIB, peer, 4 * MIB, 3, 1)
    assert route.memo_able  # repeats are cheap, as in one process
    assert p.b.rt.destroy_stream(stream) == 0
    assert p.b.rt.ipc_mem_close(key) == 0 and p.a.rt.ipc_mem_close(key) == 0
    p.finish()


def test_import_flag_0_needs_peer_access_as_in_one_process() -> None:
    p = Pair()
    key = p.export()
    peer, ret = p.b.rt.ipc_mem_import_by_key(key, 0)  # peer access left to the importer
    assert ret == 0
    stream, _ = p.b.rt.create_stream()
    # the A2 preset refuses a copy between devices without peer access (inferred: 507899)
    assert p.b.rt.memcpy_async(p.mine, 4096, peer, 4096, 3, stream) == 507899
    assert p.b.rt.device_enable_peer_access(0, 0) == 0  # 1 -> 0 from the current device
    assert p.b.rt.set_device(0) == 0 and p.b.rt.device_enable_peer_access(1, 0) == 0
    assert p.b.rt.set_device(1) == 0  # both directions on: the A2 driver programs the link
    assert p.b.rt.memcpy_async(p.mine, 4096, peer, 4096, 3, stream) == 0
    assert p.b.rt.synchronize_stream(stream) == 0 and p.b.rt.destroy_stream(stream) == 0
    assert p.b.rt.device_disable_peer_access(0) == 0
    assert p.b.rt.set_device(0) == 0 and p.b.rt.device_disable_peer_access(1) == 0
    assert p.b.rt.reset_device(0) == 0 and p.b.rt.reset_device(0) == 0
    assert p.b.rt.reset_device(1) == 0  # the second set_device(1)
    assert p.b.rt.ipc_mem_close(key) == 0 and p.a.rt.ipc_mem_close(key) == 0
    p.finish()


def test_a_worker_that_cannot_start_costs_only_its_pairs(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    from ascend_p2p_lab.measure import ipcworker
    from ascend_p2p_lab.runtime import AclError

    hello = ipcworker.Worker.hello

    def no_pid(self):  # device 2's worker fails to start (forked workers see it)
        if self.device == 2:
            raise AclError("acl.rt.device_get_bare_tgid", (), 107000, "injected")
        return hello(self)

    monkeypatch.setattr(ipcworker.Worker, "hello", no_pid)
    with open_runtime("sim", "atlas800t-a2") as rt:
        run = sweep_processes(rt, pairs=[(0, 1), (0, 2)], sizes="1MiB", samples=2,
                              in_process=False)
        assert rt.acl.simulator.shared_ledger() == {"exports": 0, "imports": 0}
    lost = run[run.error_kind == "worker_lost"]
    assert set(zip(lost.src, lost.dst)) == {(0, 2)}
    assert lost.error.str.contains("could not start: acl.rt.device_get_bare_tgid").all()
    assert run[run.error_kind.isna()].verified.all()


def test_an_older_pyacl_gives_missing_call_rows_and_starts_no_worker() -> None:
    with open_runtime("sim", "atlas800t-a2", api_level="old") as rt:
        run = sweep_processes(rt, pairs=[(0, 1)], sizes="1MiB,2MiB", samples=2)
    ipc = run[run.process_mode == "ipc"]
    assert len(ipc) == 2 * 2 and set(ipc.error_kind) == {"missing_call"}
    assert set(ipc.error_call) == {"acl.rt.ipc_mem_get_export_key"}
    assert run.attrs["run"]["workers_clean"] == {}
    inside = run[run.process_mode == "in_process"]
    assert len(inside) == 2 * 2 * 2 and inside.verified.all()  # measured in one process
