"""ascend_p2p_lab.sim.dielinks: the A3's choice of link between the two dies of a card
(aclrtReserveMemAddress, aclrtMemMapSelectedLink, aclrtUnmapMem, aclrtReleaseMemAddress)
and the copies through a mapping, on the engine's twin-die HCCS lane.

Fixtures are asymmetric: card 1 (dies 2 and 3), a mapping made from die 3 of memory on
die 2, one direction of one lane degraded, so a swapped pair or a lane taken for the
other cannot pass."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.sim import simulated_acl
from ascend_p2p_lab.sim.dielinks import LinkedRegion, lane_capacity
from ascend_p2p_lab.sim.faults import Fault
from ascend_p2p_lab.topology import load_preset

A2, A3 = "atlas800t-a2", "atlas800t-a3"
MiB = 1 << 20


@pytest.fixture
def opened() -> Iterator[Callable[..., Any]]:
    """Opens simulators; at the end frees what the test left (mappings, ranges, buffers,
    devices) through the calls themselves and finalizes, so the ledger is checked empty."""
    made: list[Any] = []

    def open_acl(preset: str = A3, **kw: Any) -> Any:
        acl = simulated_acl(preset, jitter=0.0, **kw)
        assert acl.init() == 0
        made.append(acl)
        return acl

    yield open_acl
    for acl in made:
        links = acl._dielinks
        for va in list(links.mapped):
            assert acl.rt.unmap_mem(va) == 0
        for va in list(links.reserved):
            assert acl.rt.release_mem_address(va) == 0
        for base in list(acl._memory.device_allocs):
            assert acl.rt.free(base) == 0
        for base in list(acl._memory.host_allocs):
            assert acl.rt.free_host(base) == 0
        for dev, refs in list(acl._devices.refs.items()):
            for _ in range(refs):
                assert acl.rt.reset_device(dev) == 0
        assert acl.finalize() == 0


def _mapped(acl: Any, owner: int, by: int, size: int, link: int) -> tuple[int, int, int]:
    """(buffer on owner, its mapping from by, ret of the map)."""
    assert acl.rt.set_device(owner) == 0
    buf, ret = acl.rt.malloc(size, 0)
    assert ret == 0
    assert acl.rt.set_device(by) == 0
    va, ret = acl.rt.reserve_mem_address(size, 0, 0, 0)
    assert ret == 0
    return buf, va, acl.rt.mem_map_selected_link(va, size, buf, link)


def _copy_us(acl: Any, dst: int, src: int, size: int, by: int) -> float:
    """Device time of one async copy issued on a stream of device by."""
    assert acl.rt.set_device(by) == 0
    stream, _ = acl.rt.create_stream()
    start, _ = acl.rt.create_event()
    end, _ = acl.rt.create_event()
    assert acl.rt.record_event(start, stream) == 0
    assert acl.rt.memcpy_async(dst, size, src, size, 3, stream) == 0
    assert acl.rt.record_event(end, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    ms, ret = acl.rt.event_elapsed_time(start, end)
    assert ret == 0
    for ev in (start, end):
        assert acl.rt.destroy_event(ev) == 0
    assert acl.rt.destroy_stream(stream) == 0
    return ms * 1000.0


def test_the_a3_preset_has_an_hccs_lane_between_twin_dies_only() -> None:
    a3 = load_preset(A3)
    assert a3.die_hccs is not None and a3.die_hccs.bandwidth_GBps == 127.0
    assert a3.twin_dies(2, 3) and a3.twin_dies(3, 2) and not a3.twin_dies(2, 4)
    assert a3.die_link_class(2, 3, "sio").name == "SIO"
    assert a3.die_link_class(2, 4, "hccs") is None
    assert load_preset(A2).die_hccs is None and not load_preset(A2).twin_dies(0, 1)
    lanes = lane_capacity(a3)
    assert len(lanes) == 16 and ("lane", 3, 2) in lanes and ("lane", 2, 4) not in lanes
    assert lane_capacity(load_preset(A2)) == {}


def test_a_mapping_over_hccs_copies_at_the_lanes_rate_and_sio_at_sios(
    opened: Callable[..., Any],
) -> None:
    acl = opened()
    size = 256 * MiB
    far, hccs_va, ret = _mapped(acl, owner=2, by=3, size=size, link=1)
    assert ret == 0
    _, sio_va, ret = _mapped(acl, owner=2, by=3, size=size, link=0)
    assert ret == 0
    assert acl.rt.set_device(3) == 0
    near, _ = acl.rt.malloc(size, 0)
    gbps = {}
    for name, src in (("direct", far), ("sio", sio_va), ("hccs", hccs_va)):
        gbps[name] = size / (_copy_us(acl, near, src, size, by=3) * 1e3)  # a pull 2 -> 3
    assert gbps["direct"] == pytest.approx(gbps["sio"])  # SIO is every address's path
    assert gbps["sio"] == pytest.approx(190.0, rel=0.01)
    assert gbps["hccs"] == pytest.approx(127.0, rel=0.01)


def test_the_bytes_arrive_through_the_mapping_and_writes_land_in_the_buffer(
    opened: Callable[..., Any],
) -> None:
    acl = opened()
    far, va, ret = _mapped(acl, owner=2, by=3, size=MiB, link=1)
    assert ret == 0
    data = bytes(range(256)) * 16
    host = acl.util.bytes_to_ptr(data)
    assert acl.rt.memcpy(va + 4096, MiB - 4096, host, len(data), 1) == 0  # H2D via the view
    got, ret = acl.rt.malloc_host(len(data))
    assert acl.rt.memcpy(got, len(data), far + 4096, len(data), 2) == 0
    assert acl.util.ptr_to_bytes(got, len(data)) == data
    region = acl._memory.space.find(va, 1)[0]
    assert isinstance(region, LinkedRegion) and region.die_link == "hccs" and region.mapper == 3


@pytest.mark.parametrize(
    ("preset", "owner", "by", "code"),
    [
        (A2, 1, 0, C.ACL_ERROR_RT_FEATURE_NOT_SUPPORT),  # no choice on the A2
        (A3, 4, 3, C.ACL_ERROR_RT_FEATURE_NOT_SUPPORT),  # dies of two cards
        (A3, 2, 3, 0),
    ],
)
def test_the_choice_is_refused_off_the_a3_and_off_twin_dies(
    opened: Callable[..., Any], preset: str, owner: int, by: int, code: int
) -> None:
    acl = opened(preset)
    _buf, _va, ret = _mapped(acl, owner, by, MiB, link=1)
    assert ret == code
    if code:
        assert "die" in acl.get_recent_err_msg() or "card" in acl.get_recent_err_msg()


def test_bad_arguments_get_the_runtimes_invalid_parameter_code(opened: Callable[..., Any]) -> None:
    acl = opened()
    buf, va, ret = _mapped(acl, owner=2, by=3, size=MiB, link=1)
    assert ret == 0
    bad = C.ACL_ERROR_INVALID_PARAM
    assert acl.rt.mem_map_selected_link(va, MiB, buf, 1) == bad  # mapped already
    other, _ = acl.rt.reserve_mem_address(MiB, 0, 0, 0)
    assert acl.rt.mem_map_selected_link(other, MiB, buf, 2) == bad  # no link 2
    assert acl.rt.mem_map_selected_link(other, 2 * MiB, buf, 1) == bad  # larger than reserved
    assert acl.rt.mem_map_selected_link(other + 64, MiB, buf, 1) == bad  # not a reserved base
    assert acl.rt.mem_map_selected_link(other, MiB, buf + 4096, 1) == bad  # past the buffer
    assert acl.rt.reserve_mem_address(0, 0, 0, 0) == (0, bad)
    assert acl.rt.release_mem_address(va) == C.ACL_ERROR_RT_PARAM_INVALID  # still mapped
    assert acl.rt.unmap_mem(va) == 0 and acl.rt.unmap_mem(va) == bad
    assert acl.rt.release_mem_address(va) == 0 and acl.rt.release_mem_address(va) == bad
    assert acl.rt.release_mem_address(other) == 0


def test_freeing_the_memory_drops_its_mappings(opened: Callable[..., Any]) -> None:
    acl = opened()
    buf, va, ret = _mapped(acl, owner=2, by=3, size=MiB, link=1)
    assert ret == 0 and acl.rt.free(buf) == 0
    assert acl._memory.space.find(va, 1) is None
    assert acl.rt.unmap_mem(va) == C.ACL_ERROR_INVALID_PARAM  # already gone with the buffer
    assert acl.rt.release_mem_address(va) == 0


def test_a_degraded_hccs_lane_slows_that_lane_one_way_and_nothing_else(
    opened: Callable[..., Any],
) -> None:
    fault = {"kind": "degrade", "link": [2, 3], "lane": "hccs", "factor": 0.5}
    size = 64 * MiB

    def times(acl: Any) -> list[float]:
        far, hccs_va, _ = _mapped(acl, owner=2, by=3, size=size, link=1)
        _back, back_va, _ = _mapped(acl, owner=3, by=2, size=size, link=1)
        assert acl.rt.set_device(3) == 0
        near3, _ = acl.rt.malloc(size, 0)
        assert acl.rt.set_device(2) == 0
        near2, _ = acl.rt.malloc(size, 0)
        return [
            _copy_us(acl, near3, hccs_va, size, by=3),  # 2 -> 3 over the HCCS lane
            _copy_us(acl, near3, far, size, by=3),  # 2 -> 3 over SIO
            _copy_us(acl, near2, back_va, size, by=2),  # 3 -> 2 over the HCCS lane
        ]

    healthy, faulty = times(opened()), times(opened(faults=[fault]))
    lane_us = size / (127.0 * 1e3)  # the bytes' time at the lane's rate; 5 us latency
    assert faulty[0] == pytest.approx(healthy[0] + lane_us, rel=0.01)  # half the rate
    assert faulty[1:] == pytest.approx(healthy[1:])


def test_a_lane_is_given_to_a_degrade_fault_only_and_names_a_die_link() -> None:
    assert Fault("degrade", link=(2, 3), factor=0.5, lane="hccs").lane == "hccs"
    with pytest.raises(ValueError, match="lane"):
        Fault("degrade", link=(2, 3), factor=0.5, lane="ub")
    with pytest.raises(ValueError, match="only a degrade fault"):
        Fault("drop", link=(2, 3), lane="hccs")
