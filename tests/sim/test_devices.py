"""The simulated devices (sim/devices.py) against pyACL's conventions: aclInit and
aclFinalize, the calls before and after them, the current device per thread, set and reset
reference counted, device ids, device info, the SoC name and the topology bits."""

from __future__ import annotations

import threading

import pytest
from simacl import (
    HBM,
    MIB,
    P2P,
    finish,
    in_thread,
    new_acl,
    ok,
)

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.sim import (
    simulated_acl,
)

# ------------------------------------------------------------------------- init / finalize
#: Arguments for every acl.rt call; only the arity matters before aclInit.
PRE_INIT_ARGS: dict[str, tuple[int, ...]] = {
    "set_device": (0,),
    "reset_device": (0,),
    "reset_device_force": (0,),
    "get_device": (),
    "get_device_count": (),
    "get_context": (),
    "set_context": (1,),
    "create_context": (0,),
    "destroy_context": (1,),
    "get_devices_topo": (0, 1),
    "get_device_info": (0, 301),
    "device_can_access_peer": (0, 1),
    "device_enable_peer_access": (1, 0),
    "device_disable_peer_access": (1,),
    "device_peer_access_status": (0, 1),
    "malloc": (1024, 0),
    "free": (1,),
    "malloc_host": (1024,),
    "free_host": (1,),
    "memset": (1, 8, 0, 8),
    "memset_async": (1, 8, 0, 8, 0),
    "memcpy": (1, 8, 2, 8, 1),
    "memcpy_async": (1, 8, 2, 8, 1, 0),
    "get_mem_info": (1,),
    "create_stream": (),
    "destroy_stream": (1,),
    "synchronize_stream": (1,),
    "synchronize_device": (),
    "create_event": (),
    "create_event_with_flag": (8,),
    "create_event_ex_with_flag": (8,),
    "destroy_event": (1,),
    "record_event": (1, 0),
    "stream_wait_event": (0, 1),
    "synchronize_event": (1,),
    "event_elapsed_time": (1, 2),
    "event_get_timestamp": (1,),
    "ipc_mem_get_export_key": (1, 4096, 65, 0),
    "ipc_mem_set_import_pid": ("k", [1]),
    "ipc_mem_import_by_key": ("k", 0),
    "ipc_mem_close": ("k",),
    "device_get_bare_tgid": (),
    "reserve_mem_address": (4096, 0, 0, 0),
    "release_mem_address": (1,),
    "unmap_mem": (1,),
    "mem_map_selected_link": (1, 4096, 2, 1),
}


#: Calls the runtime serves without aclInit (no init check in their ACL implementation).
NO_INIT_CHECK = {"get_run_mode"}  # aclrtGetRunModeImpl, src/acl/aclrt_impl/device.cpp


def test_every_rt_call_is_in_the_pre_init_table() -> None:
    acl = simulated_acl("atlas800t-a2")
    assert set(vars(acl.rt)) == set(PRE_INIT_ARGS) | NO_INIT_CHECK
    assert acl.rt.get_run_mode() == (C.ACL_HOST, 0)  # an Atlas server's host, uninitialized


@pytest.mark.parametrize("call", list(PRE_INIT_ARGS))
def test_calls_before_init_return_uninitialize(call: str) -> None:
    acl = simulated_acl("atlas800t-a2")
    out = getattr(acl.rt, call)(*PRE_INIT_ARGS[call])
    ret = out[-1] if isinstance(out, tuple) else out
    assert ret == C.ACL_ERROR_UNINITIALIZE
    assert "100001" in acl.get_recent_err_msg()
    assert acl.simulator.ledger_is_empty()


def test_calls_after_finalize_return_uninitialize_again() -> None:
    acl = new_acl()
    ok(acl.finalize())
    assert acl.rt.set_device(0) == C.ACL_ERROR_UNINITIALIZE
    assert acl.rt.get_device_count() == (0, C.ACL_ERROR_UNINITIALIZE)
    assert acl.simulator.ledger_is_empty()


def test_repeated_init_is_ignorable_and_stays_initialized() -> None:
    acl = new_acl()
    assert acl.init() == C.ACL_ERROR_REPEAT_INITIALIZE
    assert acl.get_recent_err_msg()
    assert acl.rt.get_device_count() == (8, 0)  # still initialized
    finish(acl)  # one finalize is enough


def test_finalize_without_init_is_repeat_finalize() -> None:
    acl = simulated_acl("atlas800t-a2")
    assert acl.finalize() == C.ACL_ERROR_REPEAT_FINALIZE
    ok(acl.init())
    ok(acl.finalize())
    assert acl.finalize() == C.ACL_ERROR_REPEAT_FINALIZE
    assert acl.simulator.ledger_is_empty()


@pytest.mark.keeps_ledger
def test_finalize_releases_everything_and_records_the_implicit_releases() -> None:
    acl = new_acl()
    ok(acl.rt.set_device(1))
    ok(acl.rt.device_enable_peer_access(0, 0))
    ok(acl.rt.set_device(0))
    ok(acl.rt.set_device(0))  # two references
    ok(acl.rt.device_enable_peer_access(1, 0))
    ptr = ok(acl.rt.malloc(MIB, P2P))
    host = ok(acl.rt.malloc_host(MIB))
    stream = ok(acl.rt.create_stream())
    event = ok(acl.rt.create_event())
    assert acl.simulator.ledger()["devices_set"] == {0: 2, 1: 1}

    ok(acl.finalize())
    led = acl.simulator.ledger()
    assert not led["initialized"] and led["devices_set"] == {}
    assert led["device_buffers"] == led["host_buffers"] == led["streams"] == led["events"] == 0
    assert led["peer_refs"] == {}
    assert not acl.simulator.ledger()["devices_set"]
    text = "\n".join(led["implicit_releases"])
    for what in (
        f"device buffer {ptr:#x}",
        f"host buffer {host:#x}",
        f"stream {stream}",
        f"event {event}",
        "peer access 0->1",
        "peer access 1->0",
    ):
        assert what in text, what
    assert "aclFinalize" in text
    # Released, but not by the program: the ledger keeps saying so, even after a new session.
    assert not acl.simulator.ledger_is_empty()
    ok(acl.init())
    ok(acl.finalize())
    assert not acl.simulator.ledger_is_empty()


@pytest.mark.keeps_ledger
def test_finalize_records_the_devices_it_resets() -> None:
    acl = new_acl()
    ok(acl.rt.set_device(0))
    ok(acl.finalize())
    assert not acl.simulator.ledger_is_empty()


@pytest.mark.keeps_ledger
def test_last_reset_releases_the_device_resources_implicitly() -> None:
    acl = new_acl()
    ok(acl.rt.set_device(0))
    ptr = ok(acl.rt.malloc(MIB, P2P))
    ok(acl.rt.reset_device(0))
    assert acl.simulator.ledger()["device_buffers"] == 0
    assert any(
        f"{ptr:#x}" in r and "aclrtResetDevice" in r
        for r in acl.simulator.ledger()["implicit_releases"]
    )
    assert acl.rt.free(ptr) != 0  # already gone
    ok(acl.finalize())
    assert not acl.simulator.ledger_is_empty()


# ---------------------------------------------------------------------------------- devices
def test_a_thread_without_a_current_device_gets_context_null() -> None:
    acl = new_acl()
    ok(acl.rt.set_device(0))  # the main thread has a device; the worker does not

    def worker() -> list[int]:
        return [
            acl.rt.device_enable_peer_access(1, 0),
            acl.rt.device_disable_peer_access(1),
            acl.rt.malloc(MIB, P2P)[-1],
            acl.rt.create_stream()[-1],
            acl.rt.create_event()[-1],
            acl.rt.get_device()[-1],
            acl.rt.get_mem_info(HBM)[-1],
            acl.rt.synchronize_device(),
        ]

    assert in_thread(worker) == [C.ACL_ERROR_RT_CONTEXT_NULL] * 8
    assert acl.rt.get_device() == (0, 0)
    ok(acl.rt.reset_device(0))
    finish(acl)


def test_threads_set_devices_independently() -> None:
    acl = new_acl()
    barrier = threading.Barrier(2)
    seen: dict[int, tuple[int, int]] = {}

    def worker(dev: int) -> None:
        ok(acl.rt.set_device(dev))
        barrier.wait(5)  # both threads have set their device
        seen[dev] = acl.rt.get_device()
        ptr = ok(acl.rt.malloc(MIB, P2P))
        free, total = ok(acl.rt.get_mem_info(HBM))
        assert total - free == MIB  # on this thread's device, not the other one's
        ok(acl.rt.free(ptr))
        barrier.wait(5)
        ok(acl.rt.reset_device(dev))

    threads = [threading.Thread(target=worker, args=(d,)) for d in (2, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == {2: (2, 0), 5: (5, 0)}
    assert acl.rt.get_device()[-1] == C.ACL_ERROR_RT_CONTEXT_NULL  # main thread: none
    finish(acl)


def test_set_and_reset_are_reference_counted() -> None:
    acl = new_acl()
    ok(acl.rt.set_device(3))
    ok(acl.rt.set_device(3))
    assert acl.simulator.ledger()["devices_set"] == {3: 2}
    ok(acl.rt.reset_device(3))
    assert acl.rt.get_device() == (3, 0)  # one reference left: still current
    ptr = ok(acl.rt.malloc(MIB, P2P))
    ok(acl.rt.free(ptr))
    ok(acl.rt.reset_device(3))
    assert acl.simulator.ledger()["devices_set"] == {}
    assert acl.rt.get_device()[-1] == C.ACL_ERROR_RT_CONTEXT_NULL
    assert acl.rt.reset_device(3) != 0  # already released
    assert acl.get_recent_err_msg()
    finish(acl)


def test_reset_of_a_device_never_set_is_an_error() -> None:
    acl = new_acl()
    assert acl.rt.reset_device(4) != 0
    assert "not set" in acl.get_recent_err_msg()
    assert acl.rt.reset_device_force(4) != 0
    finish(acl)


def test_reset_device_force_drops_every_reference() -> None:
    acl = new_acl()
    for _ in range(3):
        ok(acl.rt.set_device(1))
    ok(acl.rt.reset_device_force(1))
    assert acl.simulator.ledger()["devices_set"] == {}
    assert acl.rt.reset_device(1) != 0
    finish(acl)


@pytest.mark.parametrize(
    ("dev", "code"),
    [
        (64, C.ACL_ERROR_RT_PARAM_INVALID),  # >= RT_MAX_DEV_NUM
        (1000, C.ACL_ERROR_RT_PARAM_INVALID),
        (-1, C.ACL_ERROR_RT_PARAM_INVALID),
        (8, C.ACL_ERROR_RT_INVALID_DEVICEID),  # >= device count (8)
        (63, C.ACL_ERROR_RT_INVALID_DEVICEID),
    ],
)
def test_device_id_range(dev: int, code: int) -> None:
    acl = new_acl()
    assert acl.rt.set_device(dev) == code
    assert acl.rt.reset_device(dev) == code
    assert acl.rt.device_can_access_peer(0, dev) == (0, code)
    assert acl.rt.device_can_access_peer(dev, 0) == (0, code)
    assert acl.rt.get_devices_topo(0, dev) == (0, code)
    ok(acl.rt.set_device(0))
    assert acl.rt.device_enable_peer_access(dev, 0) == code
    assert acl.simulator.ledger()["devices_set"] == {0: 1}
    ok(acl.rt.reset_device(0))
    finish(acl)


def test_get_device_info_cuts_values_to_a_c_int_as_pyacl_does() -> None:
    acl = new_acl()
    # pyACL builds the reply with Py_BuildValue("ii", ...) from an int64 (pyacl-api.md 4).
    assert acl.rt.get_device_info(0, 301) == (acl.topology.memory_bytes & 0xFFFF_FFFF, 0)
    assert acl.rt.get_device_info(0, 601) == (2201, 0)  # NPU_ARCH of A2
    assert acl.rt.get_device_info(5, 402) == (5, 0)
    assert acl.rt.get_device_info(8, 601)[-1] == C.ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.simulator.ledger()["devices_set"] == {}
    finish(acl)


def test_soc_name_is_top_level_and_none_before_init() -> None:
    acl = simulated_acl("atlas800t-a3")
    assert not hasattr(acl.rt, "get_soc_name")
    assert acl.get_soc_name() is None
    ok(acl.init())
    assert acl.get_soc_name() == "Ascend910_9382"
    ok(acl.finalize())
    assert acl.get_soc_name() is None
    assert acl.simulator.ledger_is_empty()


# ---------------------------------------------------------------------------- topology bits
@pytest.mark.parametrize(
    ("preset", "a", "b", "bits"),
    [
        ("atlas800t-a2", 0, 1, 0x01),  # HCCS
        ("atlas800t-a2", 7, 3, 0x01),
        ("atlas800t-a3", 0, 1, 0x20),  # SIO, the two dies of a card
        ("atlas800t-a3", 1, 0, 0x20),
        ("atlas800t-a3", 0, 2, 0x40),  # HCCS_SW
        ("atlas300i-duo", 0, 1, 0x02),  # PIX, inside a card
        ("atlas300i-duo", 0, 2, 0x10),  # SYS
        ("atlas300i-310", 0, 1, 0x08),  # PHB
        ("atlas300i-310", 0, 4, 0x10),  # SYS
    ],
)
def test_get_devices_topo_bits(preset: str, a: int, b: int, bits: int) -> None:
    acl = new_acl(preset)
    assert acl.rt.get_devices_topo(a, b) == (bits, 0)
    assert C.topology_from_bits(bits) == acl.topology.link(a, b)
    assert acl.simulator.ledger()["devices_set"] == {}  # no current device needed
    finish(acl)


# ------------------------------------------------------------------------- run mode, memset
def test_the_run_mode_is_the_hosts():
    acl = simulated_acl("atlas800t-a3")
    assert acl.rt.get_run_mode() == (C.ACL_HOST, 0)  # AclLite's copies then go H2D / D2H
