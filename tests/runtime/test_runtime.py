"""The runtime layer on the simulator: open_runtime and Runtime (runtime/runtime.py).

- Backend selection: arguments, then environment variables; "auto" falls back to the
  simulator with a one-line notice when pyACL is missing or reports no device.
- Release: leaving a block or the runtime by an exception or KeyboardInterrupt releases
  what it made; close is idempotent; a failed reset or aclFinalize is retried; a runtime
  over an acl someone else initialized leaves it initialized, resetting only its own
  references.
- The current device: use() sets each device once, on() switches back, and each thread
  keeps its own.
- Peer status (absent on the old API), enqueue_copies and the virtual clock, write and
  read round trips, mem_info; a failed device switch or synchronize is an AclError that
  names the call and the code.
- Bad input gets one clear line and changes nothing: buffer sizes, the widgets and the
  dashboard, faults given as data. The installed command, run as a real process, exits 2
  without a traceback on a file that is not a checkpoint, and leaves the file as it was.
- The fast path of issue 24: ``Runtime.enqueue_staged`` makes the same pyACL calls, in the
  same order, with the same virtual clock and bytes, as the per-call loop it replaces
  (memcpy_async, record, wait_event, memcpy_async per chunk, device switches included),
  with or without the simulator's run_program; a size beyond the buffers is refused.

The tests pick the backend explicitly or steer ``import acl`` through ``sys.modules``, so
they behave the same on a machine that has CANN."""

from __future__ import annotations

import random
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from helpers import all_released, nothing_allocated, one_line, refused

from ascend_p2p_lab import codes as C
from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.runtime import (
    ENV_BACKEND,
    ENV_PRESET,
    ENV_SEED,
    AclError,
    BackendInfo,
    BackendUnavailable,
    Runtime,
)
from ascend_p2p_lab.sim import (
    simulated_acl,
)


@pytest.fixture
def a2() -> Iterator[Runtime]:
    with open_runtime("sim", "atlas800t-a2") as rt:
        yield rt


@pytest.mark.parametrize(
    "size, kind, match",
    [
        (0, ValueError, "must be positive"),
        (-1, ValueError, "must be positive"),
        (1.5, TypeError, "must be an int, got float"),
        ("4096", TypeError, "must be an int, got str"),
        (True, TypeError, "must be an int, got bool"),
    ],
)
def test_bad_buffer_sizes_in_the_runtime_layer(
    a2: Runtime, size: Any, kind: type, match: str
) -> None:
    refused(a2, lambda: a2.device_buffer(0, size), kind, match=match)
    refused(a2, lambda: a2.host_buffer(size), kind, match=match)


# ------------------------------------------------------------------------------ widgets
def test_wrong_types_through_the_widgets(a2: Runtime) -> None:
    widgets = pytest.importorskip("ascend_p2p_lab.widgets")
    with pytest.raises(TypeError, match="needs a Runtime from open_runtime"):
        widgets.PeerLinkPanel("atlas800t-a2")
    with pytest.raises(TypeError, match="needs a Runtime"):
        widgets.SweepDashboard(rt="atlas800t-a2")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not both"):
        widgets.SweepDashboard(a2, preset="atlas800t-a3")
    panel = widgets.PeerLinkPanel(a2)
    a2.enable_peer(7, 0)
    panel.refresh()
    for args, kind, match in [
        ((-1, 0, True), ValueError, "source device -1 is out of range 0..7"),
        ((0, 8, True), ValueError, "destination device 8 is out of range"),
        (("0", 1, True), TypeError, "source must be a device id (int), got str"),
        ((0, 1.0, True), TypeError, "destination must be a device id (int), got float"),
        ((2, 2, True), ValueError, "the same device (2)"),
        ((0, 1, "yes"), TypeError, "enabled must be True or False, got str"),
    ]:
        with pytest.raises(kind) as info:
            panel.set(*args)
        assert match in one_line(info.value)
    # nothing changed; in particular -1 did not wrap around to device 7
    assert a2.peer_refs() == {(7, 0): 1} and panel.state[7, 0] and panel.toggles[7][0].value
    assert panel.state.sum() == 1
    a2.disable_peer(7, 0)
    panel.close()


def test_wrong_values_through_the_dashboard(a2: Runtime) -> None:
    widgets = pytest.importorskip("ascend_p2p_lab.widgets")
    import traitlets

    dash = widgets.SweepDashboard(a2)
    for control, value in (
        (dash.direction, "sideways"),
        (dash.peer, "maybe"),
        (dash.sizes, (3000, 5000)),
        (dash.pairs, ("0-0",)),
        (dash.pairs_mode, "some"),
    ):
        with pytest.raises(traitlets.TraitError):
            control.value = value
    dash.samples.value = -3
    assert dash.run() is None and "samples must be between 1 and 1000" in dash.message
    dash.samples.value = 2
    dash.pairs_mode.value = "selected"
    assert dash.run() is None and "no pair selected" in dash.message
    assert not dash.set_preset("atlas9999") and "cannot open preset" in dash.message
    assert dash.rt is a2 and dash.preset.value == "atlas800t-a2"
    nothing_allocated(a2)
    dash.close()
    closed = open_runtime("sim")
    closed.close()
    with pytest.raises(ValueError, match="the runtime is closed"):
        widgets.SweepDashboard(closed)


def test_the_installed_command_exits_2_without_traceback(tmp_path: Path) -> None:
    ckpt = tmp_path / "notes.txt"
    ckpt.write_text("my notes\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ascend_p2p_lab.cli",
            "sweep",
            "--backend",
            "sim",
            "--pairs",
            "0-1",
            "--sizes",
            "4KiB",
            "--no-progress",
            "--checkpoint",
            str(ckpt),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"ascend-p2p-lab: error: {ckpt} is not an ascend-p2p-lab checkpoint (version 2); "
        "give another file name"
    ]
    assert ckpt.read_text() == "my notes\n"


# ---------------------------------------------------------------- faults given as data
def test_a_fault_on_an_unknown_call_is_refused() -> None:
    with pytest.raises(ValueError, match=r"rt\.memcpy_asynk"):
        open_runtime("sim", faults=[{"kind": "error", "call": "rt.memcpy_asynk"}]).close()


def test_a_fault_with_a_wrong_type_names_the_key() -> None:
    with pytest.raises((ValueError, TypeError), match="nth"):
        open_runtime("sim", faults=[{"kind": "error", "nth": "x"}]).close()


# ------------------------------------------------------------------ staged copies
def _per_call(rt, dst, host, src, size, streams, relay, n, chunk):
    """The host-staged loop as it was before the fast path: one checked call at a time."""
    s_src, s_dst = streams
    for _ in range(n):
        for off in range(0, size, chunk):
            m = min(chunk, size - off)
            rt.memcpy_async(host, src, m, s_src, dst_offset=off, src_offset=off)
            relay.record(s_src)
            rt.wait_event(s_dst, relay)
            rt.memcpy_async(dst, host, m, s_dst, dst_offset=off, src_offset=off)


def _staged_trace(
    fast: bool, size: int, chunk: int, start: int, n: int = 3, synchronize: bool = False
):
    """Calls made, the virtual host clock after the sync, and the bytes that arrived
    (``synchronize``: the sync is enqueue_staged's own)."""
    with open_runtime("sim", preset="atlas800t-a2", seed=7) as rt:
        sim = rt.acl.simulator
        s_src, s_dst = rt.stream(2), rt.stream(5)
        relay = rt.event(2)
        with (
            rt.device_buffer(2, size) as src,
            rt.device_buffer(5, size) as dst,
            rt.host_buffer(size) as host,
        ):
            rt.write(src, bytes(range(251)) * (size // 251) + bytes(size % 251))
            rt.use(start)  # the destination: the first chunk switches devices
            before = dict(sim.call_counts)
            if fast:
                rt.enqueue_staged(
                    dst, host, src, size, (s_src, s_dst), relay, n, chunk=chunk,
                    synchronize=synchronize,
                )  # fmt: skip
            else:
                _per_call(rt, dst, host, src, size, (s_src, s_dst), relay, n, chunk)
            if not synchronize:
                s_dst.synchronize()
            calls = {
                k: v - before.get(k, 0) for k, v in sim.call_counts.items() if v != before.get(k, 0)
            }
            clock, data = sim.host_time_us, rt.read(dst)
        for r in (relay, s_src, s_dst):
            r.close()
    return calls, clock, data


@pytest.mark.parametrize(
    "size,chunk,start",
    [(4096, 4096, 5), (10 << 10, 4096, 5), (1 << 20, 1 << 18, 5), (4096, 4096, 2)],
)
def test_enqueue_staged_makes_the_calls_of_the_per_call_loop(size, chunk, start):
    fast, slow = _staged_trace(True, size, chunk, start), _staged_trace(False, size, chunk, start)
    assert fast[0] == slow[0]
    chunks = -(-size // chunk)
    assert fast[0]["rt.memcpy_async"] == 2 * 3 * chunks
    # to the source and back, per chunk (none to the source first when it is current)
    assert fast[0]["rt.set_context"] == 2 * 3 * chunks - (start == 2)
    assert fast[1] == slow[1]  # the same virtual time, to the bit
    assert fast[2] == slow[2]


@pytest.mark.parametrize("extension", [True, False])
def test_enqueue_staged_with_its_synchronize_makes_the_calls_of_the_loop(monkeypatch, extension):
    """With its synchronize the simulator computes the program at once
    (``acl.simulator.run_program``); without that extension (real pyACL has none) the
    runtime makes the calls: the same calls, clock and bytes as the per-call loop."""
    from ascend_p2p_lab.sim.extras import Simulator

    if not extension:
        monkeypatch.delattr(Simulator, "run_program")
    for size, chunk, n in [(4096, 4096, 9), (3 << 20, 1 << 20, 4)]:
        fast = _staged_trace(True, size, chunk, 5, n, synchronize=True)
        assert fast == _staged_trace(False, size, chunk, 5, n)


def test_enqueue_staged_refuses_a_size_beyond_the_buffers():
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        s0, s1 = rt.stream(0), rt.stream(1)
        relay = rt.event(0)
        with (
            rt.device_buffer(0, 4096) as a,
            rt.device_buffer(1, 8192) as b,
            rt.host_buffer(8192) as h,
            pytest.raises(ValueError, match="do not fit"),
        ):
            rt.enqueue_staged(b, h, a, 8192, (s0, s1), relay, 1, chunk=4096)
        for r in (relay, s0, s1):
            r.close()


KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30


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


@pytest.mark.keeps_ledger
def test_a_failed_reset_is_retried() -> None:
    rt = open_runtime("sim", faults=[{"kind": "error", "call": "rt.reset_device", "nth": 1}])
    rt.device_buffer(0, 4096)
    rt.close()  # the first reset fails, the retry succeeds: nothing raised
    assert rt.acl.call_counts["rt.reset_device"] == 2
    assert rt.acl.simulator.ledger_is_empty() and not rt.acl.implicit_releases
    rt = open_runtime("sim", faults=[{"kind": "error", "call": "rt.reset_device"}])
    rt.device_buffer(0, 4096)
    with pytest.raises(AclError, match="reset_device"):
        rt.close()  # both tries fail: aclFinalize resets the device, the error is raised
    assert rt.acl.call_counts["rt.reset_device"] == 2
    assert rt.acl.implicit_releases == ["device 0 reset by aclFinalize"]
    assert not rt.acl.simulator.ledger()["initialized"]


def _count_finalize(rt) -> list[int]:
    """The return codes of every aclFinalize rt makes (top-level calls are not counted)."""
    codes: list[int] = []
    real = rt.acl.finalize
    rt.acl.finalize = lambda: codes.append(real()) or codes[-1]
    return codes


def test_a_failed_finalize_is_retried() -> None:
    rt = open_runtime("sim", faults=[{"kind": "error", "call": "finalize", "nth": 1}])
    codes = _count_finalize(rt)
    rt.device_buffer(0, 4096)
    rt.close()  # the first aclFinalize fails, the retry succeeds: nothing raised
    assert len(codes) == 2 and codes[0] != 0 and codes[1] == 0
    assert rt.acl.simulator.ledger_is_empty()


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
            "acl.rt.set_context",
            (rt._contexts[0],),
            C.ACL_ERROR_RT_PARAM_INVALID,
        )
        assert rt.current_device() == 1
        assert rt.acl.rt.set_device(0) == 0  # given back, for the runtime's close


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


def test_a_failed_synchronize_is_raised_as_any_call_is() -> None:
    """A synchronize (or record) goes through the short path of a ret-only call: a ret
    other than 0 is still an AclError."""
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        stream = rt.stream(0)
        real = rt.acl.rt.synchronize_stream
        rt.acl.rt.synchronize_stream = lambda handle: C.ACL_ERROR_RT_PARAM_INVALID
        try:
            with pytest.raises(AclError) as err:
                stream.synchronize()
        finally:
            rt.acl.rt.synchronize_stream = real
        assert (err.value.call, err.value.code) == (
            "acl.rt.synchronize_stream",
            C.ACL_ERROR_RT_PARAM_INVALID,
        )
