"""The simulator's parts: declared argument formats, the shared Route cache, the
``acl.simulator`` interface, and the size of the sim modules.

The wrong-type messages below are the ones the simulator gave before its calls declared
formats (each call checked its own arguments then); they are written out here, not read
from :mod:`ascend_p2p_lab.sim.formats`, so that a change of wording is noticed."""

from __future__ import annotations

import enum

import pytest

from ascend_p2p_lab.sim.formats import FORMATS, RT_CALLS, checker

#: Every acl.rt call, its number of arguments, and the label its wrong-type TypeError
#: starts with at each position (the call's own name, except device_enable_peer_access's
#: flags).
RT_ARGS: dict[str, tuple[str, ...]] = {
    "set_device": ("set_device",),
    "reset_device": ("reset_device",),
    "reset_device_force": ("reset_device_force",),
    "get_device": (),
    "get_device_count": (),
    "get_context": (),
    "set_context": ("set_context",),
    "create_context": ("create_context",),
    "destroy_context": ("destroy_context",),
    "get_run_mode": (),
    "get_devices_topo": ("get_devices_topo",) * 2,
    "get_device_info": ("get_device_info",) * 2,
    "device_can_access_peer": ("device_can_access_peer",) * 2,
    "device_enable_peer_access": ("device_enable_peer_access", "flags"),
    "device_disable_peer_access": ("device_disable_peer_access",),
    "device_peer_access_status": ("device_peer_access_status",) * 2,
    "malloc": ("malloc",) * 2,
    "free": ("free",),
    "malloc_host": ("malloc_host",),
    "free_host": ("free_host",),
    "memset": ("memset",) * 4,
    "memset_async": ("memset_async",) * 5,
    "memcpy": ("memcpy",) * 5,
    "memcpy_async": ("memcpy_async",) * 6,
    "get_mem_info": ("get_mem_info",),
    "create_stream": (),
    "destroy_stream": ("destroy_stream",),
    "synchronize_stream": ("synchronize_stream",),
    "synchronize_device": (),
    "create_event": (),
    "create_event_with_flag": ("create_event_with_flag",),
    "create_event_ex_with_flag": ("create_event_ex_with_flag",),
    "destroy_event": ("destroy_event",),
    "record_event": ("record_event",) * 2,
    "stream_wait_event": ("stream_wait_event",) * 2,
    "synchronize_event": ("synchronize_event",),
    "event_elapsed_time": ("event_elapsed_time",) * 2,
    "event_get_timestamp": ("event_get_timestamp",),
    "ipc_mem_get_export_key": ("ipc_mem_get_export_key",) * 4,
    "device_get_bare_tgid": (),
}


#: Calls with a string argument (a key): their type checks are tested in test_sim_ipc.py.
KEYED = {"ipc_mem_set_import_pid", "ipc_mem_import_by_key", "ipc_mem_close"}


def test_the_table_covers_every_call() -> None:
    assert set(RT_ARGS) == set(RT_CALLS) - KEYED
    assert {f"rt.{name}" for name in RT_CALLS} <= set(FORMATS)
    for name, labels in RT_ARGS.items():
        assert len(FORMATS[f"rt.{name}"]) == len(labels), name


@pytest.mark.parametrize("name", [n for n, labels in RT_ARGS.items() if labels])
def test_ints_of_every_kind_pass_the_check(name: str) -> None:
    class Flag(enum.IntEnum):
        ZERO = 0

    check = checker(f"rt.{name}")
    n = len(RT_ARGS[name])
    for value in (0, True, Flag.ZERO, 2**70, -1):
        assert check((value,) * n) is None


def test_every_declared_format_parses() -> None:
    for call in FORMATS:
        checker(call)  # unknown units raise ValueError
