"""The runtime surface real pyACL clients use (issue 29): contexts (sim/contexts.py), the
run mode, memset_async, acl.app_log (sim/applog.py), acl.media's DVPP memory, bytes_to_ptr
into a bytes object, and the one-line message for a call the simulator lacks.

Each test renders, in our own code, a pattern of Ascend/samples' memory-management samples
or of AclLite (python/common/acllite), and checks the codes the runtime's source gives.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from helpers import KIB

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.sim import shim_path, simulated_acl
from ascend_p2p_lab.sim.contexts import EXPLICIT_BASE
from ascend_p2p_lab.sim.devices import CONTEXT_BASE
from ascend_p2p_lab.sim.facade import NotSimulated

ROOT = Path(__file__).resolve().parents[2]
H2D, D2H, D2D = 1, 2, 3


def ok(out):
    ret = out[-1] if isinstance(out, tuple) else out
    assert ret == 0, out
    return (out[0] if len(out) == 2 else out[:-1]) if isinstance(out, tuple) else None


def started(preset: str = "atlas800t-a2"):
    acl = simulated_acl(preset)
    ok(acl.init())
    return acl


# ------------------------------------------------------------------------- contexts
def test_set_device_makes_the_default_context_and_create_context_an_explicit_current_one():
    acl = started()
    ok(acl.rt.set_device(0))
    assert acl.rt.get_context() == (CONTEXT_BASE, 0)  # implicit: the default context
    ctx = ok(acl.rt.create_context(1))
    assert ctx >= EXPLICIT_BASE and acl.rt.get_context() == (ctx, 0)  # current at once
    assert acl.rt.get_device() == (1, 0)  # its device is the current device
    ptr = ok(acl.rt.malloc(4 * KIB, 0))
    assert ptr >> 40 == (0x1000_0000_0000 >> 40) + 1  # device 1's memory
    ok(acl.rt.set_context(CONTEXT_BASE))  # back to device 0 (switching the device too)
    assert acl.rt.get_device() == (0, 0)
    ok(acl.rt.set_context(ctx))
    ok(acl.rt.free(ptr))
    ok(acl.rt.destroy_context(ctx))  # the thread falls back to device 0's default context
    assert acl.rt.get_context() == (CONTEXT_BASE, 0) and acl.rt.get_device() == (0, 0)
    ok(acl.rt.reset_device(0))
    ok(acl.finalize())
    assert acl.simulator.ledger_is_empty()


def test_context_misuse_returns_the_runtimes_codes():
    acl = started()
    ok(acl.rt.set_device(0))
    assert acl.rt.create_context(8)[1] == C.ACL_ERROR_RT_INVALID_DEVICEID  # RT_ERROR_DEVICE_ID
    assert acl.rt.create_context(-1)[1] == C.ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.destroy_context(0) == C.ACL_ERROR_INVALID_PARAM  # the ACL null check
    assert acl.rt.set_context(0) == C.ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_context(CONTEXT_BASE) == C.ACL_ERROR_RT_CONTEXT_NULL  # a default one
    assert "default context" in acl.get_recent_err_msg()
    ctx = ok(acl.rt.create_context(0))
    ok(acl.rt.destroy_context(ctx))
    assert acl.rt.destroy_context(ctx) == C.ACL_ERROR_RT_CONTEXT_NULL  # already destroyed
    assert acl.rt.set_context(ctx) == C.ACL_ERROR_RT_PARAM_INVALID  # not a valid context
    ok(acl.rt.reset_device(0))
    ok(acl.finalize())
    assert acl.simulator.ledger_is_empty()


@pytest.mark.keeps_ledger  # the destroyed context's stream is an implicit release
def test_a_stream_belongs_to_its_context():
    acl = started()
    ok(acl.rt.set_device(0))
    s_default = ok(acl.rt.create_stream())
    ctx = ok(acl.rt.create_context(0))  # the same device, another context
    s_ctx = ok(acl.rt.create_stream())
    a = ok(acl.rt.malloc(4 * KIB, 0))
    b = ok(acl.rt.malloc(4 * KIB, 0))
    ok(acl.rt.memcpy_async(b, 4 * KIB, a, 4 * KIB, D2D, s_ctx))
    ok(acl.rt.memcpy_async(b, 4 * KIB, a, 4 * KIB, D2D, 0))  # the context's default stream
    assert (
        acl.rt.memcpy_async(b, 4 * KIB, a, 4 * KIB, D2D, s_default) == C.ACL_ERROR_RT_STREAM_CONTEXT
    )  # made in the default context, not the current one
    assert "belongs to context" in acl.get_recent_err_msg()
    ok(acl.rt.synchronize_stream(s_ctx))
    ok(acl.rt.set_context(CONTEXT_BASE))
    assert acl.rt.memcpy_async(b, 4 * KIB, a, 4 * KIB, D2D, s_ctx) == C.ACL_ERROR_RT_STREAM_CONTEXT
    ok(acl.rt.memcpy_async(b, 4 * KIB, a, 4 * KIB, D2D, s_default))
    ok(acl.rt.synchronize_stream(s_default))
    ok(acl.rt.destroy_stream(s_default))
    for p in (a, b):
        ok(acl.rt.free(p))
    ok(acl.rt.destroy_context(ctx))  # its stream goes with it
    assert acl.simulator.ledger()["streams"] == 0
    assert any(
        f"stream {s_ctx} destroyed by aclrtDestroyContext" in r
        for r in acl.simulator.implicit_releases
    )
    ok(acl.rt.reset_device(0))
    ok(acl.finalize())


@pytest.mark.keeps_ledger  # finalize's releases are the point
def test_an_explicit_context_holds_its_device_and_finalize_releases_it():
    acl = started()
    ctx = ok(acl.rt.create_context(2))  # no aclrtSetDevice: the context opens device 2
    ptr = ok(acl.rt.malloc(4 * KIB, 0))
    assert acl.rt.get_device() == (2, 0)
    ok(acl.rt.set_device(2))
    ok(acl.rt.reset_device(2))  # the set reference goes; the context still holds it
    ok(acl.rt.set_context(ctx))
    ok(acl.rt.memset(ptr, 4 * KIB, 1, 4 * KIB))  # the buffer is still there
    ok(acl.finalize())
    led = acl.simulator.ledger()
    assert led["contexts"] == 0 and led["device_buffers"] == 0
    assert any(f"context {ctx:#x} destroyed by aclFinalize" in r for r in led["implicit_releases"])


def test_each_thread_has_its_own_current_context():
    acl = started()
    ok(acl.rt.set_device(0))
    ctx = ok(acl.rt.create_context(1))
    seen: list = []
    thread = threading.Thread(
        target=lambda: (
            seen.append(acl.rt.get_context()),
            seen.append(acl.rt.set_context(ctx)),
            seen.append(acl.rt.get_device()),
        )
    )
    thread.start()
    thread.join(10)
    assert seen == [(0, C.ACL_ERROR_RT_CONTEXT_NULL), 0, (1, 0)]  # shared once it is set
    assert acl.rt.get_context() == (ctx, 0)
    ok(acl.rt.destroy_context(ctx))
    ok(acl.rt.reset_device(0))
    ok(acl.finalize())
    assert acl.simulator.ledger_is_empty()


# ------------------------------------------------------------------------- run mode, memset
def test_the_run_mode_is_the_hosts():
    acl = simulated_acl("atlas800t-a3")
    assert acl.rt.get_run_mode() == (C.ACL_HOST, 0)  # AclLite's copies then go H2D / D2H


def test_memset_async_sets_the_bytes_on_the_stream_in_the_runtimes_order():
    acl = started()
    ok(acl.rt.set_device(0))
    stream = ok(acl.rt.create_stream())
    host = ok(acl.rt.malloc_host(4 * KIB))
    assert acl.rt.memset_async(0, 0, 7, 0, stream) == 0  # count 0: done before any check
    assert acl.rt.memset_async(0, 16, 7, 16, stream) == C.ACL_ERROR_INVALID_PARAM  # null
    assert acl.rt.memset_async(host, 8, 7, 16, stream) == C.ACL_ERROR_RT_PARAM_INVALID
    assert (
        acl.rt.memset_async(host, 4 * KIB, 7, 4 * KIB, stream + 99) == C.ACL_ERROR_RT_PARAM_INVALID
    )  # no such stream
    t0 = acl.simulator.host_time_us
    ok(acl.rt.memset_async(host, 4 * KIB, 7, 4 * KIB, stream))  # what the async sample does
    ok(acl.rt.synchronize_stream(stream))
    assert acl.simulator.host_time_us > t0
    assert acl.util.ptr_to_bytes(host, 4 * KIB) == b"\x07" * (4 * KIB)
    ok(acl.rt.free_host(host))
    ok(acl.rt.destroy_stream(stream))
    ok(acl.rt.reset_device(0))
    ok(acl.finalize())


def test_zero_counts_succeed_and_null_pointers_are_invalid_param_first():
    acl = simulated_acl("atlas800t-a2")
    assert acl.rt.memcpy(0, 0, 0, 0, D2D) == 0  # aclrtMemcpyImpl: count 0 before anything
    assert acl.rt.memset(0, 0, 0, 0) == 0
    assert acl.rt.memcpy_async(0, 0, 0, 0, D2D, 0) == 0
    ok(acl.init())
    ok(acl.rt.set_device(0))
    assert acl.rt.memset(0, 16, 0, 16) == C.ACL_ERROR_INVALID_PARAM
    assert acl.rt.memcpy_async(0, 16, 1, 16, D2D, 0) == C.ACL_ERROR_INVALID_PARAM
    ok(acl.rt.reset_device(0))
    ok(acl.finalize())


# ------------------------------------------------------------------------- bytes_to_ptr, DVPP
def test_a_device_to_host_copy_lands_in_the_bytes_object_as_in_acllite():
    """AclLite's copy_data_as_numpy: zeros -> bytes -> bytes_to_ptr -> D2H -> frombuffer."""
    acl = started()
    ok(acl.rt.set_device(0))
    data = np.arange(4 * KIB, dtype=np.uint16).tobytes()
    dev = ok(acl.rt.malloc(len(data), 2))
    ok(acl.rt.memcpy(dev, len(data), acl.util.bytes_to_ptr(data), len(data), H2D))
    bytes_data = np.zeros(len(data), dtype=np.byte).tobytes()
    ok(acl.rt.memcpy(acl.util.bytes_to_ptr(bytes_data), len(data), dev, len(data), D2H))
    back = np.frombuffer(bytes_data, dtype=np.uint16)
    assert back.tobytes() == data and back[-1] == 4 * KIB - 1
    one = b"\x01"  # CPython shares 1-byte bytes: refused rather than corrupted
    with pytest.raises(PermissionError):
        acl.rt.memcpy(acl.util.bytes_to_ptr(one), 1, dev, 1, D2H)
    assert one == b"\x01"
    ok(acl.rt.free(dev))
    ok(acl.rt.reset_device(0))
    ok(acl.finalize())


def test_dvpp_memory_comes_from_the_device_and_goes_back_with_dvpp_free():
    acl = started()
    ok(acl.rt.set_device(0))
    free0 = ok(acl.rt.get_mem_info(1))[0]
    buf = ok(acl.media.dvpp_malloc(1 << 20))
    assert ok(acl.rt.get_mem_info(1))[0] == free0 - (1 << 20)
    ok(acl.rt.memset(buf, 1 << 20, 3, 1 << 20))
    plain = ok(acl.rt.malloc(4 * KIB, 0))
    assert acl.media.dvpp_free(plain) == C.ACL_ERROR_RT_PARAM_INVALID  # not DVPP memory
    ok(acl.media.dvpp_free(buf))
    assert acl.media.dvpp_free(buf) == C.ACL_ERROR_RT_PARAM_INVALID
    ok(acl.rt.free(plain))
    ok(acl.rt.reset_device(0))
    ok(acl.finalize())
    assert acl.simulator.ledger_is_empty()


# ------------------------------------------------------------------------- app_log
def test_app_log_writes_cann_plog_lines_at_the_level_asked(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_PROCESS_LOG_PATH", str(tmp_path))
    monkeypatch.delenv("ASCEND_GLOBAL_LOG_LEVEL", raising=False)
    acl = simulated_acl("atlas800t-a2")
    assert acl.app_log(1, "info: below the default ERROR level") is None
    assert acl.simulator.app_log_path is None
    acl.app_log(3, "[acllite_utils.py:42 copy]Copy failed")
    monkeypatch.setenv("ASCEND_GLOBAL_LOG_LEVEL", "1")
    acl.app_log(1, "now kept")
    path = acl.simulator.app_log_path
    assert path.parent == tmp_path / "debug" / "plog" and path.name.startswith(
        f"plog-{os.getpid()}_"
    )
    lines = path.read_text().splitlines()
    assert len(lines) == 2 and lines[0].startswith(f"[ERROR] APP({os.getpid()},")
    assert lines[0].endswith("Copy failed") and lines[1].startswith("[INFO]")
    with pytest.raises(TypeError):
        acl.app_log("3", "the level is an int")  # WrapAclAppLog: "is"


def test_app_log_prints_when_asked_to(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("ASCEND_LOG_PRINT_TO_STDOUT", "1")
    monkeypatch.setenv("ASCEND_PROCESS_LOG_PATH", str(tmp_path))
    acl = simulated_acl("atlas800t-a2")
    acl.app_log(3, "to the terminal")
    assert "to the terminal" in capsys.readouterr().out and not list(tmp_path.iterdir())


# ------------------------------------------------------------------------- what is missing
def test_a_call_the_simulator_lacks_says_so_in_one_line():
    acl = simulated_acl("atlas800t-a2")
    for get in (
        lambda: acl.rt.memcpy2d,
        lambda: acl.mdl,
        lambda: acl.media.dvpp_vpc_resize,
        lambda: acl.util.ptr_to_numpy,
    ):
        with pytest.raises(NotSimulated) as info:
            get()
        text = str(info.value)
        assert "\n" not in text and "ascend_p2p_lab simulator" in text
        assert "simulator-calls.md" in text
    assert not hasattr(acl.rt, "memcpy2d")  # an AttributeError: feature checks still work
    old = simulated_acl("atlas800t-a2", api_level="old")
    with pytest.raises(NotSimulated, match="api_level='old'"):
        _ = old.rt.get_devices_topo


def test_the_shim_module_reports_missing_names_too():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(shim_path()), str(ROOT)]))
    code = "import acl\ntry:\n    acl.op.execute\nexcept AttributeError as e:\n    print(e)"
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.startswith("acl.op is not implemented by the ascend_p2p_lab simulator")


def test_the_documented_list_is_the_simulators():
    from ascend_p2p_lab.sim.formats import NAMESPACES

    doc = (ROOT / "docs" / "reference" / "simulator-calls.md").read_text()
    listed = {line.split("`")[1] for line in doc.splitlines() if line.startswith("| `acl.")}
    implemented = {
        f"acl.{space}.{name}" if space else f"acl.{name}"
        for space, calls in NAMESPACES.items()
        for name in calls
    }
    assert listed == implemented
