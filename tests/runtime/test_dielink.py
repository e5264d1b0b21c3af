"""ascend_p2p_lab.runtime.dielink: a buffer seen through the A3's HCCS lane, and where
pyACL cannot offer the choice."""

from __future__ import annotations

from typing import Any

import pytest

from ascend_p2p_lab.runtime import AclError, MissingCall, open_runtime
from ascend_p2p_lab.runtime.dielink import BufferSlice, buffer_slice, die_link_view


def test_a_view_maps_the_buffer_from_the_initiator_and_closes_before_it() -> None:
    with open_runtime("sim", "atlas800t-a3") as rt:
        buf = rt.device_buffer(7, 1 << 20)
        view = die_link_view(rt, buf, 6, "hccs")
        assert (view.device, view.by, view.die_link, view.size) == (7, 6, "hccs", 1 << 20)
        assert view.ptr != buf.ptr
        rt.write(buf, b"abc")
        assert rt.read(view, 3) == b"abc"  # the same memory
        assert die_link_view(rt, buf, 6, "sio") is buf  # SIO: every address's path
        view.close()
        assert view.closed and not rt.acl.simulator.ledger()["reserved_ranges"]
        buf.close()


def test_off_twin_dies_or_off_the_a3_the_runtime_error_is_207000() -> None:
    for preset, owner, by in (("atlas800t-a3", 7, 5), ("atlas800t-a2", 1, 0)):
        with open_runtime("sim", preset) as rt:
            buf = rt.device_buffer(owner, 1 << 20)
            with pytest.raises(AclError) as err:
                die_link_view(rt, buf, by, "hccs")
            assert err.value.code == 207000
            assert not rt.acl.simulator.ledger()["reserved_ranges"]  # released again
            buf.close()
    with open_runtime("sim", "atlas800t-a3") as rt, pytest.raises(ValueError, match="unknown"):
        die_link_view(rt, rt.device_buffer(0, 4096), 1, "ub")


def test_real_pyacl_has_no_wrapper_so_the_runtime_lacks_the_capability() -> None:
    class NoSelectedLink:  # pyACL as it is: reserve and release wrapped, the map not
        def __init__(self, rt: Any) -> None:
            self._rt = rt

        def __getattr__(self, name: str) -> Any:
            if name == "mem_map_selected_link":
                raise AttributeError(name)
            return getattr(self._rt, name)

    with open_runtime("sim", "atlas800t-a3") as rt:
        assert rt.lacks(["die_link"]) == []
        real_rt = rt.acl.rt
        try:
            rt.acl.rt = NoSelectedLink(real_rt)
            assert rt.lacks(["die_link"]) == ["acl.rt.mem_map_selected_link"]
            buf = rt.device_buffer(7, 4096)
            with pytest.raises(MissingCall):
                die_link_view(rt, buf, 6, "hccs")
            buf.close()
        finally:
            rt.acl.rt = real_rt


def test_a_slice_is_the_buffer_from_an_offset_and_owns_nothing() -> None:
    with open_runtime("sim") as rt, rt.device_buffer(0, 8192) as buf:
        part = buffer_slice(buf, 4096)
        assert isinstance(part, BufferSlice) and (part.ptr, part.size) == (buf.ptr + 4096, 4096)
        part.close()  # nothing to free: the buffer is
        assert not buf.closed and rt.open_resources().count(part) == 0
