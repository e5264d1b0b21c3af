"""Faults as the simulator injects them (sim/injector.py): an error at the nth call or on
one link, a degraded link, a lost device, exhausted memory, a slow host; and calls without
faults charge what their faults branch charges."""

from __future__ import annotations

import pytest
from simacl import (
    D2D,
    GIB,
    KIB,
    MIB,
    P2P,
    devices,
    finish,
    finish_timed,
    link_ms,
    new_acl,
    ok,
    start_timed,
    two_buffers,
)

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.sim import (
    Fault,
    simulated_acl,
)
from ascend_p2p_lab.sim.memory import CHUNK


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
