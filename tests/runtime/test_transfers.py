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
