"""The simulated acl against pyACL's conventions (pyacl-api.md sections 1-5), one rule a test.

Every test talks to the simulator directly, in plain pyACL calls, and ends with the
simulator's ledger empty (tests/conftest.py checks that too): what a test sets, enables,
allocates or creates, it resets, disables, frees or destroys, then finalizes.

Bad input: each gets one clear line, nothing is allocated, the command line exits 2.

Through the library, the command line (in process, and once as a real process) and the
widgets; then property tests (hypothesis) of size parsing, topology TOML parsing and the
save/load round trip. The npu-smi text format -> parse round trip of random topologies is
in tests/test_npu_smi.py and is not repeated here.

The simulator's kept calls give what the checked calls give, exactly.

``acl.rt.set_context``, ``record_event`` and ``stream_wait_event`` (like
``memcpy_async``) skip their checks when they repeat a successful call; every call not in
``facade.KEEPS_PLANS`` drops what they keep. A script of good and bad calls (repeats,
the wrong current device, a destroyed event, a reset device, equal non-int arguments,
unhashable ones, faults) must give the same return values, messages, call counts, host
clock and device times as the same script with everything kept dropped before each call
(so that every call takes the checked path).

``memory.copy_bytes`` of whole chunks takes a shortcut past the general loop; it must leave
the same chunks (values and their sharing), versions and memo.

Reliability: injected faults against every operation, Ctrl-C at chosen points, resumable
sweeps, and a second sweep or a second thread at the same time.

The guarantees under test (docs/reliability.md has the table):

- after any failure, and after a KeyboardInterrupt, every buffer, stream and event the
  operation made is released, peer access is as it was before, and the runtime then
  closes to an empty simulator ledger (tests/conftest.py checks that last part too);
- the rows measured before a failure are returned (in ``exc.partial_frame`` when the
  operation raises) and, when ``out=`` was given, saved;
- every error names the ACL call, the code, its symbolic name and the runtime's message.

Faults are injected by the simulator (``open_runtime(..., faults=[...])``); interrupts by
wrapping one ``acl.rt`` function so that its Nth call raises KeyboardInterrupt *before*
reaching the simulator.

The runtime layer (ascend_p2p_lab.runtime) on the simulator, plus a hardware group.

The simulated tests pick the backend explicitly or steer ``import acl`` through
``sys.modules``, so they behave the same on a machine that has CANN. The hardware group
(``-m hardware``) runs the same acceptance checks on real pyACL and is skipped unless
``import acl`` is CANN's pyACL reporting at least two devices.

The simulator is deterministic, and its shortcuts do not change what it computes.

- The same seed gives the same frame (all but run_id and host; timestamps live in attrs);
  another seed gives other times when the preset has jitter.
- The copy memo (a repeated copy with nothing changed is skipped) never leaves stale
  bytes: a copy after the source, the destination or the buffers changed moves them again.
- The memoized copy plans are dropped when what they depend on changes (peer access,
  streams), and arguments that only compare equal to ints still fail as pyACL fails.
- The engine's batched queue (CopyRun) and its N(0, 1) generator give exactly what one
  Op per copy and ``random.gauss`` give; sparse memory equals a flat bytearray model.

IPC memory across processes on the simulator (issue 23): pyACL's documented two-process
flow runs unchanged, each misuse returns its code, sweep --processes matches in-process
bandwidth with verified bytes, and nothing stays exported after a kill or an interrupt.

Every test that starts processes stops them itself, with timeouts.

The simulator's parts: declared argument formats, the shared Route cache, the
``acl.simulator`` interface, and the size of the sim modules.

The wrong-type messages below are the ones the simulator gave before its calls declared
formats (each call checked its own arguments then); they are written out here, not read
from :mod:`ascend_p2p_lab.sim.formats`, so that a change of wording is noticed.

Verdicts a CI job can trust: exit statuses, errors as data, honest verification,
feature detection, teardown that finishes, run folders that are never mixed.

Each test fails when its behaviour breaks: the faults are asymmetric (one device, one
link, one call), and the assertions name the exact rows, columns and exit status."""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import importlib.util
import os
import random
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType, ModuleType
from typing import Any

import numpy as np
import pytest
from helpers import (
    CLI_QUICK,
    MIB_2,
    RT_ARGS,
    TIMEOUT_S,
    all_released,
    as_real_acl,
    one_line,
    run_cli,
    too_long,
    topology_with,
)

import ascend_p2p_lab.sim as sim_pkg
from ascend_p2p_lab import codes as C
from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.results import (
    load_run,
)
from ascend_p2p_lab.runtime import ENV_BACKEND, ENV_PRESET, ENV_SEED, BackendInfo, Runtime
from ascend_p2p_lab.sim import (
    LIVE,
    NEWER_CALLS,
    Fault,
    SimulatedACL,
    Simulator,
    drain_tracked,
    shim_path,
    simulated_acl,
)
from ascend_p2p_lab.sim.devices import CONTEXT_BASE
from ascend_p2p_lab.sim.memory import CHUNK
from ascend_p2p_lab.sim.routes import Route
from ascend_p2p_lab.topology import (
    TopologyError,
    load_preset,
)

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30


H2H, H2D, D2H, D2D = 0, 1, 2, 3


P2P = C.ACL_MEM_MALLOC_HUGE_FIRST_P2P


HBM, DDR = C.MemAttr.HBM_MEM, C.MemAttr.DDR_MEM


# ------------------------------------------------------------------------------------ helpers
def ok(out: Any) -> Any:
    """Check a pyACL result (``ret`` or ``(*values, ret)``); return the values."""
    if isinstance(out, tuple):
        *values, ret = out
        assert ret == 0, f"ret {ret} ({C.error_name(ret)})"
        return values[0] if len(values) == 1 else tuple(values)
    assert out == 0, f"ret {out} ({C.error_name(out)})"
    return None


def new_acl(preset: str = "atlas800t-a2", **kw: Any) -> Any:
    """A simulator without jitter, initialized."""
    kw.setdefault("jitter", 0.0)
    acl = simulated_acl(preset, **kw)
    ok(acl.init())
    return acl


def finish(acl: Any) -> None:
    """Finalize and check that nothing was left behind."""
    ok(acl.finalize())
    assert acl.simulator.ledger_is_empty(), acl.simulator.ledger()


@contextmanager
def devices(acl: Any, *devs: int, peer: bool = False) -> Iterator[dict[int, int]]:
    """Set each device once (contexts to switch between them); optionally enable peer access
    in both directions between every two of them. Undoes all of it on exit."""
    ctx: dict[int, int] = {}
    for d in devs:
        ok(acl.rt.set_device(d))
        ctx[d] = ok(acl.rt.get_context())
    pairs = [(a, b) for a in devs for b in devs if a != b] if peer else []
    for a, b in pairs:
        ok(acl.rt.set_context(ctx[a]))
        ok(acl.rt.device_enable_peer_access(b, 0))
    ok(acl.rt.set_context(ctx[devs[0]]))
    try:
        yield ctx
    finally:
        for a, b in pairs:
            ok(acl.rt.set_context(ctx[a]))
            ok(acl.rt.device_disable_peer_access(b))
        for d in devs:
            ok(acl.rt.reset_device(d))


def in_thread(fn: Callable[[], Any]) -> Any:
    """Run fn in a fresh thread (no current device there); return its result or raise."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["out"] = fn()
        except BaseException as exc:  # re-raised in the caller
            box["exc"] = exc

    t = threading.Thread(target=run)
    t.start()
    t.join(10)
    if "exc" in box:
        raise box["exc"]
    return box["out"]


def f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def link_ms(acl: Any, src: int, dst: int, nbytes: int, on: int | None = None) -> float:
    """The preset's model of one copy over the src -> dst link issued on device ``on``
    (default src: a write, at the link class's push efficiency), in milliseconds."""
    lc = acl.topology.link_class(src, dst)
    eff = lc.pull_efficiency if on == dst else lc.push_efficiency
    return (lc.latency_us + nbytes / (lc.bandwidth_GBps * eff * 1e3)) / 1e3


def start_timed(acl: Any, dst: int, src: int, n: int, stream: int) -> tuple[int, int]:
    """Record, copy (device to device), record, on one stream of the current device."""
    e0, e1 = ok(acl.rt.create_event()), ok(acl.rt.create_event())
    ok(acl.rt.record_event(e0, stream))
    ok(acl.rt.memcpy_async(dst, n, src, n, D2D, stream))
    ok(acl.rt.record_event(e1, stream))
    return e0, e1


def finish_timed(acl: Any, events: tuple[int, int]) -> float:
    ok(acl.rt.synchronize_event(events[1]))
    ms = ok(acl.rt.event_elapsed_time(*events))
    for e in events:
        ok(acl.rt.destroy_event(e))
    return ms


def test_elapsed_time_of_a_never_recorded_event_is_a_timestamp_error() -> None:
    acl = new_acl()
    ok(acl.rt.set_device(0))
    stream = ok(acl.rt.create_stream())
    e0, e1 = ok(acl.rt.create_event()), ok(acl.rt.create_event())
    assert acl.rt.event_elapsed_time(e0, e1) == (0.0, 107006)
    ok(acl.rt.record_event(e0, stream))
    assert acl.rt.event_elapsed_time(e0, e1) == (0.0, 107006)  # the end was never recorded
    assert "never recorded" in acl.get_recent_err_msg()
    ok(acl.rt.record_event(e1, stream))
    ok(acl.rt.synchronize_stream(stream))
    assert ok(acl.rt.event_elapsed_time(e0, e1)) >= 0.0
    for e in (e0, e1):
        ok(acl.rt.destroy_event(e))
    ok(acl.rt.destroy_stream(stream))
    ok(acl.rt.reset_device(0))
    ok(acl.finalize())


# ------------------------------------------------------------------------ return convention
def test_out_values_come_first_and_ret_last() -> None:
    acl = new_acl()
    count = acl.rt.get_device_count()
    assert count == (8, 0) and all(type(v) is int for v in count)
    assert acl.rt.set_device(0) == 0 and type(acl.rt.set_device(1)) is int
    assert acl.rt.get_device() == (1, 0)
    assert acl.rt.device_can_access_peer(0, 1) == (1, 0)
    ptr, ret = acl.rt.malloc(4 * KIB, P2P)
    assert ret == 0 and type(ptr) is int and ptr != 0
    free, total, ret = acl.rt.get_mem_info(HBM)
    assert ret == 0 and 0 < free < total == acl.topology.memory_bytes
    host, ret = acl.rt.malloc_host(4 * KIB)
    assert ret == 0 and type(host) is int
    stream = ok(acl.rt.create_stream())
    e0, e1 = ok(acl.rt.create_event()), ok(acl.rt.create_event())
    ok(acl.rt.record_event(e0, stream))
    ok(acl.rt.memcpy_async(ptr, 4 * KIB, host, 3 * KIB + 7, H2D, stream))
    ok(acl.rt.record_event(e1, stream))
    ok(acl.rt.synchronize_stream(stream))
    ms, ret = acl.rt.event_elapsed_time(e0, e1)
    assert ret == 0 and type(ms) is float and ms > 0
    assert ms == f32(ms)  # Py_BuildValue("fi", ...): a C float
    assert acl.get_version()[-1] == 0 and len(acl.get_version()) == 4
    for e in (e0, e1):
        assert acl.rt.destroy_event(e) == 0
    assert acl.rt.destroy_stream(stream) == 0
    assert acl.rt.free_host(host) == 0
    assert acl.rt.free(ptr) == 0
    assert acl.rt.reset_device(1) == 0 and acl.rt.reset_device(0) == 0
    finish(acl)


@pytest.mark.parametrize(
    ("call", "args"),
    [
        ("set_device", ("0",)),
        ("set_device", (0.0,)),
        ("malloc", (1.5, 0)),
        ("malloc", (1024, None)),
        ("memcpy", (None, 8, 1, 8, 1)),
        ("device_enable_peer_access", (1, "0")),
        ("device_can_access_peer", (0, [1])),
        ("create_event_with_flag", (8.0,)),
        ("get_mem_info", ("HBM",)),
    ],
)
def test_wrong_argument_types_raise_type_error(call: str, args: tuple) -> None:
    acl = new_acl()
    with pytest.raises(TypeError):
        getattr(acl.rt, call)(*args)
    assert not acl.get_recent_err_msg()  # a Python exception, not an ACL error
    finish(acl)


def test_init_with_a_non_string_config_raises_type_error() -> None:
    acl = simulated_acl("atlas800t-a2")
    with pytest.raises(TypeError):
        acl.init(5)
    assert acl.simulator.ledger_is_empty()


# ------------------------------------------------------------------------- init / finalize
#: Arguments for every acl.rt call; only the arity matters before aclInit.
PRE_INIT_ARGS: dict[str, tuple[int, ...]] = {
    "set_device": (0,),
    "reset_device": (0,),
    "reset_device_force": (0,),
    "get_device": (),
    "get_device_count": (),
    "get_context": (),
    "set_context": (1,),
    "create_context": (0,),
    "destroy_context": (1,),
    "get_devices_topo": (0, 1),
    "get_device_info": (0, 301),
    "device_can_access_peer": (0, 1),
    "device_enable_peer_access": (1, 0),
    "device_disable_peer_access": (1,),
    "device_peer_access_status": (0, 1),
    "malloc": (1024, 0),
    "free": (1,),
    "malloc_host": (1024,),
    "free_host": (1,),
    "memset": (1, 8, 0, 8),
    "memset_async": (1, 8, 0, 8, 0),
    "memcpy": (1, 8, 2, 8, 1),
    "memcpy_async": (1, 8, 2, 8, 1, 0),
    "get_mem_info": (1,),
    "create_stream": (),
    "destroy_stream": (1,),
    "synchronize_stream": (1,),
    "synchronize_device": (),
    "create_event": (),
    "create_event_with_flag": (8,),
    "create_event_ex_with_flag": (8,),
    "destroy_event": (1,),
    "record_event": (1, 0),
    "stream_wait_event": (0, 1),
    "synchronize_event": (1,),
    "event_elapsed_time": (1, 2),
    "event_get_timestamp": (1,),
    "ipc_mem_get_export_key": (1, 4096, 65, 0),
    "ipc_mem_set_import_pid": ("k", [1]),
    "ipc_mem_import_by_key": ("k", 0),
    "ipc_mem_close": ("k",),
    "device_get_bare_tgid": (),
    "reserve_mem_address": (4096, 0, 0, 0),
    "release_mem_address": (1,),
    "unmap_mem": (1,),
    "mem_map_selected_link": (1, 4096, 2, 1),
}


#: Calls the runtime serves without aclInit (no init check in their ACL implementation).
NO_INIT_CHECK = {"get_run_mode"}  # aclrtGetRunModeImpl, src/acl/aclrt_impl/device.cpp


def test_every_rt_call_is_in_the_pre_init_table() -> None:
    acl = simulated_acl("atlas800t-a2")
    assert set(vars(acl.rt)) == set(PRE_INIT_ARGS) | NO_INIT_CHECK
    assert acl.rt.get_run_mode() == (C.ACL_HOST, 0)  # an Atlas server's host, uninitialized


@pytest.mark.parametrize("call", list(PRE_INIT_ARGS))
def test_calls_before_init_return_uninitialize(call: str) -> None:
    acl = simulated_acl("atlas800t-a2")
    out = getattr(acl.rt, call)(*PRE_INIT_ARGS[call])
    ret = out[-1] if isinstance(out, tuple) else out
    assert ret == C.ACL_ERROR_UNINITIALIZE
    assert "100001" in acl.get_recent_err_msg()
    assert acl.simulator.ledger_is_empty()


def test_calls_after_finalize_return_uninitialize_again() -> None:
    acl = new_acl()
    ok(acl.finalize())
    assert acl.rt.set_device(0) == C.ACL_ERROR_UNINITIALIZE
    assert acl.rt.get_device_count() == (0, C.ACL_ERROR_UNINITIALIZE)
    assert acl.simulator.ledger_is_empty()


def test_repeated_init_is_ignorable_and_stays_initialized() -> None:
    acl = new_acl()
    assert acl.init() == C.ACL_ERROR_REPEAT_INITIALIZE
    assert acl.get_recent_err_msg()
    assert acl.rt.get_device_count() == (8, 0)  # still initialized
    finish(acl)  # one finalize is enough


def test_finalize_without_init_is_repeat_finalize() -> None:
    acl = simulated_acl("atlas800t-a2")
    assert acl.finalize() == C.ACL_ERROR_REPEAT_FINALIZE
    ok(acl.init())
    ok(acl.finalize())
    assert acl.finalize() == C.ACL_ERROR_REPEAT_FINALIZE
    assert acl.simulator.ledger_is_empty()


@pytest.mark.keeps_ledger
def test_finalize_releases_everything_and_records_the_implicit_releases() -> None:
    acl = new_acl()
    ok(acl.rt.set_device(1))
    ok(acl.rt.device_enable_peer_access(0, 0))
    ok(acl.rt.set_device(0))
    ok(acl.rt.set_device(0))  # two references
    ok(acl.rt.device_enable_peer_access(1, 0))
    ptr = ok(acl.rt.malloc(MIB, P2P))
    host = ok(acl.rt.malloc_host(MIB))
    stream = ok(acl.rt.create_stream())
    event = ok(acl.rt.create_event())
    assert acl.simulator.ledger()["devices_set"] == {0: 2, 1: 1}

    ok(acl.finalize())
    led = acl.simulator.ledger()
    assert not led["initialized"] and led["devices_set"] == {}
    assert led["device_buffers"] == led["host_buffers"] == led["streams"] == led["events"] == 0
    assert led["peer_refs"] == {}
    assert not acl.simulator.ledger()["devices_set"]
    text = "\n".join(led["implicit_releases"])
    for what in (
        f"device buffer {ptr:#x}",
        f"host buffer {host:#x}",
        f"stream {stream}",
        f"event {event}",
        "peer access 0->1",
        "peer access 1->0",
    ):
        assert what in text, what
    assert "aclFinalize" in text
    # Released, but not by the program: the ledger keeps saying so, even after a new session.
    assert not acl.simulator.ledger_is_empty()
    ok(acl.init())
    ok(acl.finalize())
    assert not acl.simulator.ledger_is_empty()


@pytest.mark.keeps_ledger
def test_finalize_records_the_devices_it_resets() -> None:
    acl = new_acl()
    ok(acl.rt.set_device(0))
    ok(acl.finalize())
    assert not acl.simulator.ledger_is_empty()


@pytest.mark.keeps_ledger
def test_last_reset_releases_the_device_resources_implicitly() -> None:
    acl = new_acl()
    ok(acl.rt.set_device(0))
    ptr = ok(acl.rt.malloc(MIB, P2P))
    ok(acl.rt.reset_device(0))
    assert acl.simulator.ledger()["device_buffers"] == 0
    assert any(
        f"{ptr:#x}" in r and "aclrtResetDevice" in r
        for r in acl.simulator.ledger()["implicit_releases"]
    )
    assert acl.rt.free(ptr) != 0  # already gone
    ok(acl.finalize())
    assert not acl.simulator.ledger_is_empty()


def test_clean_teardown_leaves_the_ledger_empty() -> None:
    acl = new_acl()
    with devices(acl, 0, 1, peer=True):
        ptr = ok(acl.rt.malloc(MIB, P2P))
        stream = ok(acl.rt.create_stream())
        assert not acl.simulator.ledger_is_empty()
        ok(acl.rt.destroy_stream(stream))
        ok(acl.rt.free(ptr))
    finish(acl)


# ---------------------------------------------------------------------------------- devices
def test_a_thread_without_a_current_device_gets_context_null() -> None:
    acl = new_acl()
    ok(acl.rt.set_device(0))  # the main thread has a device; the worker does not

    def worker() -> list[int]:
        return [
            acl.rt.device_enable_peer_access(1, 0),
            acl.rt.device_disable_peer_access(1),
            acl.rt.malloc(MIB, P2P)[-1],
            acl.rt.create_stream()[-1],
            acl.rt.create_event()[-1],
            acl.rt.get_device()[-1],
            acl.rt.get_mem_info(HBM)[-1],
            acl.rt.synchronize_device(),
        ]

    assert in_thread(worker) == [C.ACL_ERROR_RT_CONTEXT_NULL] * 8
    assert acl.rt.get_device() == (0, 0)
    ok(acl.rt.reset_device(0))
    finish(acl)


def test_threads_set_devices_independently() -> None:
    acl = new_acl()
    barrier = threading.Barrier(2)
    seen: dict[int, tuple[int, int]] = {}

    def worker(dev: int) -> None:
        ok(acl.rt.set_device(dev))
        barrier.wait(5)  # both threads have set their device
        seen[dev] = acl.rt.get_device()
        ptr = ok(acl.rt.malloc(MIB, P2P))
        free, total = ok(acl.rt.get_mem_info(HBM))
        assert total - free == MIB  # on this thread's device, not the other one's
        ok(acl.rt.free(ptr))
        barrier.wait(5)
        ok(acl.rt.reset_device(dev))

    threads = [threading.Thread(target=worker, args=(d,)) for d in (2, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == {2: (2, 0), 5: (5, 0)}
    assert acl.rt.get_device()[-1] == C.ACL_ERROR_RT_CONTEXT_NULL  # main thread: none
    finish(acl)


def test_set_and_reset_are_reference_counted() -> None:
    acl = new_acl()
    ok(acl.rt.set_device(3))
    ok(acl.rt.set_device(3))
    assert acl.simulator.ledger()["devices_set"] == {3: 2}
    ok(acl.rt.reset_device(3))
    assert acl.rt.get_device() == (3, 0)  # one reference left: still current
    ptr = ok(acl.rt.malloc(MIB, P2P))
    ok(acl.rt.free(ptr))
    ok(acl.rt.reset_device(3))
    assert acl.simulator.ledger()["devices_set"] == {}
    assert acl.rt.get_device()[-1] == C.ACL_ERROR_RT_CONTEXT_NULL
    assert acl.rt.reset_device(3) != 0  # already released
    assert acl.get_recent_err_msg()
    finish(acl)


def test_reset_of_a_device_never_set_is_an_error() -> None:
    acl = new_acl()
    assert acl.rt.reset_device(4) != 0
    assert "not set" in acl.get_recent_err_msg()
    assert acl.rt.reset_device_force(4) != 0
    finish(acl)


def test_reset_device_force_drops_every_reference() -> None:
    acl = new_acl()
    for _ in range(3):
        ok(acl.rt.set_device(1))
    ok(acl.rt.reset_device_force(1))
    assert acl.simulator.ledger()["devices_set"] == {}
    assert acl.rt.reset_device(1) != 0
    finish(acl)


@pytest.mark.parametrize(
    ("dev", "code"),
    [
        (64, C.ACL_ERROR_RT_PARAM_INVALID),  # >= RT_MAX_DEV_NUM
        (1000, C.ACL_ERROR_RT_PARAM_INVALID),
        (-1, C.ACL_ERROR_RT_PARAM_INVALID),
        (8, C.ACL_ERROR_RT_INVALID_DEVICEID),  # >= device count (8)
        (63, C.ACL_ERROR_RT_INVALID_DEVICEID),
    ],
)
def test_device_id_range(dev: int, code: int) -> None:
    acl = new_acl()
    assert acl.rt.set_device(dev) == code
    assert acl.rt.reset_device(dev) == code
    assert acl.rt.device_can_access_peer(0, dev) == (0, code)
    assert acl.rt.device_can_access_peer(dev, 0) == (0, code)
    assert acl.rt.get_devices_topo(0, dev) == (0, code)
    ok(acl.rt.set_device(0))
    assert acl.rt.device_enable_peer_access(dev, 0) == code
    assert acl.simulator.ledger()["devices_set"] == {0: 1}
    ok(acl.rt.reset_device(0))
    finish(acl)


# ------------------------------------------------------------------------------ peer access
def test_can_access_peer_needs_no_current_device() -> None:
    acl = new_acl()
    assert acl.rt.device_can_access_peer(0, 1) == (1, 0)
    assert acl.rt.device_can_access_peer(7, 3) == (1, 0)
    assert acl.simulator.ledger()["devices_set"] == {}
    finish(acl)


def test_equal_ids_are_invalid_param() -> None:
    acl = new_acl()
    assert acl.rt.device_can_access_peer(2, 2) == (0, C.ACL_ERROR_INVALID_PARAM)
    ok(acl.rt.set_device(2))
    assert acl.rt.device_enable_peer_access(2, 0) == C.ACL_ERROR_INVALID_PARAM
    assert acl.rt.device_disable_peer_access(2) == C.ACL_ERROR_INVALID_PARAM
    assert acl.rt.device_peer_access_status(2, 2) == (0, C.ACL_ERROR_INVALID_PARAM)
    ok(acl.rt.reset_device(2))
    finish(acl)


def test_enable_and_disable_need_a_current_device() -> None:
    acl = new_acl()
    assert acl.rt.device_enable_peer_access(1, 0) == C.ACL_ERROR_RT_CONTEXT_NULL
    assert acl.rt.device_disable_peer_access(1) == C.ACL_ERROR_RT_CONTEXT_NULL
    assert acl.simulator.ledger()["peer_refs"] == {}
    finish(acl)


@pytest.mark.parametrize("flags", [1, 2, 0x8, 0xFFFF_FFFF])
def test_nonzero_flags_are_feature_unsupported(flags: int) -> None:
    acl = new_acl()
    with devices(acl, 0):
        assert acl.rt.device_enable_peer_access(1, flags) == C.ACL_ERROR_FEATURE_UNSUPPORTED
        assert "flags" in acl.get_recent_err_msg()
        assert acl.simulator.ledger()["peer_refs"] == {}
    finish(acl)


@pytest.mark.parametrize(
    ("preset", "src", "dst"),
    [
        ("atlas300i-duo", 0, 2),  # different cards
        ("atlas300i-duo", 5, 0),
        ("atlas300i-310", 0, 1),  # Ascend 310: no peer access at all
        ("atlas300i-310", 0, 4),
    ],
)
def test_unreachable_pairs_give_feature_not_support_on_enable(
    preset: str, src: int, dst: int
) -> None:
    acl = new_acl(preset)
    assert acl.rt.device_can_access_peer(src, dst) == (0, 0)
    with devices(acl, src):
        assert acl.rt.device_enable_peer_access(dst, 0) == C.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        assert "cannot access" in acl.get_recent_err_msg()
        assert acl.simulator.ledger()["peer_refs"] == {}
    finish(acl)


def test_the_two_chips_of_one_300i_duo_card_can_enable() -> None:
    acl = new_acl("atlas300i-duo")
    assert acl.rt.device_can_access_peer(0, 1) == (1, 0)
    with devices(acl, 0, 1, peer=True):
        assert acl.rt.device_peer_access_status(0, 1) == (1, 0)
    finish(acl)


def test_enables_are_per_direction_and_reference_counted() -> None:
    acl = new_acl()
    with devices(acl, 0, 1) as ctx:
        ok(acl.rt.device_enable_peer_access(1, 0))  # current 0: enables 0 -> 1
        ok(acl.rt.device_enable_peer_access(1, 0))  # again: a second reference, no error
        assert acl.simulator.ledger()["peer_refs"] == {"0->1": 2}
        ok(acl.rt.set_context(ctx[1]))
        ok(acl.rt.device_enable_peer_access(0, 0))
        assert acl.simulator.ledger()["peer_refs"] == {"0->1": 2, "1->0": 1}
        assert acl.rt.device_peer_access_status(0, 1) == (1, 0)

        ok(acl.rt.set_context(ctx[0]))
        ok(acl.rt.device_disable_peer_access(1))  # one of two references
        assert acl.simulator.ledger()["peer_refs"] == {"0->1": 1, "1->0": 1}
        assert acl.rt.device_peer_access_status(0, 1) == (1, 0)  # still enabled
        ok(acl.rt.device_disable_peer_access(1))  # the last one
        assert acl.simulator.ledger()["peer_refs"] == {"1->0": 1}
        assert acl.rt.device_peer_access_status(0, 1) == (0, 0)

        ok(acl.rt.set_context(ctx[1]))
        ok(acl.rt.device_disable_peer_access(0))
        assert acl.simulator.ledger()["peer_refs"] == {}
    finish(acl)


def test_disable_of_a_direction_never_enabled_is_an_error() -> None:
    acl = new_acl()
    with devices(acl, 0, 1) as ctx:
        ok(acl.rt.set_context(ctx[1]))
        ok(acl.rt.device_enable_peer_access(0, 0))  # only 1 -> 0
        ok(acl.rt.set_context(ctx[0]))
        ret = acl.rt.device_disable_peer_access(1)  # 0 -> 1 was never enabled
        # The ACL code is not documented (kernel -ESRCH); pyacl-api.md 5.4 infers 507899.
        assert ret != 0
        assert ret == C.ACL_ERROR_RT_DRV_INTERNAL_ERROR
        assert "not enabled" in acl.get_recent_err_msg()
        assert acl.simulator.ledger()["peer_refs"] == {"1->0": 1}  # untouched
        ok(acl.rt.set_context(ctx[1]))
        ok(acl.rt.device_disable_peer_access(0))
        assert acl.rt.device_disable_peer_access(0) != 0  # once more: nothing left
    finish(acl)


def test_peer_access_status_reports_the_pair() -> None:
    acl = new_acl()
    with devices(acl, 0, 1) as ctx:
        assert acl.rt.device_peer_access_status(0, 1) == (0, 0)
        ok(acl.rt.device_enable_peer_access(1, 0))  # 0 -> 1 only
        assert acl.rt.device_peer_access_status(0, 1) == (0, 0)
        assert acl.rt.device_peer_access_status(1, 0) == (0, 0)
        ok(acl.rt.set_context(ctx[1]))
        ok(acl.rt.device_enable_peer_access(0, 0))  # both directions now
        assert acl.rt.device_peer_access_status(0, 1) == (1, 0)
        assert acl.rt.device_peer_access_status(1, 0) == (1, 0)
        assert acl.rt.device_peer_access_status(0, 2) == (0, 0)
        ok(acl.rt.device_disable_peer_access(0))
        ok(acl.rt.set_context(ctx[0]))
        ok(acl.rt.device_disable_peer_access(1))
    finish(acl)


def test_max_peers_limits_the_peers_one_device_enables() -> None:
    topo = load_preset("atlas800t-a3", max_peers=2, jitter=0.0)
    acl = simulated_acl(topo)
    ok(acl.init())
    with devices(acl, 0):
        ok(acl.rt.device_enable_peer_access(1, 0))
        ok(acl.rt.device_enable_peer_access(2, 0))
        assert acl.rt.device_enable_peer_access(3, 0) == C.ACL_ERROR_RT_RESOURCE_ALLOC_FAIL
        assert "limit 2" in acl.get_recent_err_msg()
        ok(acl.rt.device_enable_peer_access(1, 0))  # a peer already counted: fine
        for peer in (1, 1, 2):
            ok(acl.rt.device_disable_peer_access(peer))
        ok(acl.rt.device_enable_peer_access(3, 0))  # room again
        ok(acl.rt.device_disable_peer_access(3))
    finish(acl)


def test_a2_limit_of_8_peers_allows_the_full_mesh() -> None:
    acl = new_acl()
    assert acl.topology.max_peers == 8
    with devices(acl, *range(8), peer=True):
        assert len(acl.simulator.ledger()["peer_refs"]) == 8 * 7
    finish(acl)


# ----------------------------------------------------------------------------------- copies
@contextmanager
def two_buffers(acl: Any, ctx: dict[int, int], size: int, a: int = 0, b: int = 1):
    """A device buffer on a and one on b; current device a afterwards."""
    ok(acl.rt.set_context(ctx[a]))
    pa = ok(acl.rt.malloc(size, P2P))
    ok(acl.rt.set_context(ctx[b]))
    pb = ok(acl.rt.malloc(size, P2P))
    ok(acl.rt.set_context(ctx[a]))
    try:
        yield pa, pb
    finally:
        ok(acl.rt.free(pb))
        ok(acl.rt.free(pa))


def read_device(acl: Any, ptr: int, n: int) -> bytes:
    host = ok(acl.rt.malloc_host(n))
    ok(acl.rt.memcpy(host, n, ptr, n, D2H))
    data = acl.util.ptr_to_bytes(host, n)
    ok(acl.rt.free_host(host))
    return data


def test_count_larger_than_dest_max_is_param_invalid() -> None:
    acl = new_acl()
    with devices(acl, 0, 1, peer=True) as ctx, two_buffers(acl, ctx, 4 * KIB) as (a, b):
        assert acl.rt.memcpy(b, 1024, a, 1025, D2D) == C.ACL_ERROR_RT_PARAM_INVALID
        assert "destMax" in acl.get_recent_err_msg()
        stream = ok(acl.rt.create_stream())
        assert acl.rt.memcpy_async(b, 1024, a, 1025, D2D, stream) == C.ACL_ERROR_RT_PARAM_INVALID
        assert acl.rt.memset(a, 1024, 0, 1025) == C.ACL_ERROR_RT_PARAM_INVALID
        ok(acl.rt.destroy_stream(stream))
    finish(acl)


def test_count_zero_succeeds_without_copying() -> None:
    acl = new_acl()
    with devices(acl, 0, 1, peer=True) as ctx, two_buffers(acl, ctx, 4 * KIB) as (a, b):
        ok(acl.rt.memset(a, 4 * KIB, 0x22, 4 * KIB))
        ok(acl.rt.set_context(ctx[1]))
        ok(acl.rt.memset(b, 4 * KIB, 0x11, 4 * KIB))
        ok(acl.rt.memcpy(b, 4 * KIB, a, 0, D2D))
        ok(acl.rt.memcpy(0, 0, 0, 0, D2D))  # returns before looking at the pointers
        assert read_device(acl, b, 4 * KIB) == b"\x11" * (4 * KIB)
    finish(acl)


def test_kind_that_does_not_match_the_addresses_is_rejected_by_the_async_copy() -> None:
    acl = new_acl()
    with devices(acl, 0, 1, peer=True) as ctx, two_buffers(acl, ctx, 4 * KIB) as (a, b):
        host = ok(acl.rt.malloc_host(4 * KIB))
        assert acl.rt.memcpy_async(b, 4 * KIB, a, 16, H2D, 0) == C.ACL_ERROR_RT_PARAM_INVALID
        assert "does not match" in acl.get_recent_err_msg()
        assert acl.rt.memcpy_async(host, 4 * KIB, a, 16, H2D, 0) == C.ACL_ERROR_RT_PARAM_INVALID
        assert acl.rt.memcpy(b, 4 * KIB, a, 16, 9) == C.ACL_ERROR_RT_PARAM_INVALID
        ok(acl.rt.memcpy(b, 4 * KIB, a, 16, C.MemcpyKind.DEFAULT))  # inferred from addresses
        ok(acl.rt.memcpy(host, 4 * KIB, a, 16, D2H))
        ok(acl.rt.synchronize_stream(0))
        ok(acl.rt.free_host(host))
    finish(acl)


def test_the_synchronous_copy_takes_its_direction_from_the_addresses() -> None:
    """RT-DOC 11-03, aclrtMemcpy: kind is reserved; the runtime decides from the addresses
    (the async memory sample copies a pinned host buffer with kind DEVICE_TO_HOST)."""
    acl = new_acl()
    with devices(acl, 0, 1, peer=True) as ctx, two_buffers(acl, ctx, 4 * KIB) as (_a, b):
        host = ok(acl.rt.malloc_host(4 * KIB))
        ok(acl.rt.memset(host, 4 * KIB, 7, 4 * KIB))
        ok(acl.rt.memcpy(b, 4 * KIB, host, 16, D2D))  # really host to device
        out = bytes(16)
        ok(acl.rt.memcpy(acl.util.bytes_to_ptr(out), 16, b, 16, H2D))  # really device to host
        assert out == b"\x07" * 16
        ok(acl.rt.free_host(host))
    finish(acl)


def test_null_pointers_are_invalid_param() -> None:
    acl = new_acl()
    with devices(acl, 0):
        a = ok(acl.rt.malloc(4 * KIB, P2P))
        assert acl.rt.memcpy(0, 4 * KIB, a, 16, D2D) == C.ACL_ERROR_INVALID_PARAM
        assert acl.rt.memcpy(a, 4 * KIB, 0, 16, D2D) == C.ACL_ERROR_INVALID_PARAM
        assert "NULL" in acl.get_recent_err_msg()
        assert acl.rt.memset(0, 16, 0, 16) != 0
        ok(acl.rt.free(a))
    finish(acl)


def test_a_stream_of_another_device_is_stream_context() -> None:
    acl = new_acl()
    with devices(acl, 0, 1, peer=True) as ctx, two_buffers(acl, ctx, 4 * KIB) as (a, b):
        ok(acl.rt.set_context(ctx[1]))
        stream1 = ok(acl.rt.create_stream())
        ok(acl.rt.set_context(ctx[0]))
        ret = acl.rt.memcpy_async(b, 4 * KIB, a, 4 * KIB, D2D, stream1)
        assert ret == C.ACL_ERROR_RT_STREAM_CONTEXT
        assert "belongs to device 1" in acl.get_recent_err_msg()
        ok(acl.rt.set_context(ctx[1]))
        ok(acl.rt.memcpy_async(b, 4 * KIB, a, 4 * KIB, D2D, stream1))  # dst device: fine
        ok(acl.rt.synchronize_stream(stream1))
        ok(acl.rt.destroy_stream(stream1))
    finish(acl)


def test_record_event_needs_event_and_stream_of_one_device() -> None:
    acl = new_acl()
    with devices(acl, 0, 1) as ctx:
        event0 = ok(acl.rt.create_event())  # on device 0
        ok(acl.rt.set_context(ctx[1]))
        stream1 = ok(acl.rt.create_stream())
        assert acl.rt.record_event(event0, stream1) == C.ACL_ERROR_RT_STREAM_CONTEXT
        assert acl.rt.record_event(event0, 0) == C.ACL_ERROR_RT_STREAM_CONTEXT  # default stream
        ok(acl.rt.set_context(ctx[0]))
        ok(acl.rt.record_event(event0, 0))
        ok(acl.rt.set_context(ctx[1]))
        ok(acl.rt.synchronize_event(event0))  # synchronizing from another device is fine
        ok(acl.rt.destroy_stream(stream1))
        ok(acl.rt.destroy_event(event0))
    finish(acl)


def test_d2d_without_peer_access_fails_on_a2_with_the_preset_code() -> None:
    acl = new_acl("atlas800t-a2")
    assert acl.topology.peer_off_copy == "error"
    with devices(acl, 0, 1) as ctx, two_buffers(acl, ctx, 4 * KIB) as (a, b):
        assert acl.rt.memcpy(b, 4 * KIB, a, 4 * KIB, D2D) == acl.topology.peer_off_error
        assert "peer access" in acl.get_recent_err_msg()
        stream = ok(acl.rt.create_stream())
        ret = acl.rt.memcpy_async(b, 4 * KIB, a, 4 * KIB, D2D, stream)
        assert ret == acl.topology.peer_off_error
        ok(acl.rt.destroy_stream(stream))
    finish(acl)


def test_d2d_with_only_one_direction_enabled_still_fails_on_a2() -> None:
    acl = new_acl("atlas800t-a2")
    assert acl.topology.peer_needs_both
    with devices(acl, 0, 1) as ctx, two_buffers(acl, ctx, 4 * KIB) as (a, b):
        ok(acl.rt.device_enable_peer_access(1, 0))  # 0 -> 1 only
        assert acl.rt.memcpy(b, 4 * KIB, a, 4 * KIB, D2D) == acl.topology.peer_off_error
        ok(acl.rt.set_context(ctx[1]))
        assert acl.rt.memcpy(b, 4 * KIB, a, 4 * KIB, D2D) == acl.topology.peer_off_error
        ok(acl.rt.device_enable_peer_access(0, 0))  # both: now it works
        ok(acl.rt.memcpy(b, 4 * KIB, a, 4 * KIB, D2D))
        ok(acl.rt.device_disable_peer_access(0))
        ok(acl.rt.set_context(ctx[0]))
        ok(acl.rt.device_disable_peer_access(1))
    finish(acl)


def test_d2d_without_peer_access_succeeds_on_a3() -> None:
    acl = new_acl("atlas800t-a3")
    assert acl.topology.peer_off_copy == "direct"
    with devices(acl, 0, 2) as ctx, two_buffers(acl, ctx, 4 * KIB, 0, 2) as (a, b):
        ok(acl.rt.memset(a, 4 * KIB, 0x3C, 4 * KIB))
        ok(acl.rt.memcpy(b, 4 * KIB, a, 4 * KIB, D2D))
        ok(acl.rt.set_context(ctx[2]))
        assert read_device(acl, b, 4 * KIB) == b"\x3c" * (4 * KIB)
    finish(acl)


def test_data_really_moves_h2d_d2d_d2h() -> None:
    acl = new_acl()
    n = 2 * MIB + 512 * KIB + 123  # whole chunks and a ragged tail
    payload = random.Random(7).randbytes(n)
    with devices(acl, 0, 1, peer=True) as ctx, two_buffers(acl, ctx, 4 * MIB) as (a, b):
        ok(acl.rt.memcpy(a, 4 * MIB, acl.util.bytes_to_ptr(payload), n, H2D))
        ok(acl.rt.memcpy(b + 64, 4 * MIB - 64, a, n, D2D))  # to an offset on the peer
        ok(acl.rt.set_context(ctx[1]))
        host = ok(acl.rt.malloc_host(n))
        ok(acl.rt.memcpy(host, n, b + 64, n, D2H))
        assert acl.util.ptr_to_bytes(host, n) == payload
        out = bytearray(16)  # D2H straight into a writable Python buffer
        ok(acl.rt.memcpy(acl.util.bytes_to_ptr(out), 16, b + 64 + n - 16, 16, D2H))
        assert bytes(out) == payload[-16:]
        ok(acl.rt.free_host(host))
    finish(acl)


def test_a_1_gib_buffer_costs_no_ram() -> None:
    acl = new_acl()
    with devices(acl, 0, 1, peer=True) as ctx, two_buffers(acl, ctx, GIB) as (a, b):
        ok(acl.rt.memset(a, GIB, 0x5A, GIB))
        ok(acl.rt.memcpy(b, GIB, a, GIB, D2D))
        ok(acl.rt.set_context(ctx[1]))
        assert read_device(acl, b + GIB - 4 * KIB, 4 * KIB) == b"\x5a" * (4 * KIB)
        assert acl._memory.resident_bytes() < 4 * MIB
    finish(acl)


def test_memory_beyond_capacity_is_memory_allocation() -> None:
    acl = new_acl()
    cap = acl.topology.memory_bytes
    with devices(acl, 0):
        assert acl.rt.malloc(cap + 1, P2P) == (0, C.ACL_ERROR_RT_MEMORY_ALLOCATION)
        assert "out of device memory" in acl.get_recent_err_msg()
        big = ok(acl.rt.malloc(cap // 2 + GIB, P2P))
        assert acl.rt.malloc(cap // 2, P2P)[-1] == C.ACL_ERROR_RT_MEMORY_ALLOCATION
        ok(acl.rt.free(big))
        again = ok(acl.rt.malloc(cap // 2, P2P))  # freed memory is available again
        ok(acl.rt.free(again))
        assert acl.rt.malloc(0, P2P)[-1] != 0
    finish(acl)


def test_memset_sets_bytes_and_checks_max_count() -> None:
    acl = new_acl()
    with devices(acl, 0):
        a = ok(acl.rt.malloc(3 * MIB, P2P))
        ok(acl.rt.memset(a, 3 * MIB, 0, 3 * MIB))
        ok(acl.rt.memset(a + 100, 3 * MIB - 100, 0xAB, MIB + 5))
        data = read_device(acl, a, 3 * MIB)
        assert data[:100] == bytes(100)
        assert data[100 : 100 + MIB + 5] == b"\xab" * (MIB + 5)
        assert data[100 + MIB + 5 :] == bytes(3 * MIB - 105 - MIB)
        assert acl.rt.memset(a, 10, 1, 11) == C.ACL_ERROR_RT_PARAM_INVALID
        ok(acl.rt.free(a))
    finish(acl)


# --------------------------------------------------------------------------- get_mem_info
def test_get_mem_info_needs_a_current_device_and_reports_hbm_only() -> None:
    acl = new_acl()
    assert acl.rt.get_mem_info(HBM) == (0, 0, C.ACL_ERROR_RT_CONTEXT_NULL)
    with devices(acl, 0):
        free0, total, _ = acl.rt.get_mem_info(HBM)
        assert total == acl.topology.memory_bytes == 64 * GIB
        assert free0 == total
        assert acl.rt.get_mem_info(DDR) == (0, 0, 0)  # unsupported attribute: 0, 0
        assert acl.rt.get_mem_info(C.MallocPolicy.NORMAL_ONLY) == (0, 0, 0)  # attr 2: DDR huge
        ptr = ok(acl.rt.malloc(3 * MIB, P2P))
        free1, total1 = ok(acl.rt.get_mem_info(HBM))
        assert total1 == total
        assert free0 - free1 >= 3 * MIB
        assert (free0 - free1) % (2 * MIB) == 0  # huge pages: 2 MiB granularity
        ok(acl.rt.free(ptr))
        assert ok(acl.rt.get_mem_info(HBM))[0] == free0
    finish(acl)


@pytest.mark.parametrize(
    ("policy", "size", "charged"),
    [
        (C.MallocPolicy.HUGE_FIRST, 4 * KIB, 4 * KIB),  # <= 1 MiB: normal pages
        (C.MallocPolicy.HUGE_FIRST, 3 * MIB, 4 * MIB),  # huge pages: 2 MiB granules
        (C.ACL_MEM_MALLOC_HUGE_FIRST_P2P, 3 * MIB, 4 * MIB),
        (C.MallocPolicy.NORMAL_ONLY, 3 * MIB, 3 * MIB),
        (C.MallocPolicy.NORMAL_ONLY_P2P, 3 * MIB + 1, 3 * MIB + 1),
        (C.MallocPolicy.HUGE_ONLY, 4 * KIB, 2 * MIB),  # huge only: always 2 MiB granules
        (C.MallocPolicy.HUGE_ONLY_P2P, 4 * KIB, 2 * MIB),
        (99, 3 * MIB, 4 * MIB),  # out of range, >= 2 MB: huge pages
        (99, 1536 * KIB, 1536 * KIB),  # out of range, < 2 MB: normal pages
    ],
)
def test_malloc_policy_page_granularity(policy: int, size: int, charged: int) -> None:
    acl = new_acl()
    with devices(acl, 0):
        free0 = ok(acl.rt.get_mem_info(HBM))[0]
        ptr = ok(acl.rt.malloc(size, policy))
        free1 = ok(acl.rt.get_mem_info(HBM))[0]
        ok(acl.rt.free(ptr))
    finish(acl)
    assert free0 - free1 == charged


def test_get_device_info_cuts_values_to_a_c_int_as_pyacl_does() -> None:
    acl = new_acl()
    # pyACL builds the reply with Py_BuildValue("ii", ...) from an int64 (pyacl-api.md 4).
    assert acl.rt.get_device_info(0, 301) == (acl.topology.memory_bytes & 0xFFFF_FFFF, 0)
    assert acl.rt.get_device_info(0, 601) == (2201, 0)  # NPU_ARCH of A2
    assert acl.rt.get_device_info(5, 402) == (5, 0)
    assert acl.rt.get_device_info(8, 601)[-1] == C.ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.simulator.ledger()["devices_set"] == {}
    finish(acl)


def test_get_mem_info_is_per_device() -> None:
    acl = new_acl()
    with devices(acl, 0, 1) as ctx:
        ptr = ok(acl.rt.malloc(GIB, P2P))
        ok(acl.rt.set_context(ctx[1]))
        free, total = ok(acl.rt.get_mem_info(HBM))
        assert free == total  # device 1 untouched
        ok(acl.rt.set_context(ctx[0]))
        ok(acl.rt.free(ptr))
    finish(acl)


# ---------------------------------------------------------------------------- events, time
def test_elapsed_time_matches_the_preset_link_model() -> None:
    acl = new_acl("atlas800t-a2", jitter=0.0)
    with devices(acl, 0, 1, peer=True) as ctx, two_buffers(acl, ctx, GIB) as (a, b):
        stream = ok(acl.rt.create_stream())
        ms = finish_timed(acl, start_timed(acl, b, a, GIB, stream))
        assert ms == pytest.approx(link_ms(acl, 0, 1, GIB), rel=1e-3)
        # issued on the source's stream: a write, at HIXL's write/read ratio of the
        # ascend-dmi figure (26.2 GB/s, taken as a read)
        assert GIB / (ms * 1e-3) / 1e9 == pytest.approx(26.2 * 0.755, rel=0.01)
        ok(acl.rt.destroy_stream(stream))
    finish(acl)


def test_two_copies_in_one_direction_at_once_share_the_link() -> None:
    acl = new_acl()
    n = 256 * MIB
    with devices(acl, 0, 1, peer=True) as ctx:
        ok(acl.rt.set_context(ctx[1]))
        dst = [ok(acl.rt.malloc(n, P2P)) for _ in range(2)]
        ok(acl.rt.set_context(ctx[0]))
        src = [ok(acl.rt.malloc(n, P2P)) for _ in range(2)]
        streams = [ok(acl.rt.create_stream()) for _ in range(2)]
        timed = [start_timed(acl, dst[i], src[i], n, streams[i]) for i in range(2)]
        shared = [finish_timed(acl, t) for t in timed]
        alone = link_ms(acl, 0, 1, n)
        for ms in shared:
            assert ms == pytest.approx(2 * alone, rel=0.02)  # each gets about half the link
        for s in streams:
            ok(acl.rt.destroy_stream(s))
        for p in src:
            ok(acl.rt.free(p))
        ok(acl.rt.set_context(ctx[1]))
        for p in dst:
            ok(acl.rt.free(p))
    finish(acl)


def test_opposite_directions_do_not_slow_each_other() -> None:
    acl = new_acl()
    n = 256 * MIB
    with devices(acl, 0, 1, peer=True) as ctx:
        ok(acl.rt.set_context(ctx[0]))
        a_src, a_dst = ok(acl.rt.malloc(n, P2P)), ok(acl.rt.malloc(n, P2P))
        s0 = ok(acl.rt.create_stream())
        ok(acl.rt.set_context(ctx[1]))
        b_src, b_dst = ok(acl.rt.malloc(n, P2P)), ok(acl.rt.malloc(n, P2P))
        s1 = ok(acl.rt.create_stream())
        ok(acl.rt.set_context(ctx[0]))
        forward = start_timed(acl, b_dst, a_src, n, s0)  # 0 -> 1 on a stream of device 0
        ok(acl.rt.set_context(ctx[1]))
        backward = start_timed(acl, a_dst, b_src, n, s1)  # 1 -> 0 on a stream of device 1
        ms_fwd, ms_bwd = finish_timed(acl, forward), finish_timed(acl, backward)
        assert ms_fwd == pytest.approx(link_ms(acl, 0, 1, n), rel=1e-3)
        assert ms_bwd == pytest.approx(link_ms(acl, 1, 0, n), rel=1e-3)
        ok(acl.rt.destroy_stream(s1))
        ok(acl.rt.free(b_src))
        ok(acl.rt.free(b_dst))
        ok(acl.rt.set_context(ctx[0]))
        ok(acl.rt.destroy_stream(s0))
        ok(acl.rt.free(a_src))
        ok(acl.rt.free(a_dst))
    finish(acl)


def test_a3_sio_pair_is_faster_than_hccs_sw_pair() -> None:
    acl = new_acl("atlas800t-a3")
    assert acl.topology.link(0, 1) == "SIO" and acl.topology.link(0, 2) == "HCCS_SW"
    n = GIB
    rates = {}
    with devices(acl, 0, 1, 2, peer=True) as ctx:
        for peer in (1, 2):
            with two_buffers(acl, ctx, n, 0, peer) as (a, b):
                stream = ok(acl.rt.create_stream())
                ms = finish_timed(acl, start_timed(acl, b, a, n, stream))
                assert ms == pytest.approx(link_ms(acl, 0, peer, n), rel=1e-3)
                rates[acl.topology.link(0, peer)] = n / (ms * 1e-3) / 1e9
                ok(acl.rt.destroy_stream(stream))
    assert rates["SIO"] == pytest.approx(190.0, rel=0.01)
    assert rates["HCCS_SW"] == pytest.approx(165.0 * 0.84, rel=0.01)  # a write (HIXL ratio)
    finish(acl)


def test_a_synchronous_memcpy_advances_the_host_clock() -> None:
    acl = new_acl()
    host = acl.topology.host
    n = 64 * MIB
    with devices(acl, 0):
        dev = ok(acl.rt.malloc(n, P2P))
        src = ok(acl.rt.malloc_host(n))
        t0 = acl.simulator.host_time_us
        ok(acl.rt.memcpy(dev, n, src, n, H2D))
        blocking = acl.simulator.host_time_us - t0
        transfer = host.latency_us + n / (host.h2d_GBps * 1e3)
        assert blocking == pytest.approx(host.api_us + transfer + host.sync_return_us, rel=1e-9)
        stream = ok(acl.rt.create_stream())
        t1 = acl.simulator.host_time_us
        ok(acl.rt.memcpy_async(dev, n, src, n, H2D, stream))
        assert acl.simulator.host_time_us - t1 == pytest.approx(host.api_us)  # enqueue only
        ok(acl.rt.synchronize_stream(stream))
        assert acl.simulator.host_time_us - t1 >= transfer  # the wait is on the host clock too
        ok(acl.rt.destroy_stream(stream))
        ok(acl.rt.free_host(src))
        ok(acl.rt.free(dev))
    finish(acl)


def test_the_same_seed_gives_the_same_jittered_times() -> None:
    def one_run(seed: int) -> float:
        acl = new_acl("atlas800t-a2", seed=seed, jitter=0.05)
        with devices(acl, 0, 1, peer=True) as ctx, two_buffers(acl, ctx, 64 * MIB) as (a, b):
            stream = ok(acl.rt.create_stream())
            ms = finish_timed(acl, start_timed(acl, b, a, 64 * MIB, stream))
            ok(acl.rt.destroy_stream(stream))
        finish(acl)
        return ms

    assert one_run(3) == one_run(3)
    assert one_run(3) != one_run(4)


# -------------------------------------------------------------------------------- api level
def test_old_api_level_hides_the_newer_calls() -> None:
    assert set(NEWER_CALLS) == {
        "device_peer_access_status",
        "get_devices_topo",
        "reset_device_force",
        "create_event_ex_with_flag",
        "event_get_timestamp",
        "ipc_mem_get_export_key",
        "ipc_mem_set_import_pid",
        "ipc_mem_import_by_key",
        "ipc_mem_close",
        "device_get_bare_tgid",
        "reserve_mem_address",
        "release_mem_address",
        "unmap_mem",
        "mem_map_selected_link",
    }
    old, new = simulated_acl(api_level="old"), simulated_acl(api_level="new")
    for name in NEWER_CALLS:
        assert not hasattr(old.rt, name), name
        assert hasattr(new.rt, name), name
    for name in (
        "device_can_access_peer",
        "device_enable_peer_access",
        "memcpy_async",
        "create_event_with_flag",
        "event_elapsed_time",
        "get_mem_info",
    ):
        assert hasattr(old.rt, name), name
    with pytest.raises(ValueError):
        simulated_acl(api_level="ancient")


def test_old_api_level_still_runs_the_p2p_sequence() -> None:
    acl = new_acl(api_level="old")
    with devices(acl, 0, 1, peer=True) as ctx, two_buffers(acl, ctx, 4 * KIB) as (a, b):
        ok(acl.rt.memcpy(b, 4 * KIB, a, 4 * KIB, D2D))
    finish(acl)


# ------------------------------------------------------------------- error text, soc name
def test_recent_err_msg_returns_and_clears_this_threads_text() -> None:
    acl = new_acl()
    assert not acl.get_recent_err_msg()
    assert acl.rt.set_device(99) == C.ACL_ERROR_RT_PARAM_INVALID
    msg = acl.get_recent_err_msg()
    assert "107000" in msg and "99" in msg
    assert not acl.get_recent_err_msg()  # cleared by the read

    assert acl.rt.set_device(70) != 0  # this thread's latest failure...
    assert acl.rt.set_device(8) != 0  # ...is the one reported
    assert "107001" in acl.get_recent_err_msg()

    def other_thread() -> str:
        assert acl.rt.get_device()[-1] == C.ACL_ERROR_RT_CONTEXT_NULL
        return acl.get_recent_err_msg()

    assert acl.rt.reset_device(5) != 0
    assert "107002" in in_thread(other_thread)  # its own error only
    assert "not set" in acl.get_recent_err_msg()  # ours survived the other thread's
    finish(acl)


def test_soc_name_is_top_level_and_none_before_init() -> None:
    acl = simulated_acl("atlas800t-a3")
    assert not hasattr(acl.rt, "get_soc_name")
    assert acl.get_soc_name() is None
    ok(acl.init())
    assert acl.get_soc_name() == "Ascend910_9382"
    ok(acl.finalize())
    assert acl.get_soc_name() is None
    assert acl.simulator.ledger_is_empty()


# ---------------------------------------------------------------------------- topology bits
@pytest.mark.parametrize(
    ("preset", "a", "b", "bits"),
    [
        ("atlas800t-a2", 0, 1, 0x01),  # HCCS
        ("atlas800t-a2", 7, 3, 0x01),
        ("atlas800t-a3", 0, 1, 0x20),  # SIO, the two dies of a card
        ("atlas800t-a3", 1, 0, 0x20),
        ("atlas800t-a3", 0, 2, 0x40),  # HCCS_SW
        ("atlas300i-duo", 0, 1, 0x02),  # PIX, inside a card
        ("atlas300i-duo", 0, 2, 0x10),  # SYS
        ("atlas300i-310", 0, 1, 0x08),  # PHB
        ("atlas300i-310", 0, 4, 0x10),  # SYS
    ],
)
def test_get_devices_topo_bits(preset: str, a: int, b: int, bits: int) -> None:
    acl = new_acl(preset)
    assert acl.rt.get_devices_topo(a, b) == (bits, 0)
    assert C.topology_from_bits(bits) == acl.topology.link(a, b)
    assert acl.simulator.ledger()["devices_set"] == {}  # no current device needed
    finish(acl)


# ----------------------------------------------------------------------------------- faults
def test_error_fault_at_the_nth_memcpy_async() -> None:
    fault = {"kind": "error", "call": "rt.memcpy_async", "nth": 3, "code": C.ACL_ERROR_RT_SYS_DMA}
    acl = new_acl(faults=[fault])
    with devices(acl, 0, 1, peer=True) as ctx, two_buffers(acl, ctx, 4 * KIB) as (a, b):
        stream = ok(acl.rt.create_stream())
        rets = [acl.rt.memcpy_async(b, 4 * KIB, a, 4 * KIB, D2D, stream) for _ in range(5)]
        assert rets == [0, 0, C.ACL_ERROR_RT_SYS_DMA, 0, 0]
        ok(acl.rt.memcpy(b, 4 * KIB, a, 4 * KIB, D2D))  # other calls are not affected
        ok(acl.rt.synchronize_stream(stream))
        ok(acl.rt.destroy_stream(stream))
    finish(acl)


def test_error_fault_can_be_limited_to_one_link() -> None:
    fault = Fault(
        kind="error",
        call="rt.memcpy",
        link=(1, 0),
        code=C.ACL_ERROR_RT_SYS_DMA,
        message="sdma error on 1->0",
    )
    acl = new_acl(faults=[fault])
    with devices(acl, 0, 1, peer=True) as ctx, two_buffers(acl, ctx, 4 * KIB) as (a, b):
        ok(acl.rt.memcpy(b, 4 * KIB, a, 4 * KIB, D2D))  # 0 -> 1
        assert acl.rt.memcpy(a, 4 * KIB, b, 4 * KIB, D2D) == C.ACL_ERROR_RT_SYS_DMA
        assert "sdma error on 1->0" in acl.get_recent_err_msg()
        assert acl.rt.memcpy(a, 4 * KIB, b, 4 * KIB, D2D) == C.ACL_ERROR_RT_SYS_DMA  # every use
    finish(acl)


def test_degrade_fault_halves_one_directed_link() -> None:
    acl = new_acl(faults=[{"kind": "degrade", "link": (0, 1), "factor": 0.5}])
    n = 256 * MIB
    with devices(acl, 0, 1, peer=True) as ctx, two_buffers(acl, ctx, n) as (a, b):
        stream0 = ok(acl.rt.create_stream())
        ms_slow = finish_timed(acl, start_timed(acl, b, a, n, stream0))
        ms_fast = finish_timed(acl, start_timed(acl, a, b, n, stream0))  # 1 -> 0, issued on 0
        lc = acl.topology.link_class(0, 1)
        assert ms_slow == pytest.approx(
            (lc.latency_us + n / (lc.bandwidth_GBps * 500)) / 1e3, rel=1e-3
        )
        assert ms_fast == pytest.approx(link_ms(acl, 1, 0, n, on=0), rel=1e-3)  # a read
        ok(acl.rt.destroy_stream(stream0))
    finish(acl)


def test_device_lost_fails_later_calls_but_teardown_works() -> None:
    lost = C.ACL_ERROR_RT_LOST_HEARTBEAT
    # The first create_stream on device 1 loses the device.
    acl = new_acl(faults=[{"kind": "device_lost", "device": 1, "call": "rt.create_stream"}])
    with devices(acl, 0, 1, peer=True) as ctx:
        a = ok(acl.rt.malloc(4 * KIB, P2P))
        ok(acl.rt.set_context(ctx[1]))
        b = ok(acl.rt.malloc(4 * KIB, P2P))
        assert acl.rt.create_stream() == (0, lost)
        assert "lost" in acl.get_recent_err_msg()
        assert acl.rt.malloc(4 * KIB, P2P) == (0, lost)
        assert acl.rt.memset(b, 4 * KIB, 0, 4 * KIB) == lost
        assert acl.rt.synchronize_device() == lost
        ok(acl.rt.set_context(ctx[0]))
        assert acl.rt.memcpy(b, 4 * KIB, a, 4 * KIB, D2D) == lost  # touches device 1
        ok(acl.rt.memset(a, 4 * KIB, 1, 4 * KIB))  # device 0 still works
        ok(acl.rt.set_context(ctx[1]))
        ok(acl.rt.free(b))  # teardown still releases what the process held
        ok(acl.rt.set_context(ctx[0]))
        ok(acl.rt.free(a))
    # (the devices() exit disabled peer access and reset both devices without an error)
    finish(acl)


def test_memory_exhausted_fault_fails_allocations_on_one_device() -> None:
    acl = new_acl(faults=[{"kind": "memory_exhausted", "device": 1}])
    with devices(acl, 0, 1) as ctx:
        a = ok(acl.rt.malloc(MIB, P2P))
        ok(acl.rt.set_context(ctx[1]))
        assert acl.rt.malloc(MIB, P2P) == (0, C.ACL_ERROR_RT_MEMORY_ALLOCATION)
        ok(acl.rt.set_context(ctx[0]))
        ok(acl.rt.free(a))
    finish(acl)


def test_slow_host_fault_multiplies_host_time() -> None:
    def host_costs(faults: list) -> tuple[float, float, float]:
        acl = new_acl(faults=faults)
        with devices(acl, 0):
            t0 = acl.simulator.host_time_us
            stream = ok(acl.rt.create_stream())
            t1 = acl.simulator.host_time_us
            host = ok(acl.rt.malloc_host(MIB))
            t2 = acl.simulator.host_time_us
            dev = ok(acl.rt.malloc(GIB, P2P))
            ok(acl.rt.memset(dev, GIB, 0, GIB))  # mostly device time
            t3 = acl.simulator.host_time_us
            ok(acl.rt.free(dev))
            ok(acl.rt.free_host(host))
            ok(acl.rt.destroy_stream(stream))
        finish(acl)
        return t1 - t0, t2 - t1, t3 - t2

    normal = host_costs([])
    slow = host_costs([{"kind": "slow_host", "factor": 3.0}])
    assert slow[0] == pytest.approx(3 * normal[0])
    assert slow[1] == pytest.approx(3 * normal[1])
    # A 1 GiB memset is mostly device time, which is not multiplied: only its call costs are.
    assert normal[2] < slow[2] < 1.05 * normal[2]


def test_faults_reject_bad_definitions() -> None:
    with pytest.raises(ValueError):
        Fault(kind="meteor")
    with pytest.raises(ValueError):
        Fault(kind="degrade")  # needs a link
    with pytest.raises(ValueError):
        Fault(kind="device_lost")  # needs a device
    with pytest.raises(ValueError):
        Fault(kind="error", code=12345)
    with pytest.raises(ValueError):
        Fault.from_dict({"kind": "error", "when": "now"})


# ------------------------------------------------------------------------------- the shim
def test_sim_path_command_prints_the_shim_folder(capsys: pytest.CaptureFixture[str]) -> None:

    assert main(["sim-path"]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed == str(shim_path())
    assert (shim_path() / "acl" / "__init__.py").is_file()


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


# ---------------------------------------------------------------- presets and topologies
def test_unknown_presets_make_no_simulator() -> None:
    before = list(LIVE)  # strong references: none of them is collected meanwhile
    for name in ("atlas9999", "Atlas800T-A2 ", "../atlas800t-a2"):
        with pytest.raises(TopologyError) as info:
            open_runtime("sim", name)
        assert "unknown preset" in one_line(info.value)
        assert "atlas800t-a2" in str(info.value)  # lists the known ones
    with pytest.raises(ValueError, match="unknown backend"):
        open_runtime("cuda")
    assert [sim for sim in LIVE if not any(sim is old for old in before)] == []


FAULTS = {
    "none": [],
    "record_error": [{"kind": "error", "call": "rt.record_event", "nth": 4}],
    "wait_error": [{"kind": "error", "call": "rt.stream_wait_event", "nth": 3}],
    "slow_host": [{"kind": "slow_host", "factor": 1.5}],
    "device_lost": [{"kind": "device_lost", "device": 1, "nth": 9}],
}


def _script(faults: list, plain: bool) -> list:
    """Run the script; with ``plain``, drop every kept call before each call."""
    acl = simulated_acl("atlas800t-a2", seed=3, faults=faults)
    rt, sim = acl.rt, acl.simulator
    out: list = []

    def do(fn, *args):
        if plain:  # each table by hand (Copies.clear is under test too)
            for kept in (
                acl._copies.plans,
                acl._devices.kept,
                acl._streams.kept_records,
                acl._streams.kept_waits,
            ):
                kept.clear()
        try:
            got = fn(*args)
        except TypeError as exc:
            got = f"TypeError: {exc}"
        out.append((fn.__name__, args, got, acl.get_recent_err_msg(), sim.host_time_us))
        return got

    ctx0, ctx1 = CONTEXT_BASE, CONTEXT_BASE + 1
    do(acl.init)
    do(rt.set_device, 0)
    (s0, _), (e0, _), (e_end, _) = do(rt.create_stream), do(rt.create_event), do(rt.create_event)
    do(rt.set_device, 1)
    (s1, _), (e1, _) = do(rt.create_stream), do(rt.create_event)
    for _ in range(4):  # the staged copy's pattern, repeated
        do(rt.set_context, ctx0)
        do(rt.record_event, e0, s0)
        do(rt.record_event, e0, 0)  # device 0's default stream
        do(rt.set_context, ctx1)
        do(rt.stream_wait_event, s1, e0)  # across devices
        do(rt.stream_wait_event, s1, e1)  # within one
        do(rt.record_event, e1, s1)
        do(rt.record_event, e0, s0)  # the stream of another device
        do(rt.stream_wait_event, s0, e0)
    for bad in (float(ctx0), True, ctx0 + 99, [ctx0]):
        do(rt.set_context, bad)
    do(rt.set_context, ctx0, 1)
    do(rt.set_context, ctx0)
    for args in ((e0, float(s0)), (e0, [s0]), (e0,), (e1, s0), (e0 + 99, s0)):
        do(rt.record_event, *args)
        do(rt.stream_wait_event, *args[::-1])
    do(rt.record_event, e_end, s0)
    do(rt.synchronize_stream, s0)
    do(rt.set_context, ctx1)
    do(rt.synchronize_stream, s1)
    do(rt.event_elapsed_time, e0, e1)
    do(rt.destroy_event, e1)  # keeps the plans: the kept calls must see it gone
    do(rt.record_event, e1, s1)
    do(rt.stream_wait_event, s1, e1)
    do(rt.set_context, ctx0)
    do(rt.event_elapsed_time, e0, e_end)
    for e in (e0, e_end):
        do(rt.destroy_event, e)
    do(rt.destroy_stream, s0)
    do(rt.set_context, ctx1)
    do(rt.destroy_stream, s1)
    do(rt.reset_device, 1)
    do(rt.set_context, ctx1)  # its device was reset
    do(rt.reset_device, 0)
    do(acl.finalize)
    do(rt.set_context, ctx0)  # after finalize
    out.append(dict(sim.call_counts))
    assert not acl._streams.events and not acl._streams.streams
    return out


@pytest.mark.parametrize("faults", FAULTS.values(), ids=FAULTS.keys())
def test_kept_calls_give_what_the_checked_calls_give(faults):
    kept, plain = _script(faults, plain=False), _script(faults, plain=True)
    assert kept == plain
    times = [step[-1] for step in kept[:-1]]
    assert len(set(times)) > 20  # the clock moved, call by call


def test_the_script_repeats_kept_calls():
    """The fast path really runs: after the first round, repeats find their kept call."""
    acl = simulated_acl("atlas800t-a2")
    rt = acl.rt
    acl.init(), rt.set_device(0), rt.set_device(1)
    (s1, _), (e1, _) = rt.create_stream(), rt.create_event()
    rt.set_context(CONTEXT_BASE + 1), rt.record_event(e1, s1), rt.stream_wait_event(s1, e1)
    assert acl._devices.kept == {CONTEXT_BASE + 1: 1}
    assert acl._streams.kept_records[(e1, s1)] == (
        acl._streams.events[e1],
        acl._streams.streams[s1],
    )
    assert (s1, e1) in acl._streams.kept_waits
    rt.synchronize_stream(s1), rt.destroy_event(e1), rt.destroy_stream(s1)
    assert not acl._streams.kept_records and not acl._devices.kept  # destroy_stream dropped them
    rt.reset_device(0), rt.reset_device(1), acl.finalize()


@pytest.mark.parametrize("exc", [KeyboardInterrupt, RuntimeError])
def test_a_preset_switch_that_fails_half_way_keeps_the_old_runtime(
    exc: type[BaseException], monkeypatch: pytest.MonkeyPatch
) -> None:
    widgets = pytest.importorskip("ascend_p2p_lab.widgets")
    dash = widgets.SweepDashboard(backend="sim", preset="atlas800t-a2")
    old = dash.rt
    real = widgets.PeerLinkPanel

    def broken(rt: Runtime) -> Any:
        if rt is not old:
            raise exc("while building the new link panel")
        return real(rt)

    monkeypatch.setattr(widgets, "PeerLinkPanel", broken)
    before = list(LIVE)  # strong references: no id of theirs can be reused meanwhile
    if exc is KeyboardInterrupt:
        with pytest.raises(KeyboardInterrupt):
            dash.preset.value = "atlas300i-duo"
        assert "interrupted; still on atlas800t-a2" in dash.message
    else:
        dash.preset.value = "atlas300i-duo"
        assert dash.message.startswith("cannot switch to 'atlas300i-duo': RuntimeError")
    assert dash.rt is old and not old.closed and dash.preset.value == "atlas800t-a2"
    assert dash.links is not None and dash.links.rt is old
    newest = [sim for sim in LIVE if not any(sim is old for old in before)]
    # the new one was closed
    assert newest and all(sim.simulator.ledger_is_empty() for sim in newest)
    dash.close()
    assert old.closed


# ------------------------------------------------------------------------------------ helpers
@pytest.fixture(autouse=True)
def _no_backend_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start every test without the backend variables (the root conftest sets some)."""
    for name in (ENV_BACKEND, ENV_PRESET, ENV_SEED):
        monkeypatch.delenv(name, raising=False)


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


def test_memoized_copy_still_checks_its_arguments():
    acl = simulated_acl("atlas800t-a2")
    assert acl.init() == 0
    ctx = {}
    for dev in (1, 0):
        assert acl.rt.set_device(dev) == 0
        ctx[dev], _ = acl.rt.get_context()
    acl.rt.set_context(ctx[1])
    dst, _ = acl.rt.malloc(1 << 20, 0)
    assert acl.rt.device_enable_peer_access(0, 0) == 0
    acl.rt.set_context(ctx[0])
    src, _ = acl.rt.malloc(1 << 20, 0)
    assert acl.rt.device_enable_peer_access(1, 0) == 0
    stream, _ = acl.rt.create_stream()
    args = (dst, 1 << 20, src, 4096, 3, stream)
    for _ in range(3):
        assert acl.rt.memcpy_async(*args) == 0
    with pytest.raises(TypeError):
        acl.rt.memcpy_async(float(dst), 1 << 20, src, 4096, 3, stream)
    with pytest.raises(TypeError):
        acl.rt.memcpy_async(dst, 1 << 20, src, 4096.0, 3, stream)
    with pytest.raises(TypeError, match="an integer is required"):
        acl.rt.memcpy_async(dst, 1 << 20, [src], 4096, 3, stream)
    acl.rt.set_context(ctx[1])  # another current device: the stream belongs to device 0
    assert acl.rt.memcpy_async(*args) == C.ACL_ERROR_RT_STREAM_CONTEXT
    acl.rt.set_context(ctx[0])
    assert acl.rt.memcpy_async(*args) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert acl.rt.destroy_stream(stream) == 0
    assert acl.rt.memcpy_async(*args) == C.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.free(dst) == 0
    assert acl.rt.memcpy_async(dst, 1 << 20, src, 4096, 3, 0) == C.ACL_ERROR_RT_PARAM_INVALID
    assert acl.call_counts["rt.memcpy_async"] == 10
    # leave nothing behind
    assert acl.rt.free(src) == 0
    assert acl.rt.device_disable_peer_access(1) == 0
    acl.rt.set_context(ctx[1])
    assert acl.rt.device_disable_peer_access(0) == 0
    assert acl.rt.reset_device(0) == 0
    assert acl.rt.reset_device(1) == 0
    assert acl.finalize() == 0
    assert acl.simulator.ledger_is_empty()


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


KIB_2 = 1024


D2D_2 = 3


WRONG = [(1.0, "float"), ("1", "str"), (None, "NoneType"), (np.int64(1), "int64"), ([1], "list")]


POSITIONS = [(name, pos) for name, labels in RT_ARGS.items() for pos in range(len(labels))]


# ------------------------------------------------------------------ declared formats
@pytest.mark.parametrize(("name", "pos"), POSITIONS)
@pytest.mark.parametrize(("bad", "type_name"), WRONG)
def test_a_wrong_type_raises_the_same_type_error_as_before(
    name: str, pos: int, bad: object, type_name: str
) -> None:
    acl = simulated_acl("atlas800t-a2")  # not even initialized: the type check comes first
    args: list[Any] = [0] * len(RT_ARGS[name])
    args[pos] = bad
    with pytest.raises(TypeError) as info:
        getattr(acl.rt, name)(*args)
    assert str(info.value) == f"{RT_ARGS[name][pos]}: an integer is required (got type {type_name})"
    assert acl.call_counts == {f"rt.{name}": 1}  # counted, as every call was
    assert acl.simulator.ledger_is_empty() and acl.simulator.host_time_us == 0.0


def test_the_first_wrong_argument_is_the_one_reported() -> None:
    acl = simulated_acl("atlas800t-a2")
    with pytest.raises(TypeError, match=r"^device_enable_peer_access: .* \(got type str\)$"):
        acl.rt.device_enable_peer_access("1", 0.5)
    with pytest.raises(TypeError, match=r"^flags: .* \(got type float\)$"):
        acl.rt.device_enable_peer_access(1, 0.5)


def test_top_level_and_util_calls_keep_their_messages() -> None:
    acl = simulated_acl("atlas800t-a2")
    with pytest.raises(TypeError, match=r"^init\(\): argument 1 must be str$"):
        acl.init(5)
    for fn in (acl.util.bytes_to_ptr, acl.util.numpy_to_ptr):
        with pytest.raises(TypeError, match=r"^bytes_to_ptr\(\): a bytes-like object is required$"):
            fn(12)
    with pytest.raises(TypeError, match=r"^ptr_to_bytes: an integer is .* \(got type float\)$"):
        acl.util.ptr_to_bytes(1.0, 4)
    # top level and util: not counted
    assert acl.call_counts == {} and not acl.simulator.ledger()["initialized"]
    assert acl.init(None) == 0 and acl.finalize() == 0


@pytest.mark.parametrize(
    ("call", "args", "message"),
    [
        ("set_device", (0, 1), "set_device() takes exactly 1 argument (2 given)"),
        ("memcpy", (1, 2), "memcpy() takes exactly 5 arguments (2 given)"),
        ("get_device", (0,), "get_device() takes no arguments (1 given)"),
    ],
)
def test_a_wrong_number_of_arguments_is_a_type_error(
    call: str, args: tuple[int, ...], message: str
) -> None:
    acl = simulated_acl("atlas800t-a2")
    with pytest.raises(TypeError) as info:
        getattr(acl.rt, call)(*args)
    assert str(info.value) == message
    with pytest.raises(TypeError, match=r"^init\(\) takes at most 1 argument \(2 given\)$"):
        acl.init("a", "b")


# ------------------------------------------------------------------ routes
@contextlib.contextmanager
def copy_setup(acl: SimulatedACL) -> Iterator[tuple[int, int, int]]:
    """Devices 0 and 1 set with peer access both ways, a buffer on each, a stream on
    device 0 (current); (src, dst, stream), all released afterwards."""
    rt = acl.rt
    assert acl.init() == 0
    for dev, peer in ((1, 0), (0, 1)):
        assert rt.set_device(dev) == 0 and rt.device_enable_peer_access(peer, 0) == 0
    (src, _), (dst, _) = rt.malloc(64 * KIB_2, 0), rt.malloc(64 * KIB_2, 0)
    stream, _ = rt.create_stream()
    yield src, dst, stream
    assert rt.synchronize_device() == 0 and rt.destroy_stream(stream) == 0
    assert rt.free(src) == 0 and rt.free(dst) == 0
    for dev, peer in ((0, 1), (1, 0)):
        assert rt.set_device(dev) == 0 and rt.device_disable_peer_access(peer) == 0
        assert rt.reset_device(dev) == 0 and rt.reset_device(dev) == 0
    assert acl.finalize() == 0 and acl.simulator.ledger_is_empty(), acl.simulator.ledger()


def test_the_fast_path_and_the_checked_paths_share_one_route() -> None:
    acl = simulated_acl("atlas800t-a2")
    with copy_setup(acl) as (src, dst, stream):
        args = (dst, 64 * KIB_2, src, 4 * KIB_2, D2D_2, stream)
        key = (dst, 64 * KIB_2, src, 4 * KIB_2, D2D_2, 0)  # ... and the current device
        assert acl.rt.memcpy_async(*args) == 0  # the checked path: routes, keeps the copy
        route = acl._router.cache[key]
        assert isinstance(route, Route) and acl._copies.plans[args].route is route
        for _ in range(5):
            assert acl.rt.memcpy_async(*args) == 0  # the fast path
        assert acl._copies.plans[args].route is route and acl._router.cache[key] is route
        assert acl.rt.memcpy(*args[:5]) == 0  # the synchronous copy resolves to it too
        assert acl._router.resolve(*key) == (route, 0)
        assert (
            route.devices,
            route.link,
            route.resources,
            route.staged,
            route.count,
            route.nbytes,
            route.memo_able,
        ) == ((0, 0), None, (("hbm", 0),), False, 4 * KIB_2, 4 * KIB_2, True)
        with pytest.raises(dataclasses.FrozenInstanceError):
            route.count = 1  # type: ignore[misc]
        assert acl.rt.memcpy_async(*args[:5], 0) == 0  # the default stream: another copy
        assert acl._copies.plans[(*args[:5], 0)].route is route  # ... over the same route


def test_a_device_to_device_route_names_its_link() -> None:
    acl = simulated_acl("atlas800t-a3")
    with copy_setup(acl) as (src, _dst, stream):
        assert acl.rt.set_context(CONTEXT_BASE + 1) == 0
        (far, _), _ = acl.rt.malloc(64 * KIB_2, 0), acl.rt.set_context(CONTEXT_BASE + 0)
        args = (far, 64 * KIB_2, src, 8 * KIB_2, D2D_2, stream)
        assert acl.rt.memcpy_async(*args) == 0 and acl.rt.memcpy_async(*args) == 0
        route = acl._copies.plans[args].route
        assert route.link == (0, 1) and route.devices == (0, 1) and route.device == 0
        assert route.resources[0] == ("link", 0, 1) and not route.staged
        assert acl.rt.free(far) == 0


# ------------------------------------------------------------------ acl.simulator
DOCUMENTED = {
    "run_program",
    "repeat_copy",
    "topology",
    "seed",
    "host_time_us",
    "ledger",
    "ledger_is_empty",
    "call_counts",
    "implicit_releases",
    "shared_ledger",
    "reseed_jitter",
    "host_time_ns",
    "begin_point",
    "faults",
    "app_log_path",
    "copy_limit",
}


def _factors(acl, key: str | None, before: int) -> list[float]:
    """The time factors of 4 copies after ``before`` others (and a reseed to key)."""
    eng = acl._engine
    for _ in range(before):
        eng._factor()  # one draw each
    if key is not None:
        acl.simulator.reseed_jitter(key)
    return [eng._factor() for _ in range(4)]


def test_reseed_jitter_makes_the_draws_depend_on_seed_and_key_only() -> None:
    def fresh(seed: int = 3):
        return simulated_acl("atlas800t-a2", seed=seed, jitter=0.05)

    a = _factors(fresh(), "pair/uni/on/p2p/0-1/4096", before=0)
    assert a == _factors(fresh(), "pair/uni/on/p2p/0-1/4096", before=7)  # history ignored
    assert len(set(a)) == 4 and a != _factors(fresh(), "pair/uni/on/p2p/0-1/8192", before=0)
    assert a != _factors(fresh(seed=4), "pair/uni/on/p2p/0-1/4096", before=0)
    assert _factors(fresh(), None, 0) != _factors(fresh(), None, 7)  # without: call order


def test_the_simulator_interface_is_what_is_documented() -> None:
    acl = simulated_acl("atlas800t-a3", seed=7)
    sim = acl.simulator
    assert isinstance(sim, Simulator)
    assert {name for name in dir(sim) if not name.startswith("_")} == DOCUMENTED
    for name in DOCUMENTED:
        assert f"``{name}" in sim_pkg.__doc__, name  # documented in the package docstring
    assert sim.topology is acl.topology and sim.topology.name == "atlas800t-a3"
    assert sim.seed == 7 and sim.host_time_us == 0.0 and sim.ledger_is_empty()
    assert isinstance(sim.call_counts, MappingProxyType) and dict(sim.call_counts) == {}
    assert acl.init() == 0 and acl.rt.set_device(0) == 0 and acl.rt.set_device(0) == 0
    assert dict(sim.call_counts) == {"rt.set_device": 2}  # a live view
    with pytest.raises(TypeError):
        sim.call_counts["rt.set_device"] = 0  # type: ignore[index]
    assert sim.host_time_us > 200_000.0
    assert sim.ledger()["devices_set"] == {0: 2}
    assert not sim.ledger_is_empty()
    assert acl.finalize() == 0
    assert sim.implicit_releases == ["device 0 reset by aclFinalize"] == acl.implicit_releases
    sim.implicit_releases.clear()  # a copy: the simulator's own list is untouched
    assert sim.ledger()["implicit_releases"] == ["device 0 reset by aclFinalize"]
    for name in DOCUMENTED:
        with pytest.raises(AttributeError):
            setattr(sim, name, None)  # read-only
    acl.implicit_releases.clear()  # (the test suite checks every simulator's ledger)


def test_the_compatibility_names_are_gone() -> None:
    """A 0.x package keeps one way to each extra: ``acl.simulator`` (no ``sim.runtime``
    module, no ledger or clock directly on the ``acl`` object)."""
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("ascend_p2p_lab.sim.runtime")
    acl = simulated_acl("atlas800t-a2", seed=2)
    for name in (
        "ledger",
        "ledger_is_empty",
        "initialized",
        "device_refs",
        "host_time_us",
        "faults",
        "resident_bytes",
    ):
        assert not hasattr(acl, name), name
    assert (acl.seed, acl.call_counts) == (2, {})
    assert SimulatedACL._device_can_access_peer(acl, 0, 1) == (0, C.ACL_ERROR_UNINITIALIZE)


def test_the_shim_exposes_the_simulator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(shim_path()))
    monkeypatch.setenv("ASCEND_P2P_LAB_PRESET", "atlas300i-duo")
    monkeypatch.setenv("ASCEND_P2P_LAB_SEED", "4")
    monkeypatch.delitem(sys.modules, "acl", raising=False)
    try:
        acl = importlib.import_module("acl")
        assert acl.__simulated__ is True and acl.simulator is acl.__simulator__.simulator
        assert (acl.simulator.topology.name, acl.simulator.seed) == ("atlas300i-duo", 4)
    finally:
        sys.modules.pop("acl", None)


# ------------------------------------------------------------------ size
SIM = Path(sim_pkg.__file__).parent


MODULES = sorted(SIM.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(SIM)) for p in MODULES])
def test_sim_modules_and_functions_stay_small(path: Path) -> None:
    """No sim module or function over the size limits (helpers.too_long; the formats
    table is data)."""
    assert not too_long(path.read_text())


# ---------------------------------------------------------------------- the fluid model
FLUID_LATE = """
from ascend_p2p_lab.sim.engine import Engine
eng = Engine(capacity={("link", 0, 1): 26000.0})
eng.host_us = 1e13  # ~116 virtual days: a 1-byte copy ends within the clock's rounding
a, b = eng.new_stream(0), eng.new_stream(0)
x = eng.enqueue_copy(a, 1, (("link", 0, 1),), latency_us=0.0)
y = eng.enqueue_copy(b, 1 << 20, (("link", 0, 1),), latency_us=0.0)
eng.resolve()
print(x.end - 1e13, y.end - 1e13)
"""


def test_the_fluid_model_ends_a_tiny_copy_late_in_virtual_time() -> None:
    """A copy whose remaining time is below the clock's resolution finished; the loop
    used to spin for ever (run in a child so that a regression fails, not hangs)."""
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", FLUID_LATE], capture_output=True, text=True, timeout=60, check=True
    ).stdout.split()
    tiny, big = map(float, out)
    assert tiny == 0.0
    assert big == pytest.approx((1 << 20) / 26000.0, rel=1e-4)  # the link alone afterwards


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
    assert load_run(tmp_path / "r").error_kind.isna().all()
    for sim in drain_tracked():  # everything but the session itself was released
        ledger = sim.simulator.ledger()
        assert ledger["initialized"] and not ledger["devices_set"]
        assert not (ledger["device_buffers"] or ledger["streams"] or ledger["peer_refs"])


# ------------------------------------------------------------------ blocking copies
def _blocking_script(general: bool) -> list:
    """Synchronous copies and memsets (verification reads, clears), some while async work
    is pending; with ``general``, an idle stream stays marked busy so that every blocking
    copy goes through the engine's resolve instead of its direct path."""
    acl = simulated_acl("atlas800t-a2", seed=11)
    rt, sim, eng = acl.rt, acl.simulator, acl._engine
    acl.init(), rt.set_device(0), rt.set_device(1)
    rt.device_enable_peer_access(0, 0)
    rt.set_context(CONTEXT_BASE + 0), rt.device_enable_peer_access(1, 0)
    size = 2 * CHUNK
    (a, _), (h, _), (s, _) = rt.malloc(size, 0), rt.malloc_host(size), rt.create_stream()
    rt.set_context(CONTEXT_BASE + 1)
    (b, _) = rt.malloc(size, 0)
    idle = eng.new_stream(0)
    out = []
    for r in range(3):
        rt.set_context(CONTEXT_BASE + r % 2)
        if general:
            eng._busy.add(idle)
        steps = [
            (rt.memcpy, h, size, a, 4096 << r, 2),
            (rt.memcpy, a + 8192, size - 8192, h, 100 + r, 1),
            (rt.memcpy, b, size, a, CHUNK, 3),
            (rt.memcpy, h, size, h + 7, 999, 0),
            (rt.memset, a, size, r, 3 * 4096),
            (rt.memset, h, size, 9, CHUNK),
        ]
        if r == 1:  # async work pending: both runs resolve it with the blocking copy
            rt.set_context(CONTEXT_BASE + 0)
            steps.insert(2, (rt.memcpy_async, b, size, a, size, 3, s))
        for fn, *args in steps:
            out.append(
                (fn.__name__, fn(*args), sim.host_time_us, len(acl._streams.streams[s].pending))
            )
    rt.set_context(CONTEXT_BASE + 0)
    out.append((rt.synchronize_stream(s), sim.host_time_us, acl.util.ptr_to_bytes(h, 64)))
    eng._busy.discard(idle)
    eng.drop_stream(idle)
    rt.destroy_stream(s), rt.free(a), rt.free(b), rt.free_host(h)
    rt.device_disable_peer_access(1), rt.set_context(CONTEXT_BASE + 1)
    rt.device_disable_peer_access(0), rt.reset_device(0), rt.reset_device(1), acl.finalize()
    return out


def test_blocking_copies_take_the_times_the_engine_resolve_gives():
    direct, general = _blocking_script(False), _blocking_script(True)
    assert direct == general
    assert len({step[2] for step in direct[:-1]}) == len(direct) - 1  # each copy took time
    # the blocking copy after the async one resolved it (they share the link), as the
    # general path does: the direct path is only for an engine with nothing pending
    queued = [i for i, step in enumerate(direct) if step[0] == "memcpy_async"]
    assert [direct[i][3] for i in queued] == [1] and direct[queued[0] + 1][3] == 0


# ------------------------------------------------------------------ calls without faults
def _timed_calls(faults: list) -> list:
    """The calls a sample makes, with the host clock after each: with ``faults``, every
    call takes its faults branch (fault(), host() with the slow_host factor)."""
    acl = simulated_acl("atlas800t-a2", seed=4, faults=faults)
    rt, sim = acl.rt, acl.simulator
    acl.init(), rt.set_device(0)
    (a, _), (b, _), (h, _) = rt.malloc(CHUNK, 0), rt.malloc(CHUNK, 0), rt.malloc_host(CHUNK)
    (s, _), (e0, _), (e1, _) = rt.create_stream(), rt.create_event(), rt.create_event()
    out = []
    for n in (1, 5, 40):
        steps = [
            (rt.record_event, e0, s),
            *[(rt.memcpy_async, b, CHUNK, a, 4096 * n, 3, s)] * n,
            (rt.record_event, e1, s),
            (rt.synchronize_event, e1),
            (rt.event_elapsed_time, e0, e1),
            (rt.memcpy_async, b, CHUNK, a, 64, 3, s),
            (rt.synchronize_stream, s),
            (rt.memcpy, h, CHUNK, b, 4096, 2),
            (rt.memset, b, CHUNK, 0, 4096 * n),
            (rt.synchronize_device,),
        ]
        for fn, *args in steps:
            out.append((fn.__name__, fn(*args), sim.host_time_us))
    rt.destroy_event(e0), rt.destroy_event(e1), rt.destroy_stream(s)
    rt.free(a), rt.free(b), rt.free_host(h), rt.reset_device(0), acl.finalize()
    return out


def test_calls_without_faults_charge_what_their_faults_branch_charges():
    """A slow_host fault of factor 1.0 sends every call through fault() and host() and
    changes nothing: the shortcuts taken without faults must give the same clock."""
    plain = _timed_calls([])
    assert plain == _timed_calls([{"kind": "slow_host", "factor": 1.0}])
    assert all(step[1] in (0, (0, 0)) or step[1][1] == 0 for step in plain)
