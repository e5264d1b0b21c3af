"""The A3's choice of link between the two dies of a card, for the layers above.

On an Atlas A3 card the two dies talk over SIO by default; CANN 9.1 (HDK 26.0) lets a
process reach the twin die's memory over an HCCS lane instead, by mapping a reserved
virtual range to that memory with ``aclrtMemMapSelectedLink`` (``ACL_RT_MEM_LINK_IDX_1``;
hicann/shmem ``examples/hccs_sio_link``). :func:`die_link_view` gives a device buffer's
memory as seen from a device through one die link: the buffer itself for ``sio`` (every
ordinary address takes SIO), a :class:`DieLinkView` for ``hccs``; copies to or from the
view between the twin dies cross the chosen link.

pyACL wraps ``aclrtReserveMemAddress``, ``aclrtUnmapMem`` and ``aclrtReleaseMemAddress``
but neither ``aclrtMemMapSelectedLink`` nor ``aclrtIpcMemSetAttr`` nor
``aclrtMemMapSetLink``: on hardware through pyACL the runtime lacks the ``die_link``
capability and a caller gets :class:`~.errors.MissingCall`; the simulator offers the
call with the C API's arguments (docs/die-links.md).

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim", preset="atlas800t-a3") as rt:
    ...     buf = rt.device_buffer(3, 1 << 20)
    ...     view = die_link_view(rt, buf, 2, "hccs")
    ...     view.device, view.die_link, view.size, die_link_view(rt, buf, 2, "sio") is buf
    (3, 'hccs', 1048576, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..topology.model import DIE_LINKS
from ..vocab import DIE_SIO
from .resources import DeviceBuffer

if TYPE_CHECKING:
    from .runtime import Runtime

#: the die link -> ``aclrtMemMapSelectedLink``'s linkIdx (ACL_RT_MEM_LINK_IDX_0 / _1)
LINK_IDX = {name: k for k, name in enumerate(DIE_LINKS)}


class DieLinkView(DeviceBuffer):
    """A buffer's memory reached from device ``by`` through one die link: a reserved
    virtual range mapped with ``aclrtMemMapSelectedLink``. Closing it unmaps and releases
    the range; the buffer stays (close the view first)."""

    kind = "die-link view"

    def __init__(self, rt: Runtime, buf: DeviceBuffer, by: int, die_link: str) -> None:
        assert buf.device is not None
        rt.use(by)
        va = int(rt.call("rt.reserve_mem_address", buf.size, 0, 0, 0))
        try:
            rt.call("rt.mem_map_selected_link", va, buf.size, buf.ptr, LINK_IDX[die_link])
        except BaseException:
            rt.call("rt.release_mem_address", va)
            raise
        self.buffer, self.by, self.die_link = buf, by, die_link
        super().__init__(rt, va, buf.size, buf.device, buf.policy)

    def _release(self) -> None:
        self.rt.try_use(self.by)
        if not getattr(self, "_unmapped", False):
            self.rt.call("rt.unmap_mem", self.handle)
            self._unmapped = True
        self.rt.call("rt.release_mem_address", self.handle)


class BufferSlice(DeviceBuffer):
    """A device buffer from byte ``offset`` on, to copy a part of it (not owned: closing
    it does nothing; the buffer is freed as it is)."""

    kind = "buffer slice"

    def __init__(self, buf: DeviceBuffer, offset: int) -> None:  # no super: not tracked
        self.rt, self.handle, self.device, self.closed = buf.rt, buf.ptr + offset, buf.device, True
        self.size, self.policy, self.exports = buf.size - offset, buf.policy, []


def buffer_slice(buf: DeviceBuffer, offset: int) -> DeviceBuffer:
    """buf from byte offset on (buf itself at 0).

    Example:
        >>> from ascend_p2p_lab.runtime import open_runtime
        >>> with open_runtime("sim") as rt, rt.device_buffer(0, 8192) as buf:
        ...     part = buffer_slice(buf, 4096)
        ...     part.ptr - buf.ptr, part.size, buffer_slice(buf, 0) is buf
        (4096, 4096, True)
    """
    return buf if offset == 0 else BufferSlice(buf, offset)


def die_link_view(rt: Runtime, buf: DeviceBuffer, by: int, die_link: str) -> DeviceBuffer:
    """buf's memory as device ``by`` reaches it over ``die_link`` (``sio``: buf itself,
    the default path; ``hccs``: a :class:`DieLinkView`). Raises ValueError for another
    word, MissingCall where pyACL lacks the calls and AclError (207000) where the server
    or the pair has no choice (not an A3, or not the two dies of one card)."""
    if die_link not in DIE_LINKS:
        raise ValueError(f"unknown die link {die_link!r}; choose one of {', '.join(DIE_LINKS)}")
    if die_link == DIE_SIO:
        return buf
    return DieLinkView(rt, buf, by, die_link)
