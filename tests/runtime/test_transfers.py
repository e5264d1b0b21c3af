"""Streams and events (``runtime/transfers.py``): a fallback taken is recorded (issue 30
item 26)."""

from __future__ import annotations

from ascend_p2p_lab.runtime import open_runtime
from ascend_p2p_lab.runtime.capabilities import FALLBACKS

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
