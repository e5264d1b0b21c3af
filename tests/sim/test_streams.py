"""ascend_p2p_lab.sim.streams: the simulated streams (times as pyACL returns them)."""

from __future__ import annotations

import pytest
from simacl import (
    H2D,
    MIB,
    P2P,
    devices,
    finish,
    new_acl,
    ok,
)

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.sim.faults import Fault


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


def test_synchronize_event_returns_its_fault_on_its_events_device_only() -> None:
    fault = Fault(kind="error", call="rt.synchronize_event", device=1, code=C.ACL_ERROR_RT_SYS_DMA)
    acl = new_acl(faults=[fault])
    with devices(acl, 0, 1) as ctx:
        event0 = ok(acl.rt.create_event())  # on device 0
        ok(acl.rt.set_context(ctx[1]))
        event1 = ok(acl.rt.create_event())  # on device 1
        stream1 = ok(acl.rt.create_stream())
        ok(acl.rt.record_event(event1, stream1))
        ok(acl.rt.synchronize_event(event0))  # device 0 has no fault
        assert acl.rt.synchronize_event(event1) == C.ACL_ERROR_RT_SYS_DMA
        for e in (event0, event1):
            ok(acl.rt.destroy_event(e))
        ok(acl.rt.destroy_stream(stream1))
    finish(acl)


def test_synchronizing_waits_for_the_copy_then_charges_the_hosts_return() -> None:
    acl = new_acl()
    host = acl.topology.host
    n = 64 * MIB
    with devices(acl, 0):
        dev, src = ok(acl.rt.malloc(n, P2P)), ok(acl.rt.malloc_host(n))
        stream = ok(acl.rt.create_stream())
        e0, e1 = ok(acl.rt.create_event()), ok(acl.rt.create_event())
        ok(acl.rt.record_event(e0, stream))
        ok(acl.rt.memcpy_async(dev, n, src, n, H2D, stream))
        ok(acl.rt.record_event(e1, stream))
        t0 = acl.simulator.host_time_us
        ok(acl.rt.synchronize_stream(stream))  # waits for the 64 MiB, then returns
        transfer = n / (host.h2d_GBps * 1e3)
        assert acl.simulator.host_time_us - t0 >= transfer + host.sync_return_us
        t1 = acl.simulator.host_time_us
        ok(acl.rt.synchronize_event(e1))  # already done: the call and the return only
        assert acl.simulator.host_time_us - t1 == pytest.approx(1.0 + host.sync_return_us)
        t2 = acl.simulator.host_time_us
        assert ok(acl.rt.event_elapsed_time(e0, e1)) >= transfer / 1e3
        assert acl.simulator.host_time_us - t2 == pytest.approx(1.0)  # the call's own cost
        for e in (e0, e1):
            ok(acl.rt.destroy_event(e))
        ok(acl.rt.destroy_stream(stream))
        ok(acl.rt.free_host(src))
        ok(acl.rt.free(dev))
    finish(acl)
