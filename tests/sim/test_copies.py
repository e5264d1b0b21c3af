"""The simulated copies (sim/copies.py): argument checks in pyACL's order and codes,
the direction from the addresses, peer access as each preset's driver wants it, bytes that
really move, the host clock of a synchronous copy, a memoized copy that still checks."""

from __future__ import annotations

import random

import pytest
from simacl import (
    D2D,
    D2H,
    H2D,
    KIB,
    MIB,
    P2P,
    copy_setup,
    devices,
    finish,
    new_acl,
    ok,
    read_device,
    two_buffers,
)

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.sim import (
    simulated_acl,
)
from ascend_p2p_lab.sim.devices import CONTEXT_BASE
from ascend_p2p_lab.sim.faults import Fault


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


def test_keep_routed_keeps_a_copy_only_when_its_checks_are_known_to_pass() -> None:
    """``Copies.keep_routed`` keeps what a first ``memcpy_async`` would keep, without the
    call, only for plain int arguments, a count, no NULL, a stream of the current device
    and a copy that routes (cached, or routed now as the call would); anything else is
    left to the call (nothing kept), and a route that fails leaves no error text: the
    thread's latest error stays the one a call left."""
    acl = simulated_acl("atlas800t-a2")
    with copy_setup(acl) as (src, dst, stream):
        copies, rt = acl._copies, acl.rt
        args = (dst, 64 * KIB, src, 4 * KIB, D2D, stream)
        other, _ = rt.create_stream()  # (drops nothing the test needs: routes stay)
        assert rt.set_context(CONTEXT_BASE + 1) == 0
        far, _ = rt.create_stream()  # a stream of device 1
        assert rt.set_context(CONTEXT_BASE + 0) == 0
        refused = [
            (dst, 64 * KIB, src, 4 * KIB, D2D, far),  # another device's stream
            (dst, 64 * KIB, src, 0, D2D, stream),  # nothing to copy
            (dst, 64 * KIB, src, 4 * KIB, D2D, 0),  # the default stream
            (dst, 64 * KIB, src, 4 * KIB, D2D, 987654),  # no such stream
            (float(dst), 64 * KIB, src, 4 * KIB, D2D, stream),  # not a plain int
            (dst, 2 * KIB, src, 4 * KIB, D2D, stream),  # count above destMax: no route
            (dst, 64 * KIB, src, 4 * KIB, 9, stream),  # no such kind: no route
        ]
        assert rt.memcpy(dst, 64 * KIB, src, 4 * KIB, 7) != 0  # the latest error: a call's
        for bad in refused:
            assert copies.keep_routed(bad, 0) is None, bad
        assert "memcpy kind 7 invalid" in acl.get_recent_err_msg()
        assert copies.keep_routed(refused[-1], 0) is None
        assert acl.get_recent_err_msg() == ""  # none before, none after
        assert copies.keep_routed(args, 1) is None  # under device 1: not its stream
        assert not copies.plans and not acl._router.cache
        kept = copies.keep_routed(args, 0)  # routed now, as the call would route it
        assert kept is not None and copies.plans[args] is kept
        assert kept.route is acl._router.cache[(*args[:5], 0)]
        assert kept.route == acl._router._resolve(*args[:5], 0)[0]
        assert kept.stream is acl._streams.streams[stream]
        # kept before any copy wrote its destination: the repeat moves the bytes
        assert rt.memcpy_async(*args) == 0 and rt.synchronize_stream(stream) == 0
        region, src_region = acl._memory.space.get(dst), acl._memory.space.get(src)
        assert region.read(0, 4 * KIB) == src_region.read(0, 4 * KIB)
        assert region.last_copy is not None and kept.seen[0] is region.last_copy
        assert rt.destroy_stream(other) == 0 and rt.set_context(CONTEXT_BASE + 1) == 0
        assert rt.destroy_stream(far) == 0 and rt.set_context(CONTEXT_BASE + 0) == 0


@pytest.mark.parametrize("call", ["rt.memcpy", "rt.memcpy_async"])
def test_a_repeated_copy_meets_its_links_fault_at_its_nth_use_the_other_way_none(call: str) -> None:
    fault = Fault(kind="error", call=call, link=(1, 0), nth=3, code=C.ACL_ERROR_RT_SYS_DMA)
    acl = new_acl(faults=[fault])
    with devices(acl, 0, 1, peer=True) as ctx, two_buffers(acl, ctx, 4 * KIB) as (a, b):
        stream = ok(acl.rt.create_stream())

        def copy(dst: int, src: int) -> int:
            tail = (stream,) if call == "rt.memcpy_async" else ()
            return getattr(acl.rt, call[3:])(dst, 4 * KIB, src, 4 * KIB, D2D, *tail)

        # the first call checks, the repeats take the kept path: the third 1 -> 0 fails
        codes = [(copy(b, a), copy(a, b)) for _ in range(4)]  # (0 -> 1, 1 -> 0)
        assert codes == [(0, 0), (0, 0), (0, C.ACL_ERROR_RT_SYS_DMA), (0, 0)]
        ok(acl.rt.synchronize_stream(stream))
        ok(acl.rt.destroy_stream(stream))
    finish(acl)
