"""What every part of the simulator shares (sim/part.py): one server model, one engine,
one fault injector, one error log and one list of implicit releases, the same objects in
every part, so that what one part records another part and the facade see."""

from __future__ import annotations

import threading

import pytest
from simacl import new_acl, ok

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.sim import simulated_acl
from ascend_p2p_lab.sim.part import Part

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
