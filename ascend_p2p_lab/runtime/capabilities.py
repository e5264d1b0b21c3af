"""What a measurement needs of the installed pyACL, named in words, and the calls behind them.

The runtime guide's own calls (init, devices, peer access, malloc/free, aclrtMemcpy) are
assumed; everything else is checked before use, because older CANN releases lack some of
it. Code above the runtime layer asks for capabilities and never names a pyACL call.

Example:
    >>> calls_of(["stream_wait"])
    ('stream_wait_event',)
"""

from __future__ import annotations

from collections.abc import Iterable

Need = str | tuple[str, ...]  # an acl.rt call, or alternatives any one of which will do

#: Capability -> the ``acl.rt`` calls it takes.
CAPABILITIES: dict[str, tuple[Need, ...]] = {
    # copies queued on a stream of a device
    "async_copy": ("memcpy_async", "create_stream", "destroy_stream", "synchronize_stream"),
    # device time between two events recorded on a stream
    "event_timing": (
        ("create_event_with_flag", "create_event"),
        "destroy_event",
        "record_event",
        "synchronize_event",
        "event_elapsed_time",
    ),
    # a stream waits on an event (of another stream or device) without the host
    "stream_wait": ("stream_wait_event",),
    # events recorded on a stream, without timing them
    "events": (("create_event_with_flag", "create_event"), "destroy_event", "record_event"),
    # filling device memory with a byte value
    "memset": ("memset",),
    # page-locked host memory
    "pinned_host": ("malloc_host", "free_host"),
    # free and total device memory
    "mem_info": ("get_mem_info",),
    # device memory shared with other processes (pyACL documents it from 8.3.RC1.alpha002)
    "ipc_memory": (
        "ipc_mem_get_export_key",
        "ipc_mem_set_import_pid",
        "ipc_mem_import_by_key",
        "ipc_mem_close",
        "device_get_bare_tgid",
    ),
    # the A3's choice of die link (aclrtMemMapSelectedLink: no pyACL wrapper; runtime.dielink)
    "die_link": (
        "reserve_mem_address",
        "mem_map_selected_link",
        "unmap_mem",
        "release_mem_address",
    ),
}


#: A call the runtime does without, as run.json's ``fallbacks`` key -> what it does instead.
FALLBACKS: dict[str, str] = {
    "acl.rt.create_event_with_flag": (
        "the installed pyACL has no aclrtCreateEventWithFlag: timing events are made with "
        "aclrtCreateEvent (no ACL_EVENT_TIME_LINE flag; CANN's default event records time)"
    ),
}


def calls_of(capabilities: Iterable[str]) -> tuple[Need, ...]:
    """The calls behind the capabilities, each once, in order."""
    out: dict[Need, None] = {}
    for name in capabilities:
        try:
            needs = CAPABILITIES[name]
        except KeyError:
            raise ValueError(
                f"unknown capability {name!r}; known: {', '.join(CAPABILITIES)}"
            ) from None
        out.update(dict.fromkeys(needs))
    return tuple(out)
