"""IPC memory across processes on the simulator (sim/ipc.py, issue 23): pyACL's documented
two-process flow runs unchanged, a process joins through the environment variable, and
each misuse returns its code (in-process, two simulated processes).

Every test that starts processes stops them itself, with timeouts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import (
    MIB_2,
    TIMEOUT_S,
)

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.sim import (
    shim_path,
    simulated_acl,
)

ROOT = Path(__file__).resolve().parents[2]


FLOW = ROOT / "tests" / "data" / "ipc"


P2P_2 = 3


def _script_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(shim_path()), str(ROOT)])
    env["ASCEND_P2P_LAB_PRESET"] = "atlas800t-a2"
    env.update(extra)
    return env


@pytest.mark.parametrize("flags", [[], ["--no-pid"]], ids=["whitelist", "no-pid-validation"])
def test_the_documented_two_process_flow_runs_unchanged(flags: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, str(FLOW / "exporter.py"), *flags],
        env=_script_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == "verified"


def test_an_unrelated_process_joins_through_the_environment_variable(tmp_path: Path) -> None:
    folder = str(tmp_path / "ipc")
    done = subprocess.run(
        [sys.executable, str(FLOW / "exporter.py"), "--no-pid"],
        env=_script_env(ASCEND_P2P_LAB_IPC_DIR=folder),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0 and "verified" in done.stdout
    assert (Path(folder) / "registry.sqlite").exists()  # the named folder was the one used


# ------------------------------------------------------------------------- misuse, in-process
class Pair:
    """An exporter on device 0 and an importer on device 1 (two simulators: one pid)."""

    def __init__(self, preset: str = "atlas800t-a2") -> None:
        self.a, self.b = simulated_acl(preset), simulated_acl(preset)
        for acl, dev in ((self.a, 0), (self.b, 1)):
            assert acl.init() == 0 and acl.rt.set_device(dev) == 0
        self.ptr, ret = self.a.rt.malloc(4 * MIB_2, P2P_2)
        assert ret == 0
        self.mine, ret = self.b.rt.malloc(4 * MIB_2, P2P_2)
        assert ret == 0

    def export(self, flags: int = 1) -> str:
        key, ret = self.a.rt.ipc_mem_get_export_key(self.ptr, 4 * MIB_2, 65, flags)
        assert ret == 0
        return key

    def finish(self) -> None:
        assert self.b.rt.free(self.mine) == 0 and self.b.rt.reset_device(1) == 0
        assert self.a.rt.free(self.ptr) == 0 and self.a.rt.reset_device(0) == 0
        assert self.a.finalize() == 0 and self.b.finalize() == 0


def test_import_reads_and_writes_the_exporters_bytes() -> None:
    p = Pair()
    data = bytes(range(256)) * (4 * MIB_2 // 256)
    assert p.a.rt.memcpy(p.ptr, 4 * MIB_2, p.a.util.bytes_to_ptr(data), 4 * MIB_2, 1) == 0
    key = p.export()
    peer, ret = p.b.rt.ipc_mem_import_by_key(key, 1)
    assert ret == 0 and peer  # the importer's own address for the same memory
    stream, _ = p.b.rt.create_stream()
    assert p.b.rt.memcpy_async(p.mine, 4 * MIB_2, peer, 4 * MIB_2, 3, stream) == 0
    assert p.b.rt.synchronize_stream(stream) == 0
    back = bytearray(4 * MIB_2)
    assert p.b.rt.memcpy(p.b.util.bytes_to_ptr(back), 4 * MIB_2, p.mine, 4 * MIB_2, 2) == 0
    assert bytes(back) == data
    # a write through the import lands in the exporter's buffer
    assert p.b.rt.memset(peer, 4 * MIB_2, 0xAB, 4096) == 0
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
    assert p.a.rt.ipc_mem_get_export_key(p.ptr + 4096, MIB_2, 65, 1) == ("", 107008)
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


def test_a_repeated_copy_sees_the_other_processs_new_bytes() -> None:
    p = Pair()
    key = p.export()
    peer, _ = p.b.rt.ipc_mem_import_by_key(key, 1)
    stream, _ = p.b.rt.create_stream()
    back = bytearray(4096)
    for value in (0x11, 0x11, 0x22):  # the repeat may be skipped; a new write may not
        assert p.a.rt.memset(p.ptr, 4 * MIB_2, value, 4 * MIB_2) == 0  # the exporter writes
        for _ in range(2):
            assert p.b.rt.memcpy_async(p.mine, 4 * MIB_2, peer, 4 * MIB_2, 3, stream) == 0
        assert p.b.rt.synchronize_stream(stream) == 0
        assert p.b.rt.memcpy(p.b.util.bytes_to_ptr(back), 4096, p.mine, 4096, 2) == 0
        assert bytes(back) == bytes([value]) * 4096
    route, _ = p.b._router.resolve(p.mine, 4 * MIB_2, peer, 4 * MIB_2, 3, 1)
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
