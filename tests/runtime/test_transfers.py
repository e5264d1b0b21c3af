"""Streams and events (``runtime/transfers.py``): a fallback taken is recorded (issue 30
item 26)."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.runtime import AclError, open_runtime
from ascend_p2p_lab.runtime.capabilities import FALLBACKS

MIB = 1 << 20

_EVENT = "acl.rt.create_event_with_flag"


def test_an_event_without_create_event_with_flag_is_a_recorded_fallback() -> None:
    with open_runtime("sim", announce=False) as rt:
        rt.event(0).close()
        assert rt.fallbacks == {}  # the call is there: nothing to say
        delattr(rt.acl.rt, "create_event_with_flag")
        before = rt.acl.simulator.call_counts.get("rt.create_event", 0)
        rt.event(0).close()
        assert rt.acl.simulator.call_counts["rt.create_event"] == before + 1
        assert rt.fallbacks == {_EVENT: FALLBACKS[_EVENT]}
        assert "aclrtCreateEvent" in rt.fallbacks[_EVENT]


def test_an_event_asked_without_flags_is_no_fallback() -> None:
    with open_runtime("sim", announce=False) as rt:
        delattr(rt.acl.rt, "create_event_with_flag")
        rt.event(0, flags=0).close()
        assert rt.fallbacks == {}


def test_read_ranges_joins_what_read_gives_each_range() -> None:
    """Ranges of a device buffer copied one after another into the staging buffer and
    read back once: the bytes ``read`` gives each range, in the ranges' order (distinct
    bytes everywhere, so a range read from or written to the wrong place shows)."""
    import pytest

    from ascend_p2p_lab.runtime import AclError

    data = bytes((i * 7 + i // 251) % 256 for i in range(3 << 20))
    ranges = [(2 << 20, 4096), (5, 300), (1 << 20, 9000), ((3 << 20) - 17, 17)]
    with (
        open_runtime("sim", announce=False) as rt,
        rt.device_buffer(3, 3 << 20) as dev,
        rt.host_buffer(3 << 20) as host,
        rt.host_buffer(1 << 16) as staging,
    ):
        rt.write(dev, data)
        rt.write(host, data)
        want = b"".join(data[off : off + n] for off, n in ranges)
        assert rt.read_ranges(dev, ranges, staging) == want
        assert rt.read_ranges(host, ranges, staging) == want
        assert b"".join(rt.read(dev, n, offset=off) for off, n in ranges) == want
        with pytest.raises(ValueError, match="outside"):
            rt.read_ranges(dev, [(3 << 20, 1)], staging)
        with pytest.raises(ValueError, match="do not fit"):
            rt.read_ranges(dev, [(0, 1 << 17)], staging)
        rt.acl.rt.memcpy = lambda *a: 507899  # a refused copy: the runtime's error
        with pytest.raises(AclError, match="memcpy"):
            rt.read_ranges(dev, ranges, staging)


def test_a_refused_copy_in_enqueue_copies_is_raised() -> None:
    """A copy larger than its destination is refused by aclrtMemcpyAsync: the loop stops
    and raises it, on the simulator's batched path as call by call."""
    with (
        open_runtime("sim") as rt,
        rt.peer_links([(0, 1), (1, 0)]),
        rt.device_buffer(0, 2 * MIB) as a,
        rt.device_buffer(1, MIB) as b,
        rt.stream(0) as s,
    ):
        with pytest.raises(AclError) as err:
            rt.enqueue_copies(b, a, 2 * MIB, s, 3)
        assert err.value.call == "acl.rt.memcpy_async"
        s.synchronize()


def test_enqueue_copies_on_a_pyacl_without_memcpy_async_names_the_call() -> None:
    """The one call the copies need, missing: MissingCall naming it (not an
    AttributeError), and the stream's device is current as the copies before made it."""
    from ascend_p2p_lab.runtime import MissingCall

    with (
        open_runtime("sim", announce=False) as rt,
        rt.device_buffer(1, 4096) as a,
        rt.device_buffer(1, 4096) as b,
    ):
        stream = rt.stream(1)
        assert rt.enqueue_copies(b, a, 4096, stream, 2) >= 0
        delattr(rt.acl.rt, "memcpy_async")
        with pytest.raises(MissingCall, match=r"acl\.rt\.memcpy_async"):
            rt.enqueue_copies(b, a, 4096, stream, 2)
        assert rt.current_device() == 1
        stream.close()
