"""The runtime layer (ascend_p2p_lab.runtime) on the simulator, plus a hardware group.

The simulated tests pick the backend explicitly or steer ``import acl`` through
``sys.modules``, so they behave the same on a machine that has CANN. The hardware group
(``-m hardware``) runs the same acceptance checks on real pyACL and is skipped unless
``import acl`` is CANN's pyACL reporting at least two devices."""

from __future__ import annotations

import importlib
import importlib.util
import random
import threading
from typing import Any

import pytest

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.runtime import (
    ENV_BACKEND,
    ENV_PRESET,
    ENV_SEED,
    AclError,
    Runtime,
    open_runtime,
)

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30


# ------------------------------------------------------------------------------------ helpers
@pytest.fixture(autouse=True)
def _no_backend_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start every test without the backend variables (the root conftest sets some)."""
    for name in (ENV_BACKEND, ENV_PRESET, ENV_SEED):
        monkeypatch.delenv(name, raising=False)


# ---------------------------------------------------------------------- hardware group
def hardware_skip_reason() -> str | None:
    """Why the hardware tests cannot run here; None when ``import acl`` is CANN's pyACL
    with at least two devices."""
    try:
        acl = importlib.import_module("acl")
    except ImportError:
        return "pyACL (`import acl`) is not available"
    if getattr(acl, "__simulated__", False):
        return "`import acl` is the ascend_p2p_lab simulator, not CANN's pyACL"
    ret = acl.init()
    if ret not in (0, C.ACL_ERROR_REPEAT_INITIALIZE):
        return f"acl.init() returned {ret}"
    try:
        count, ret = acl.rt.get_device_count()
    finally:
        if ret == 0:
            acl.finalize()
    if ret != 0 or count < 2:
        return f"pyACL reports {count} device(s) (ret {ret}); the hardware tests need 2"
    return None


HARDWARE_SKIP_REASON = hardware_skip_reason()


requires_hardware = pytest.mark.skipif(
    HARDWARE_SKIP_REASON is not None, reason=HARDWARE_SKIP_REASON or ""
)


@pytest.fixture
def hw() -> Any:
    with open_runtime("acl") as rt:
        yield rt


@pytest.mark.hardware
@requires_hardware
def test_hw_backend_and_devices(hw: Runtime) -> None:
    assert hw.backend == "acl" and not hw.simulated
    assert hw.device_count >= 2
    assert isinstance(hw.soc_name, str) and hw.soc_name
    assert hw.ledger() is None
    free, total = hw.mem_info(0)
    assert 0 < free <= total


@pytest.mark.hardware
@requires_hardware
def test_hw_errors_carry_the_documented_codes(hw: Runtime) -> None:
    with pytest.raises(AclError) as info:
        hw.call("rt.set_device", 64)
    assert info.value.code == C.ACL_ERROR_RT_PARAM_INVALID
    with pytest.raises(AclError) as info:
        hw.call("rt.device_can_access_peer", 0, 0)
    assert info.value.code == C.ACL_ERROR_INVALID_PARAM
    hw.use(0)
    with pytest.raises(AclError) as info:
        hw.call("rt.device_enable_peer_access", 1, 1)
    assert info.value.code == C.ACL_ERROR_FEATURE_UNSUPPORTED
    box: dict[str, int] = {}
    t = threading.Thread(
        target=lambda: box.update(ret=hw.acl.rt.device_enable_peer_access(1, 0))
    )  # a thread with no device
    t.start()
    t.join(30)
    assert box["ret"] == C.ACL_ERROR_RT_CONTEXT_NULL


@pytest.mark.hardware
@requires_hardware
def test_hw_p2p_copy_round_trip_and_timing(hw: Runtime) -> None:
    if not (hw.can_access_peer(0, 1) and hw.can_access_peer(1, 0)):
        pytest.skip("devices 0 and 1 cannot access each other")
    n = 64 * MIB
    payload = random.Random(5).randbytes(n)
    with hw.peer_links([(0, 1), (1, 0)]):
        assert hw.peer_status(0, 1) in (None, 1)
        with (
            hw.device_buffer(0, n) as a,
            hw.device_buffer(1, n) as b,
            hw.stream(0) as s,
            hw.event(0) as e0,
            hw.event(0) as e1,
        ):
            hw.write(a, payload)
            hw.memcpy(b, a, n)
            assert hw.read(b) == payload
            e0.record(s)
            hw.memcpy_async(b, a, n, s)
            e1.record(s)
            s.synchronize()
            ms = hw.elapsed_ms(e0, e1)
            assert ms > 0 and n / (ms * 1e-3) / 1e9 > 1.0  # at least 1 GB/s
    assert hw.peer_refs() == {}


@pytest.mark.hardware
@requires_hardware
def test_hw_exception_releases_and_a_new_runtime_starts_clean() -> None:
    with pytest.raises(RuntimeError), open_runtime("acl") as rt:
        if rt.can_access_peer(0, 1) and rt.can_access_peer(1, 0):
            rt.peer_links([(0, 1), (1, 0)])
        rt.device_buffer(0, 64 * MIB)
        rt.stream(1)
        raise RuntimeError("stop")
    assert rt.closed and rt.open_resources() == [] and rt.peer_refs() == {}
    with open_runtime("acl") as again:
        assert again.device_count >= 2
        with again.device_buffer(0, MIB) as buf:
            again.write(buf, b"again")
            assert again.read(buf, 5) == b"again"
