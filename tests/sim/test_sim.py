"""The simulator package (sim/__init__.py): the shim runs CANN's official P2P sample as a
real process, the teardown after a test leaves the ledger empty, results come before a
failed aclFinalize, a missing call exits 1, and the sim modules stay small.

The tests of each part of the simulator are in the file named after it
(tests/sim/test_devices.py for sim/devices.py, ...); the shared pyACL helpers in
tests/simacl.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import (
    CLI_QUICK,
    run_cli,
    too_long,
    topology_with,
)
from simacl import (
    MIB,
    P2P,
    devices,
    finish,
    new_acl,
    ok,
)

import ascend_p2p_lab.sim as sim_pkg
from ascend_p2p_lab.run import Run
from ascend_p2p_lab.runtime import ENV_BACKEND, ENV_PRESET, ENV_SEED
from ascend_p2p_lab.sim import (
    drain_tracked,
    shim_path,
)


def test_clean_teardown_leaves_the_ledger_empty() -> None:
    acl = new_acl()
    with devices(acl, 0, 1, peer=True):
        ptr = ok(acl.rt.malloc(MIB, P2P))
        stream = ok(acl.rt.create_stream())
        assert not acl.simulator.ledger_is_empty()
        ok(acl.rt.destroy_stream(stream))
        ok(acl.rt.free(ptr))
    finish(acl)


P2P_SAMPLE = """
import acl

ACL_MEM_MALLOC_HUGE_FIRST_P2P = 3
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3
SIZE = 10

print("simulated", getattr(acl, "__simulated__", False))
print("init", acl.init())
count, ret = acl.rt.get_device_count()
print("count", count, ret)
print("soc", acl.get_soc_name())
can, ret = acl.rt.device_can_access_peer(0, 1)
print("can", can, ret)
if can == 1:
    print("set0", acl.rt.set_device(0))
    print("enable0->1", acl.rt.device_enable_peer_access(1, 0))
    dev0, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P)
    print("malloc0", ret)
    print("memset0", acl.rt.memset(dev0, SIZE, 7, SIZE))
    print("set1", acl.rt.set_device(1))
    print("enable1->0", acl.rt.device_enable_peer_access(0, 0))
    dev1, ret = acl.rt.malloc(SIZE, ACL_MEM_MALLOC_HUGE_FIRST_P2P)
    print("malloc1", ret)
    print("memcpy", acl.rt.memcpy(dev1, SIZE, dev0, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE))
    host, ret = acl.rt.malloc_host(SIZE)
    print("d2h", acl.rt.memcpy(host, SIZE, dev1, SIZE, ACL_MEMCPY_DEVICE_TO_HOST))
    print("data", acl.util.ptr_to_bytes(host, SIZE).hex())
    print("sync", acl.rt.synchronize_device())
    print("disable1->0", acl.rt.device_disable_peer_access(0))
    print("free_host", acl.rt.free_host(host))
    print("free1", acl.rt.free(dev1))
    print("reset1", acl.rt.reset_device_force(1))
    print("set0", acl.rt.set_device(0))
    print("disable0->1", acl.rt.device_disable_peer_access(1))
    print("free0", acl.rt.free(dev0))
    print("reset0", acl.rt.reset_device_force(0))
    print("P2P copy success")
else:
    print("current device doesn't support p2p feature")
print("finalize", acl.finalize())
print("ledger_empty", acl.simulator.ledger_is_empty())
"""


def test_the_shim_runs_the_official_p2p_sample(tmp_path: Any) -> None:
    script = tmp_path / "p2p_sample.py"
    script.write_text(P2P_SAMPLE)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASCEND_P2P_LAB_")}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(shim_path()), os.environ.get("PYTHONPATH", "")) if p
    )
    env["ASCEND_P2P_LAB_PRESET"] = "atlas800t-a3"
    proc = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if " " in line)
    assert lines["simulated"] == "True"
    assert lines["count"] == "16 0"  # atlas800t-a3: 16 dies
    assert lines["soc"] == "Ascend910_9382"
    assert lines["can"] == "1 0"
    for key in (
        "init",
        "set0",
        "enable0->1",
        "malloc0",
        "memset0",
        "set1",
        "enable1->0",
        "malloc1",
        "memcpy",
        "d2h",
        "sync",
        "disable1->0",
        "free_host",
        "free1",
        "reset1",
        "disable0->1",
        "free0",
        "reset0",
        "finalize",
    ):
        assert lines[key] == "0", (key, proc.stdout)
    assert lines["data"] == "07" * 10
    assert "P2P copy success" in proc.stdout
    assert lines["ledger_empty"] == "True"


# ------------------------------------------------------------------------------------ helpers
@pytest.fixture(autouse=True)
def _no_backend_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start every test without the backend variables (the root conftest sets some)."""
    for name in (ENV_BACKEND, ENV_PRESET, ENV_SEED):
        monkeypatch.delenv(name, raising=False)


# ------------------------------------------------------------------ size
SIM = Path(sim_pkg.__file__).parent


MODULES = sorted(SIM.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(SIM)) for p in MODULES])
def test_sim_modules_and_functions_stay_small(path: Path) -> None:
    """No sim module or function over the size limits (helpers.too_long; the formats
    table is data)."""
    assert not too_long(path.read_text())


def test_the_command_line_reports_a_missing_call_with_exit_1(capsys, monkeypatch) -> None:
    import ascend_p2p_lab.sim as sim

    made = sim.simulated_acl

    def old_pyacl(*args: Any, **kwargs: Any) -> Any:
        acl = made(*args, **kwargs)
        delattr(acl.rt, "stream_wait_event")
        return acl

    monkeypatch.setattr(sim, "simulated_acl", old_pyacl)
    code, out, err = run_cli(
        capsys, "sweep", "--backend", "sim", "--patterns", "all_to_one", *CLI_QUICK
    )
    assert code == 1 and "missing_call" in out and "Traceback" not in err
    code, out, err = run_cli(
        capsys, "sweep", "--backend", "sim", "--pairs", "0-1", "--peer", "off", *CLI_QUICK
    )
    assert code == 0 and "legs do not overlap" in out, out


# ----------------------------------------------------------------------- teardown
@pytest.mark.keeps_ledger  # aclFinalize fails for good: the simulated session stays initialized
def test_results_come_before_a_failed_finalize(capsys, tmp_path) -> None:
    topo = topology_with(tmp_path, 'kind = "error"\ncall = "finalize"')
    code, out, err = run_cli(capsys, "probe", "--backend", "sim", "--topology", topo)
    assert code == 1 and "aclrtDeviceCanAccessPeer (row -> column)" in out
    assert err.strip().startswith(
        "ascend-p2p-lab: teardown failed after the results above: acl.finalize() returned 507899"
    )
    code, out, err = run_cli(
        capsys,
        "sweep",
        "--backend",
        "sim",
        "--topology",
        topo,
        "--pairs",
        "0-1",
        *CLI_QUICK,
        "--out",
        str(tmp_path / "r"),
    )
    assert code == 1 and "saved to" in out and "teardown failed" in err
    assert Run.load(tmp_path / "r").frame().error_kind.isna().all()
    for sim in drain_tracked():  # everything but the session itself was released
        ledger = sim.simulator.ledger()
        assert ledger["initialized"] and not ledger["devices_set"]
        assert not (ledger["device_buffers"] or ledger["streams"] or ledger["peer_refs"])
