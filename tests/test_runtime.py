"""The runtime layer (ascend_p2p_lab.runtime) on the simulator, plus a hardware group.

The simulated tests pick the backend explicitly or steer ``import acl`` through
``sys.modules``, so they behave the same on a machine that has CANN. The hardware group
(``-m hardware``) runs the same acceptance checks on real pyACL and is skipped unless
``import acl`` is CANN's pyACL reporting at least two devices.
"""

from __future__ import annotations

import importlib
import importlib.util
import pickle
import random
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.runtime import (
    ENV_BACKEND,
    ENV_PRESET,
    ENV_SEED,
    AclError,
    BackendInfo,
    BackendUnavailable,
    DeviceBuffer,
    Event,
    HostBuffer,
    PeerLinks,
    Runtime,
    Stream,
    open_runtime,
)
from ascend_p2p_lab.sim import shim_path, simulated_acl
from ascend_p2p_lab.topology import load_preset, parse_npu_smi_topo

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
DATA = Path(__file__).parent / "data"


# ------------------------------------------------------------------------------------ helpers
@pytest.fixture(autouse=True)
def _no_backend_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start every test without the backend variables (the root conftest sets some)."""
    for name in (ENV_BACKEND, ENV_PRESET, ENV_SEED):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def no_pyacl(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``import acl`` fail, whatever is installed."""
    monkeypatch.setitem(sys.modules, "acl", None)


def as_real_acl(sim: Any) -> SimpleNamespace:
    """A simulator dressed as CANN's pyACL: same calls, no ``__simulated__`` mark."""
    return SimpleNamespace(
        rt=sim.rt, util=sim.util, init=sim.init, finalize=sim.finalize,
        get_soc_name=sim.get_soc_name, get_version=sim.get_version,
        get_recent_err_msg=sim.get_recent_err_msg,
    )


def load_shim(monkeypatch: pytest.MonkeyPatch, preset: str) -> ModuleType:
    """A fresh copy of the shim package, installed as ``acl`` for this test."""
    monkeypatch.setenv(ENV_PRESET, preset)
    spec = importlib.util.spec_from_file_location("acl", shim_path() / "acl" / "__init__.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.delenv(ENV_PRESET)
    monkeypatch.setitem(sys.modules, "acl", module)
    return module


def run_threads(fn: Callable[[int], None], args: list[int]) -> None:
    """Run fn(arg) in one thread per arg; re-raise the first failure."""
    errors: list[BaseException] = []

    def run(arg: int) -> None:
        try:
            fn(arg)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(a,)) for a in args]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    if errors:
        raise errors[0]


def all_released(sim: Any) -> bool:
    return sim.simulator.ledger_is_empty() and not sim.simulator.ledger()["devices_set"]


# ---------------------------------------------------------------------- backend selection
def test_open_runtime_on_the_simulator() -> None:
    with open_runtime("sim", preset="atlas800t-a3", seed=3) as rt:
        assert (rt.backend, rt.preset, rt.info.seed) == ("sim", "atlas800t-a3", 3)
        assert rt.simulated and not rt.closed
        assert rt.device_count == 16
        assert rt.soc_name == "Ascend910_9382"
        assert rt.topology.name == "atlas800t-a3"
        assert rt.describe()["backend"] == "sim"
        sim = rt.acl
    assert rt.closed
    assert all_released(sim)


def test_env_vars_select_backend_preset_and_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_BACKEND, "sim")
    monkeypatch.setenv(ENV_PRESET, "atlas300i-duo")
    monkeypatch.setenv(ENV_SEED, "11")
    with open_runtime() as rt:
        assert (rt.backend, rt.preset, rt.info.seed) == ("sim", "atlas300i-duo", 11)
        assert rt.acl.seed == 11
        assert rt.soc_name == "Ascend310P3"


def test_explicit_arguments_win_over_env(monkeypatch: pytest.MonkeyPatch, no_pyacl: None) -> None:
    monkeypatch.setenv(ENV_BACKEND, "acl")
    monkeypatch.setenv(ENV_PRESET, "atlas800t-a3")
    monkeypatch.setenv(ENV_SEED, "11")
    with pytest.raises(BackendUnavailable):  # the env var is honoured...
        open_runtime()
    with open_runtime("sim", "atlas800t-a2", seed=2) as rt:  # ...but arguments win
        assert (rt.backend, rt.preset, rt.info.seed) == ("sim", "atlas800t-a2", 2)
    with open_runtime("sim") as rt:  # unset arguments still come from the env
        assert (rt.preset, rt.info.seed) == ("atlas800t-a3", 11)


def test_bad_backend_or_seed_is_a_value_error(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="unknown backend"):
        open_runtime("cuda")
    monkeypatch.setenv(ENV_SEED, "seven")
    with pytest.raises(ValueError, match=ENV_SEED):
        open_runtime("sim")


@pytest.mark.parametrize("how", ["argument", "env", "default"])
def test_auto_falls_back_to_the_simulator_with_a_one_line_notice(
    how: str, monkeypatch: pytest.MonkeyPatch, no_pyacl: None, capsys: pytest.CaptureFixture[str]
) -> None:
    if how == "env":
        monkeypatch.setenv(ENV_BACKEND, "auto")
    with open_runtime("auto" if how == "argument" else None) as rt:
        assert rt.backend == "sim" and rt.preset == "atlas800t-a2"
        assert rt.info.notice
    err = capsys.readouterr().err
    assert err.splitlines() == [rt.info.notice]
    assert "simulated" in err


def test_acl_backend_without_pyacl_says_how_to_get_it(no_pyacl: None) -> None:
    with pytest.raises(BackendUnavailable) as info:
        open_runtime("acl")
    text = str(info.value)
    assert "CANN" in text and "set_env.sh" in text


@pytest.mark.parametrize("backend", ["auto", "acl"])
def test_a_shim_acl_on_the_path_is_reported_as_sim(
    backend: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shim = load_shim(monkeypatch, "atlas800t-a3")
    with open_runtime(backend) as rt:
        assert rt.backend == "sim" and rt.simulated
        assert rt.preset == "atlas800t-a3"
        assert rt.acl is shim
        assert rt.device_count == 16
        with rt.device_buffer(1, MIB) as buf:
            rt.write(buf, b"shim")
            assert rt.read(buf, 4) == b"shim"
        assert rt.ledger() is not None
    assert capsys.readouterr().err == ""  # no fallback notice: it is what was asked for
    assert all_released(shim.__simulator__)


def test_auto_takes_real_pyacl_when_it_reports_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    sim = simulated_acl("atlas800t-a2")
    monkeypatch.setitem(sys.modules, "acl", as_real_acl(sim))
    with open_runtime("auto") as rt:
        assert rt.backend == "acl" and not rt.simulated
        assert rt.preset is None and rt.ledger() is None
        assert rt.device_count == 8
    assert all_released(sim)


def test_auto_falls_back_when_pyacl_reports_no_device(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[str] = []
    empty = SimpleNamespace(
        init=lambda: calls.append("init") or 0,
        finalize=lambda: calls.append("finalize") or 0,
        rt=SimpleNamespace(get_device_count=lambda: (0, 0)),
    )
    monkeypatch.setitem(sys.modules, "acl", empty)
    with open_runtime("auto") as rt:
        assert rt.backend == "sim"
    assert calls == ["init", "finalize"]
    assert "no NPU" in capsys.readouterr().err


@pytest.mark.keeps_ledger
def test_auto_probe_keeps_an_acl_session_opened_by_someone_else(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sim = simulated_acl("atlas800t-a2")
    monkeypatch.setitem(sys.modules, "acl", as_real_acl(sim))
    assert sim.init() == 0 and sim.rt.set_device(0) == 0  # the caller's own session
    try:
        with open_runtime("auto") as rt:
            assert rt.backend == "acl"
            assert sim.simulator.ledger()["initialized"]
            # the caller's device is still set
            assert sim.simulator.ledger()["devices_set"].get(0) == 1
        assert sim.simulator.ledger()["initialized"]  # and the runtime did not finalize it on close
    finally:
        if sim.simulator.ledger()["initialized"]:
            sim.rt.reset_device_force(0)
            sim.finalize()


# ------------------------------------------------------------------------------- AclError
def test_a_nonzero_ret_raises_acl_error_with_everything_known() -> None:
    with open_runtime("sim") as rt:
        with pytest.raises(AclError) as info:
            rt.call("rt.set_device", 64)
        e = info.value
        assert e.call == "acl.rt.set_device" and e.call_args == (64,)
        assert e.code == C.ACL_ERROR_RT_PARAM_INVALID == 107000
        assert e.name == "ACL_ERROR_RT_PARAM_INVALID"
        assert "out of range" in e.message  # acl.get_recent_err_msg()
        assert str(e).startswith(
            "acl.rt.set_device(64) returned 107000 (ACL_ERROR_RT_PARAM_INVALID): ")
        assert not rt.acl.get_recent_err_msg()  # the message was consumed

        rt.use(0)
        with pytest.raises(AclError) as info:
            rt.call("rt.device_enable_peer_access", 1, 4)
        assert (info.value.code, info.value.name) == (200006, "ACL_ERROR_FEATURE_UNSUPPORTED")
        assert info.value.call_args == (1, 4) and "flags" in info.value.message

        assert rt.call("rt.get_device_count") == 8  # one out-value: unwrapped
        assert rt.call("rt.get_mem_info", C.MemAttr.HBM_MEM)[1] == 64 * GIB  # several: a tuple
        assert rt.call("rt.synchronize_device") is None  # only ret


def test_runtime_methods_raise_acl_error() -> None:
    with open_runtime("sim", "atlas300i-310") as rt:
        assert not rt.can_access_peer(0, 1)
        assert not rt.can_access_peer(2, 2)  # equal ids: False without asking ACL
        with pytest.raises(AclError) as info:
            rt.enable_peer(0, 1)
        assert info.value.code == C.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        assert info.value.call == "acl.rt.device_enable_peer_access"
        assert "cannot access" in info.value.message
        assert rt.peer_refs() == {}
        with pytest.raises(AclError) as info:
            rt.device_buffer(0, 1 << 40)
        assert info.value.code == C.ACL_ERROR_RT_MEMORY_ALLOCATION
        with pytest.raises(ValueError, match="not enabled by this runtime"):
            rt.disable_peer(0, 1)
        with pytest.raises(ValueError, match="out of range"):
            rt.check_device(8)
        with pytest.raises(TypeError):
            rt.check_device(True)


def test_acl_error_survives_pickling() -> None:
    e = AclError("acl.rt.memcpy", (1 << 44, 4096), 507899, "driver said no")
    back = pickle.loads(pickle.dumps(e))
    assert (back.call, back.call_args, back.code, back.name, back.message) == (
        e.call, e.call_args, 507899, "ACL_ERROR_RT_DRV_INTERNAL_ERROR", "driver said no")
    assert "0x100000000000" in str(back)


# ------------------------------------------------------------------------ resource lifetime
def test_resources_are_context_managers() -> None:
    with open_runtime("sim") as rt:
        sim = rt.acl
        with rt.peer_links([(0, 1), (1, 0)]) as links:
            assert isinstance(links, PeerLinks) and links.pairs == [(0, 1), (1, 0)]
            assert sim.simulator.ledger()["peer_refs"] == {"0->1": 1, "1->0": 1}
            with (
                rt.device_buffer(0, MIB) as a,
                rt.device_buffer(1, MIB) as b,
                rt.host_buffer(MIB) as h,
                rt.stream(0) as s,
                rt.event(0) as e0,
                rt.event(0) as e1,
            ):
                assert isinstance(a, DeviceBuffer) and (a.device, a.size) == (0, MIB)
                assert isinstance(h, HostBuffer) and isinstance(s, Stream)
                assert isinstance(e0, Event) and a.policy == C.ACL_MEM_MALLOC_HUGE_FIRST_P2P
                assert len(rt.open_resources()) == 7
                e0.record(s)
                rt.memcpy_async(b, a, MIB, s)
                e1.record(s)
                s.synchronize()
                assert rt.elapsed_ms(e0, e1) > 0
            for res in (a, b, h, s, e0, e1):
                assert res.closed and "closed" in repr(res)
            led = sim.simulator.ledger()
            assert led["device_buffers"] == led["host_buffers"] == 0
            assert led["streams"] == led["events"] == 0
        assert links.closed and sim.simulator.ledger()["peer_refs"] == {}
        assert rt.open_resources() == []


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
def test_leaving_a_block_by_an_exception_releases_what_it_made(exc: type[BaseException]) -> None:
    with open_runtime("sim") as rt:
        sim = rt.acl
        rt.enable_peer(0, 1)  # outside the block
        with (
            pytest.raises(exc),
            rt.peer_links([(0, 1), (1, 0)]),
            rt.device_buffer(0, MIB),
            rt.host_buffer(MIB),
            rt.stream(1),
            rt.event(1),
        ):
            assert rt.peer_refs() == {(0, 1): 2, (1, 0): 1}
            raise exc("stop")
        assert rt.peer_refs() == {(0, 1): 1}  # the outside enable remains
        assert rt.peer_enabled(0, 1) and not rt.peer_enabled(1, 0)
        led = sim.simulator.ledger()
        assert led["peer_refs"] == {"0->1": 1}
        assert led["device_buffers"] == led["host_buffers"] == led["streams"] == led["events"] == 0
        assert rt.open_resources() == []
    assert all_released(sim)


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
def test_leaving_the_runtime_by_an_exception_releases_everything(
    exc: type[BaseException],
) -> None:
    with pytest.raises(exc), open_runtime("sim", "atlas800t-a3") as rt:
        sim = rt.acl
        rt.enable_peer(0, 2)
        rt.peer_links([(2, 0), (1, 3)])  # not closed by the block: the runtime will
        rt.device_buffer(0, MIB)
        rt.device_buffer(5, 3 * MIB)
        rt.host_buffer(MIB)
        rt.stream(4)
        rt.event(6)
        with rt.on(7):
            pass
        # enabling 1 -> 3 makes 1 current, not 3
        assert sim.simulator.ledger()["devices_set"] == {d: 1 for d in (0, 1, 2, 4, 5, 6, 7)}
        raise exc("stop")
    assert rt.closed and rt.open_resources() == [] and rt.peer_refs() == {}
    assert not sim.simulator.ledger()["initialized"]  # it initialized acl, so it finalized it
    assert not sim.simulator.ledger()["devices_set"]
    assert sim.simulator.ledger_is_empty(), sim.simulator.ledger()


def test_peer_links_failing_half_way_disable_what_they_enabled() -> None:
    with open_runtime("sim", "atlas300i-duo") as rt:
        with pytest.raises(AclError) as info:
            rt.peer_links([(0, 1), (1, 0), (0, 2)])  # 0 -> 2 crosses cards
        assert info.value.code == C.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        assert rt.peer_refs() == {}
        assert rt.acl.simulator.ledger()["peer_refs"] == {}
        assert rt.open_resources() == []


def test_close_is_idempotent() -> None:
    rt = open_runtime("sim")
    sim = rt.acl
    buf = rt.device_buffer(0, MIB)
    links = rt.peer_links([(0, 1), (1, 0)])
    buf.close()
    buf.close()
    links.close()
    links.close()
    assert rt.peer_refs() == {}
    rt.close()
    rt.close()
    assert rt.closed and all_released(sim)
    assert "closed" in repr(rt)


def test_a_runtime_over_an_initialized_acl_leaves_it_initialized() -> None:
    sim = simulated_acl("atlas800t-a2")
    assert sim.init() == 0 and sim.rt.set_device(0) == 0  # someone else's session
    with Runtime(sim, BackendInfo("sim", "atlas800t-a2", 0)).open() as rt:
        rt.use(0)
        rt.use(1)
        rt.peer_links([(0, 1), (1, 0)])
        rt.device_buffer(1, MIB)
        assert sim.simulator.ledger()["devices_set"] == {0: 2, 1: 1}
    assert sim.simulator.ledger()["initialized"]  # not finalized: the runtime did not initialize it
    # only its own references were reset
    assert sim.simulator.ledger()["devices_set"] == {0: 1}
    ledger = sim.simulator.ledger()
    assert ledger["peer_refs"] == {} and ledger["device_buffers"] == 0
    assert sim.rt.reset_device(0) == 0 and sim.finalize() == 0
    assert sim.simulator.ledger_is_empty()


def test_close_after_a_device_is_lost_still_releases_everything() -> None:
    lost = {"kind": "device_lost", "device": 1, "call": "rt.create_stream"}
    with open_runtime("sim", faults=[lost]) as rt:
        sim = rt.acl
        rt.peer_links([(0, 1), (1, 0)])
        rt.device_buffer(1, MIB)
        rt.device_buffer(0, MIB)
        with pytest.raises(AclError) as info:
            rt.stream(1)
        assert info.value.code == C.ACL_ERROR_RT_LOST_HEARTBEAT
        with pytest.raises(AclError):
            rt.device_buffer(1, MIB)
    assert all_released(sim)


# ------------------------------------------------------------------------- current device
def test_use_sets_each_device_once() -> None:
    with open_runtime("sim") as rt:
        sim = rt.acl
        assert rt.current_device() is None
        for dev in (0, 1, 0, 1, 1, 0):
            rt.use(dev)
            assert rt.current_device() == dev
            assert sim.rt.get_device() == (dev, 0)
        assert sim.call_counts["rt.set_device"] == 2
        assert sim.simulator.ledger()["devices_set"] == {0: 1, 1: 1}
    assert all_released(sim)


def test_on_switches_and_switches_back() -> None:
    with open_runtime("sim") as rt:
        sim = rt.acl
        rt.use(0)
        with rt.on(3):
            assert rt.current_device() == 3 and sim.rt.get_device() == (3, 0)
            with rt.on(5):
                assert sim.rt.get_device() == (5, 0)
            assert sim.rt.get_device() == (3, 0)
        assert rt.current_device() == 0 and sim.rt.get_device() == (0, 0)
        with pytest.raises(RuntimeError), rt.on(2):
            raise RuntimeError("inside")
        assert rt.current_device() == 0
        assert sim.call_counts["rt.set_device"] == 4  # 0, 3, 5, 2: once each


def test_two_threads_using_different_devices() -> None:
    with open_runtime("sim") as rt:
        sim = rt.acl
        rt.use(0)  # the main thread's device
        barrier = threading.Barrier(2)

        def worker(dev: int) -> None:
            assert rt.current_device() is None  # per thread
            rt.use(dev)
            barrier.wait(5)
            assert rt.current_device() == dev and sim.rt.get_device() == (dev, 0)
            payload = random.Random(dev).randbytes(100 * KIB + dev)
            with rt.device_buffer(dev, MIB) as buf, rt.stream(dev) as stream:
                for _ in range(20):
                    rt.write(buf, payload)
                    assert rt.read(buf, len(payload)) == payload
                    rt.memcpy_async(buf, buf, 0, stream)
                stream.synchronize()
            barrier.wait(5)
            assert sim.rt.get_device() == (dev, 0)

        run_threads(worker, [1, 2])
        assert rt.current_device() == 0 and sim.rt.get_device() == (0, 0)
        run_threads(lambda dev: rt.use(dev), [0, 1])  # already set: contexts, no new refs
        assert sim.call_counts["rt.set_device"] == 3
        assert sim.simulator.ledger()["devices_set"] == {0: 1, 1: 1, 2: 1}
    assert all_released(sim)


# ---------------------------------------------------------------------- links and status
def test_link_class_from_get_devices_topo() -> None:
    sim = simulated_acl("atlas800t-a3")
    with Runtime(as_real_acl(sim), BackendInfo("acl", None, None)).open() as rt:
        assert rt.topology is None and not rt.simulated
        assert rt.link_class(0, 1) == "SIO"
        assert rt.link_class(0, 2) == "HCCS_SW"
        assert rt.link_class(4, 4) == "X"
        assert sim.call_counts["rt.get_devices_topo"] == 2
    old = simulated_acl("atlas800t-a3", api_level="old")
    with Runtime(as_real_acl(old), BackendInfo("acl", None, None)).open() as rt:
        assert not rt.has("get_devices_topo")
        assert rt.link_class(0, 1) == "NA"
    assert all_released(sim) and all_released(old)


def test_link_class_from_a_given_topology(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = parse_npu_smi_topo((DATA / "npu-smi-topo-910b3-8npu.txt").read_text())
    with open_runtime("sim", topology=parsed) as rt:  # the simulator runs the parsed server
        assert rt.preset == "npu-smi" and rt.topology is parsed
        assert rt.device_count == 8 and rt.soc_name == "Ascend910B3"
        assert rt.link_class(0, 7) == "HCCS"
    sim = simulated_acl("atlas800t-a2")  # "hardware" whose get_devices_topo says HCCS
    monkeypatch.setitem(sys.modules, "acl", as_real_acl(sim))
    given = load_preset("atlas800t-a3")
    with open_runtime("acl", topology=given) as rt:
        assert rt.backend == "acl" and rt.topology is given
        assert rt.link_class(0, 1) == "SIO"  # read from the given topology
        assert rt.link_class(0, 2) == "HCCS_SW"
    assert "rt.get_devices_topo" not in sim.call_counts
    assert all_released(sim)


def test_peer_status_and_its_absence_on_the_old_api() -> None:
    with open_runtime("sim") as rt:
        assert rt.peer_status(0, 1) == 0
        assert rt.peer_status(0, 0) is None
        rt.enable_peer(0, 1)
        assert rt.peer_status(0, 1) == 0  # the pair: both directions needed
        with rt.peer_links([(1, 0)]):
            assert rt.peer_status(0, 1) == 1 and rt.peer_status(1, 0) == 1
        assert rt.peer_status(0, 1) == 0
    with open_runtime("sim", api_level="old") as rt:
        assert not rt.has("device_peer_access_status")
        with rt.peer_links([(0, 1), (1, 0)]):
            assert rt.peer_status(0, 1) is None
            assert rt.peer_refs() == {(0, 1): 1, (1, 0): 1}


# ------------------------------------------------------------------ copies, clocks, memory
def test_enqueue_copies_returns_the_host_time_of_the_loop() -> None:
    with (
        open_runtime("sim") as rt,
        rt.peer_links([(0, 1), (1, 0)]),
        rt.device_buffer(0, 4 * MIB) as a,
        rt.device_buffer(1, 4 * MIB) as b,
        rt.stream(0) as s,
        rt.event(0) as e0,
        rt.event(0) as e1,
    ):
        host = rt.topology.host
        e0.record(s)
        ns = rt.enqueue_copies(b, a, 4 * MIB, s, 10)
        e1.record(s)
        assert ns == pytest.approx(10 * host.api_us * 1000, abs=10)  # enqueue cost only
        t0 = rt.host_time_ns()
        s.synchronize()
        assert rt.host_time_ns() > t0  # the host waited for the device
        lc = rt.topology.link_class(0, 1)  # issued on the source's stream: a write
        one = (lc.latency_us + 4 * MIB / (lc.bandwidth_GBps * lc.push_efficiency * 1e3)) / 1e3
        assert rt.elapsed_ms(e0, e1) == pytest.approx(10 * one, rel=0.05)
        assert rt.enqueue_copies(b, a, 4 * MIB, s, 0) == 0
        s.synchronize()


def test_write_and_read_round_trip() -> None:
    payload = random.Random(1).randbytes(MIB + 333)
    with (
        open_runtime("sim") as rt,
        rt.peer_links([(0, 1), (1, 0)]),
        rt.device_buffer(0, 3 * MIB) as a,
        rt.device_buffer(1, 3 * MIB) as b,
        rt.host_buffer(2 * MIB) as h,
    ):
        rt.write(a, payload, offset=1000)
        assert rt.read(a, len(payload), offset=1000) == payload
        rt.memcpy(b, a, 3 * MIB)  # device to device, issued from the destination
        assert rt.read(b, len(payload), offset=1000, staging=h) == payload
        rt.memset(b, 0x7F, 10)
        assert rt.read(b, 12) == b"\x7f" * 10 + bytes(2)  # a held zeros before offset 1000
        rt.write(h, b"host side")
        assert rt.read(h, 9) == b"host side"
        rt.memcpy(a, h, 9)  # host to device
        assert rt.read(a, 9) == b"host side"
        with pytest.raises(ValueError):
            rt.write(a, b"x" * 10, offset=3 * MIB - 5)
        with pytest.raises(ValueError):
            rt.read(a, 10, offset=3 * MIB - 5)


def test_mem_info_reports_free_and_total_hbm() -> None:
    with open_runtime("sim") as rt:
        free0, total = rt.mem_info(0)
        assert total == 64 * GIB and free0 == total
        with rt.device_buffer(0, GIB):
            free1, _ = rt.mem_info(0)
            assert free0 - free1 == GIB
            assert rt.mem_info(1) == (total, total)
        assert rt.mem_info(0) == (free0, total)


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
    t = threading.Thread(target=lambda: box.update(
        ret=hw.acl.rt.device_enable_peer_access(1, 0)))  # a thread with no device
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


def test_a_failed_device_switch_is_raised_and_leaves_the_device() -> None:
    """use() switches with aclrtSetCurrentContext after the first aclrtSetDevice; its ret
    is checked as call() checks it (here: the device was reset behind the runtime's back,
    so its default context is gone)."""
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        rt.use(0), rt.use(1)  # aclrtSetDevice each
        assert rt.acl.rt.reset_device(0) == 0
        with pytest.raises(AclError) as err:
            rt.use(0)
        assert (err.value.call, err.value.call_args, err.value.code) == (
            "acl.rt.set_context", (rt._contexts[0],), C.ACL_ERROR_RT_PARAM_INVALID)
        assert rt.current_device() == 1
        assert rt.acl.rt.set_device(0) == 0  # given back, for the runtime's close
