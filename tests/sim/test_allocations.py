"""The simulated allocations (sim/allocations.py): sparse device memory (a GiB costs no
RAM), capacity, memset, aclrtGetMemInfo per device and HBM only, the malloc policies'
page granularity."""

from __future__ import annotations

import numpy as np
import pytest
from simacl import (
    D2D,
    D2H,
    DDR,
    GIB,
    H2D,
    HBM,
    KIB,
    MIB,
    P2P,
    devices,
    finish,
    new_acl,
    ok,
    read_device,
    started,
    two_buffers,
)

from ascend_p2p_lab import codes as C


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
