"""ascend_p2p_lab.runtime.capabilities: the pyACL calls behind each capability."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.runtime.capabilities import CAPABILITIES, calls_of


def test_calls_come_once_in_order() -> None:
    calls = calls_of(["async_copy", "event_timing", "events"])
    assert calls[:4] == ("memcpy_async", "create_stream", "destroy_stream", "synchronize_stream")
    assert len(calls) == len(set(calls))
    assert calls.count(("create_event_with_flag", "create_event")) == 1
    assert "event_elapsed_time" in calls


def test_no_capability_is_no_call_and_an_unknown_one_is_named() -> None:
    assert calls_of([]) == ()
    with pytest.raises(ValueError, match="unknown capability 'teleport'; known: async_copy"):
        calls_of(["teleport"])


def test_ipc_needs_the_export_and_import_calls() -> None:
    assert {"ipc_mem_get_export_key", "ipc_mem_import_by_key", "ipc_mem_close"} <= set(
        calls_of(["ipc_memory"])
    )
    assert set(CAPABILITIES) >= {"async_copy", "event_timing", "memset", "pinned_host"}
