"""The simulator's facade (sim.facade.SimulatedACL): how each pyACL call is bound, checked,
locked, counted and answered.

- pyACL's return convention: out-values first and ``ret`` last, as ints (an event's
  elapsed time as a C float). api_level="old" hides the calls of newer CANN releases and
  still runs the P2P sequence.
- The fast path: a repeated memcpy_async skips its checks until something changes.
  Another current device drops the copy plans and keeps the route; an allocation drops
  the routes. Arguments that only compare equal to ints are still refused.
- ``acl.rt.set_context``, ``record_event`` and ``stream_wait_event`` (like
  ``memcpy_async``) skip their checks when they repeat a successful call; every call not
  declared ``keeps_plans=True`` (``sim.part.pyacl``) drops what they keep. A script of good
  and bad calls (repeats, the wrong current device, a destroyed event, a reset device,
  equal non-int arguments, unhashable ones, faults) must give the same return values,
  messages, call counts, host clock and device times as the same script with everything
  kept dropped before each call (so that every call takes the checked path).
- Each call does what it declares: a call declared ``locked=False`` does not wait for the
  simulator's lock and every other call does; a locked ``acl.rt`` call counts itself; a
  call drops the kept plans unless it declares it keeps them. A checked call refuses a
  non-int or a wrong argument count as pyACL does.
- engine_for gives a shared limit's egress and ingress budgets to the engine unswapped.
- Ctrl-C inside a simulated call: the command line exits 130 and says so, and an
  interrupted sweep saves the rows measured so far, marked interrupted.

The wrong-type messages below are the ones the simulator gave before its calls declared
formats (each call checked its own arguments then); they are written out here, not read
from :mod:`ascend_p2p_lab.sim.formats`, so that a change of wording is noticed."""

from __future__ import annotations

import re
import struct
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import (
    KIB,
    _count_blocks,
)
from simacl import H2D, HBM, P2P, copy_setup, devices, finish, new_acl, ok, two_buffers

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.run import Run
from ascend_p2p_lab.sim import (
    NEWER_CALLS,
    SimulatedACL,
    simulated_acl,
)
from ascend_p2p_lab.sim.devices import CONTEXT_BASE
from ascend_p2p_lab.sim.facade import CALLS, engine_for
from ascend_p2p_lab.topology.presets import load_preset


def test_the_command_line_exits_130_after_ctrl_c_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ascend_p2p_lab.sim.facade import SimulatedACL

    real = SimulatedACL._device_can_access_peer
    seen = {"n": 0}

    def interrupted(self: SimulatedACL, *args: Any) -> Any:
        seen["n"] += 1
        if seen["n"] == 3:
            raise KeyboardInterrupt
        return real(self, *args)

    monkeypatch.setattr(SimulatedACL, "_device_can_access_peer", interrupted)
    assert main(["probe", "--backend", "sim"]) == 130
    assert capsys.readouterr().err.strip() == "ascend-p2p-lab: interrupted after 2 pairs"
    monkeypatch.undo()

    _count_blocks(monkeypatch, stop_after=1)  # Ctrl-C as the second block starts
    code = main(
        [
            "sweep",
            "--backend",
            "sim",
            "--pairs",
            "0-1,1-0,2-3",
            "--sizes",
            "4KiB",
            "--samples",
            "1",
            "--no-progress",
            "--out",
            str(tmp_path / "run"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 130 and "interrupted: the rows measured so far are kept" in out
    saved = Run.load(tmp_path / "run").frame()
    assert saved.attrs["run"]["interrupted"] is True
    assert set(zip(saved.src, saved.dst)) == {(0, 1)}


D2D = 3


# ------------------------------------------------------------------ routes


def test_the_fast_path_skips_the_checks_until_something_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked: list[tuple[int, ...]] = []
    real = SimulatedACL._memcpy_async  # the class says which part serves each call

    def counting(self: SimulatedACL, *args: Any) -> Any:
        checked.append(args)
        return real(self, *args)

    monkeypatch.setattr(SimulatedACL, "_memcpy_async", counting)
    acl = simulated_acl("atlas800t-a2")  # binds its calls now: the counting one
    with copy_setup(acl) as (src, dst, stream):
        args = (dst, 64 * KIB, src, 4 * KIB, D2D, stream)
        for _ in range(4):
            assert acl.rt.memcpy_async(*args) == 0
        assert checked == [args]  # once checked, then the fast path
        assert acl.call_counts["rt.memcpy_async"] == 4
        for equal_but_not_int in (float(dst), np.int64(dst)):
            with pytest.raises(TypeError, match=r"^memcpy_async: an integer is required"):
                acl.rt.memcpy_async(equal_but_not_int, *args[1:])
        route = acl._copies.plans[args].route
        assert acl.rt.set_device(1) == 0  # another current device: the checks decide
        assert acl.rt.memcpy_async(*args) == C.ACL_ERROR_RT_STREAM_CONTEXT
        assert not acl._copies.plans  # set_device dropped them; the route (memory
        assert acl._router.cache[(*args[:5], 0)] is route  # unchanged, device 0's) stays
        assert acl.rt.set_context(CONTEXT_BASE + 0) == 0 and acl.rt.reset_device(1) == 0
        assert acl.rt.memcpy_async(*args) == 0  # checked again, on the kept route
        assert acl._copies.plans[args].route is route
        (extra, _) = acl.rt.malloc(4 * KIB, 0)  # an allocation: every route afresh ...
        assert acl._router.cache == {} and acl.rt.free(extra) == 0
        assert acl.rt.memcpy_async(*args) == 0
        assert acl._copies.plans[args].route is not route
        assert acl._copies.plans[args].route == route  # ... to the same place
        assert len(checked) == 4  # wrong types never reach it: the format check is first


def f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


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


# ------------------------------------------------------------------ declared policy
def _bound(acl: SimulatedACL, name: str) -> Any:
    space, _, call = name.rpartition(".")
    return getattr(getattr(acl, space) if space else acl, call)


def test_the_facade_locks_as_each_call_declares() -> None:
    """While another thread holds the simulator's lock, a call declared ``locked=False``
    returns (here: its TypeError for too many arguments) and every other call waits.
    Planted: ``_bind`` ignoring ``locked`` (every call locked, or none)."""
    acl = simulated_acl("atlas800t-a2")
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with acl._lock:
            held.set()
            release.wait(30)

    def attempt(name: str) -> None:
        with pytest.raises(TypeError):
            _bound(acl, name)(*[0] * 9)

    threading.Thread(target=holder).start()
    assert held.wait(10)
    calls = {name: threading.Thread(target=attempt, args=(name,)) for name in CALLS}
    for t in calls.values():
        t.start()
    try:
        for name, call in CALLS.items():
            if not call.locked:
                calls[name].join(10)
        time.sleep(0.1)
        returned = {name for name, t in calls.items() if not t.is_alive()}
        assert returned == {name for name, call in CALLS.items() if not call.locked}
    finally:
        release.set()
        for t in calls.values():
            t.join(10)


def test_the_facade_counts_and_drops_the_plans_as_each_call_declares() -> None:
    """Each call (made with too many arguments: its TypeError) counts itself if it is a
    locked ``acl.rt`` call, and drops the kept plans unless it declares it keeps them.
    Planted: ``_bind`` passing no ``clear`` (or always one), counting every call."""
    acl = simulated_acl("atlas800t-a2")
    for name, call in CALLS.items():
        before, cleared = dict(acl.call_counts), acl._copies.cleared
        with pytest.raises(TypeError):
            _bound(acl, name)(*[0] * 9)
        counted = call.locked and name.startswith("rt.")
        assert acl.call_counts == {**before, **({name: before.get(name, 0) + 1} if counted else {})}
        assert acl._copies.cleared - cleared == (0 if call.keeps_plans or not call.locked else 1)


def test_a_checked_call_refuses_a_non_int_or_a_wrong_count_as_pyacl_does() -> None:
    """Also on the short path of a call of plain ints that keeps the copy plans
    (aclrtSetContext): a float, a string or another argument count is a TypeError."""
    acl = simulated_acl("atlas800t-a2")
    assert acl.init() == 0 and acl.rt.set_device(0) == 0
    ctx, ret = acl.rt.get_context()
    assert ret == 0
    for call in (acl.rt.set_device, acl.rt.set_context):
        for args, said in (
            ((0.5,), "an integer is required (got type float)"),
            (("0",), "an integer is required (got type str)"),
            ((), "takes exactly 1 argument (0 given)"),
            ((ctx, 1), "takes exactly 1 argument (2 given)"),
        ):
            with pytest.raises(TypeError, match=re.escape(said)):
                call(*args)
    assert acl.rt.set_context(ctx) == 0
    assert acl.rt.reset_device(0) == 0 and acl.finalize() == 0


def test_a_shared_limits_egress_and_ingress_budgets_reach_the_engine_unswapped() -> None:
    topo = load_preset("atlas800t-a3")
    limit = replace(topo.shared[0], egress_GBps=100.0, ingress_GBps=250.0, both_GBps=None)
    engine = engine_for(replace(topo, shared=(limit,)), jitter=0.0, seed=0)
    for g in range(len(limit.groups)):
        assert engine.capacity[("shared", 0, "out", g)] == 100.0 * 1e3
        assert engine.capacity[("shared", 0, "in", g)] == 250.0 * 1e3  # bytes per microsecond
        assert ("shared", 0, "both", g) not in engine.capacity
