"""What every part of the simulator shares (sim/part.py): one server model, one engine,
one fault injector, one error log and one list of implicit releases, the same objects in
every part, so that what one part records another part and the facade see; and each
pyACL call declared once, beside its method, with its lock and plan policy."""

from __future__ import annotations

import threading

import pytest
from simacl import new_acl, ok

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.sim import simulated_acl
from ascend_p2p_lab.sim.facade import CALLS
from ascend_p2p_lab.sim.facade import PARTS as PARTS_BY_ATTR
from ascend_p2p_lab.sim.part import Part, declared, pyacl

PARTS = ("_devices", "_contexts", "_peers", "_memory", "_streams", "_router", "_copies", "_ipc")


def test_every_part_holds_the_one_shared_context() -> None:
    acl = simulated_acl("atlas800t-a3")
    parts = [getattr(acl, name) for name in PARTS]
    assert all(isinstance(p, Part) for p in parts)
    first = parts[0]
    for p in parts[1:]:
        assert p.topology is first.topology is acl.topology
        assert p.engine is first.engine
        assert p.injector is first.injector is acl._injector
        assert p.released is first.released is acl.implicit_releases
        assert p.fail.__self__ is first.fail.__self__  # one error log


def test_a_failure_in_one_part_is_the_threads_recent_error_for_all() -> None:
    """The peers part fails; the message is the calling thread's, read through the facade,
    and cleared by the read; another thread's own failure stays its own."""
    acl = new_acl()
    assert acl.rt.device_can_access_peer(3, 3)[1] == C.ACL_ERROR_INVALID_PARAM  # equal ids
    other: list[str] = []

    def elsewhere() -> None:
        acl._streams.fail(C.ACL_ERROR_RT_PARAM_INVALID, "the other thread's own")
        other.append(acl.get_recent_err_msg())

    t = threading.Thread(target=elsewhere)
    t.start()
    t.join(10)
    mine = acl.get_recent_err_msg()
    assert "the other thread's own" in other[0] and "the other thread's own" not in mine
    assert mine and acl.get_recent_err_msg() == ""  # read once, then cleared
    ok(acl.finalize())


@pytest.mark.keeps_ledger  # the implicit releases are the point
def test_what_one_part_releases_implicitly_every_part_and_the_ledger_see() -> None:
    acl = new_acl()
    ok(acl.rt.set_device(1))
    ok(acl.rt.malloc(1 << 20, 0))
    ok(acl.rt.create_stream())
    ok(acl.rt.reset_device(1))  # the devices part resets; memory and streams release
    released = acl._memory.released
    assert released is acl._streams.released and len(released) >= 2
    assert acl.implicit_releases == released
    ok(acl.finalize())


# ------------------------------------------------------------------ declared calls
#: The calls that run without the lock and are not counted: each reads nothing a call
#: changes (the SoC name, the version, this thread's own last error) or writes only the
#: process's log file.
UNLOCKED = {"get_soc_name", "get_version", "get_recent_err_msg", "app_log"}
#: The calls after which the kept copies, routes, records and waits stay: none can change
#: what a copy resolves to (its regions, its stream, the current device, peer access).
KEEPS_PLANS = {
    *("rt.memcpy", "rt.memcpy_async", "rt.memset", "rt.set_context", "rt.get_device"),
    *("rt.get_context", "rt.get_run_mode", "rt.get_device_count", "rt.get_devices_topo"),
    *("rt.get_device_info", "rt.device_can_access_peer", "rt.device_peer_access_status"),
    *("rt.get_mem_info", "rt.synchronize_stream", "rt.synchronize_device", "rt.create_event"),
    *("rt.create_event_with_flag", "rt.create_event_ex_with_flag", "rt.destroy_event"),
    *("rt.record_event", "rt.stream_wait_event", "rt.synchronize_event"),
    *("rt.event_elapsed_time", "rt.event_get_timestamp", "util.ptr_to_bytes"),
}


def test_each_call_declares_its_lock_and_whether_it_keeps_the_plans() -> None:
    """Planted: ``locked=False`` dropped from ``app_log`` (or added to ``rt.get_device``),
    ``keeps_plans=True`` dropped from ``rt.record_event`` (or added to ``rt.free``)."""
    assert {name for name, call in CALLS.items() if not call.locked} == UNLOCKED
    assert {name for name, call in CALLS.items() if call.keeps_plans} == KEEPS_PLANS
    fast = {name: call.fast for name, call in CALLS.items() if call.fast}
    assert fast == {
        "rt.memcpy_async": "fast_memcpy_async",
        "rt.record_event": "fast_event_call",
        "rt.stream_wait_event": "fast_event_call",
    }
    assert set(fast) <= KEEPS_PLANS  # a fast path does not drop the plans


def test_every_call_the_simulator_exposes_is_declared_once() -> None:
    acl = simulated_acl("atlas800t-a2")
    exposed = {
        f"{space}.{name}" if space else name
        for space, owner in (("", acl), ("rt", acl.rt), ("util", acl.util), ("media", acl.media))
        for name, fn in vars(owner).items()
        if callable(fn) and not name.startswith("_") and name != "simulator"
    }
    declarations = [
        call.name
        for cls in PARTS_BY_ATTR.values()
        for fn in vars(cls).values()
        for call in getattr(fn, "pyacl_calls", ())
    ]
    assert sorted(declarations) == sorted(exposed)  # each once, none beside them
    assert len(exposed) == len(CALLS) == 58


def test_a_call_declared_twice_is_refused_naming_both() -> None:
    class One:
        @pyacl("rt.set_device", "i")
        def set_device(self, dev: int) -> int:
            return dev

    class Other:
        @pyacl("rt.get_device", "")
        @pyacl("rt.set_device", "i")
        def choose(self, dev: int) -> int:
            return dev

    assert [c.name for c in declared({"_b": Other}).values()] == ["rt.get_device", "rt.set_device"]
    with pytest.raises(ValueError, match=r"^rt.set_device is declared twice: by _a.set_device "):
        declared({"_a": One, "_b": Other})
