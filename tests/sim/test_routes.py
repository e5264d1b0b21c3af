"""The simulator's model of shared hardware and of who issues a copy, against the published
figures it is calibrated on: shared budgets as preset data (A3 cards), max-min fair
sharing, push/pull efficiency (HIXL), and inferred behaviours carried in run metadata.

Fixtures are asymmetric where direction matters (one way degraded, push vs pull), so a
model that swaps source and destination or ignores the initiator cannot pass."""

from __future__ import annotations

import dataclasses

import pytest
from simacl import copy_setup

from ascend_p2p_lab.sim import (
    simulated_acl,
)
from ascend_p2p_lab.sim.devices import CONTEXT_BASE
from ascend_p2p_lab.sim.routes import Route, shared_resources
from ascend_p2p_lab.topology import (
    load_preset,
)

A2, A3 = "atlas800t-a2", "atlas800t-a3"


def test_card_budgets_are_crossed_by_switched_copies_only() -> None:
    topo = load_preset(A3)
    assert shared_resources(topo, "SIO", 0, 1) == ()
    # 0 -> 3: out of card 0, into card 1, and the both-ways budget of each
    assert shared_resources(topo, "HCCS_SW", 0, 3) == (
        ("shared", 0, "out", 0),
        ("shared", 0, "in", 1),
        ("shared", 0, "both", 0),
        ("shared", 0, "both", 1),
    )
    assert shared_resources(load_preset(A2), "HCCS", 0, 3) == ()


KIB_2 = 1024


D2D_2 = 3


# ------------------------------------------------------------------ routes


def test_the_fast_path_and_the_checked_paths_share_one_route() -> None:
    acl = simulated_acl("atlas800t-a2")
    with copy_setup(acl) as (src, dst, stream):
        args = (dst, 64 * KIB_2, src, 4 * KIB_2, D2D_2, stream)
        key = (dst, 64 * KIB_2, src, 4 * KIB_2, D2D_2, 0)  # ... and the current device
        assert acl.rt.memcpy_async(*args) == 0  # the checked path: routes, keeps the copy
        route = acl._router.cache[key]
        assert isinstance(route, Route) and acl._copies.plans[args].route is route
        for _ in range(5):
            assert acl.rt.memcpy_async(*args) == 0  # the fast path
        assert acl._copies.plans[args].route is route and acl._router.cache[key] is route
        assert acl.rt.memcpy(*args[:5]) == 0  # the synchronous copy resolves to it too
        assert acl._router.resolve(*key) == (route, 0)
        assert (
            route.devices,
            route.link,
            route.resources,
            route.staged,
            route.count,
            route.nbytes,
            route.memo_able,
        ) == ((0, 0), None, (("hbm", 0),), False, 4 * KIB_2, 4 * KIB_2, True)
        with pytest.raises(dataclasses.FrozenInstanceError):
            route.count = 1  # type: ignore[misc]
        assert acl.rt.memcpy_async(*args[:5], 0) == 0  # the default stream: another copy
        assert acl._copies.plans[(*args[:5], 0)].route is route  # ... over the same route


def test_a_device_to_device_route_names_its_link() -> None:
    acl = simulated_acl("atlas800t-a3")
    with copy_setup(acl) as (src, _dst, stream):
        assert acl.rt.set_context(CONTEXT_BASE + 1) == 0
        (far, _), _ = acl.rt.malloc(64 * KIB_2, 0), acl.rt.set_context(CONTEXT_BASE + 0)
        args = (far, 64 * KIB_2, src, 8 * KIB_2, D2D_2, stream)
        assert acl.rt.memcpy_async(*args) == 0 and acl.rt.memcpy_async(*args) == 0
        route = acl._copies.plans[args].route
        assert route.link == (0, 1) and route.devices == (0, 1) and route.device == 0
        assert route.resources[0] == ("link", 0, 1) and not route.staged
        assert acl.rt.free(far) == 0


def test_routes_peer_access_decides_are_dropped_when_it_changes_the_others_kept() -> None:
    """A route between two devices goes with any call that may change peer access; a
    device-local or host route stays until an allocation comes or goes (a sweep's
    verification reads and staged legs repeat across tests that make their own streams)."""
    acl = simulated_acl(A2)  # peer access off: a direct copy between devices is refused
    rt = acl.rt
    assert acl.init() == 0 and rt.set_device(1) == 0 and rt.set_device(0) == 0
    (a, _), (b, _) = rt.malloc(4 * KIB_2, 0), rt.malloc(4 * KIB_2, 0)
    assert rt.set_device(1) == 0 and rt.device_enable_peer_access(0, 0) == 0
    (far, _) = rt.malloc(4 * KIB_2, 0)
    assert rt.set_device(0) == 0 and rt.device_enable_peer_access(1, 0) == 0
    local, cross = (b, 4 * KIB_2, a, 4 * KIB_2, D2D_2), (far, 4 * KIB_2, a, 4 * KIB_2, D2D_2)
    assert rt.memcpy(*local) == 0 and rt.memcpy(*cross) == 0
    kept = acl._router.cache[(*local, 0)]
    stream, _ = rt.create_stream()  # drops the kept copies, not the local route
    assert rt.destroy_stream(stream) == 0 and acl._router.cache[(*local, 0)] is kept
    assert rt.device_disable_peer_access(1) == 0  # 0 -> 1 off: no direct copy any more
    assert rt.memcpy(*cross) != 0
    assert rt.memcpy(*local) == 0 and acl._router.cache[(*local, 0)] is kept
    assert rt.set_device(1) == 0 and rt.device_disable_peer_access(0) == 0
    assert rt.free(far) == 0 and rt.set_device(0) == 0
    assert acl._router.cache == {}  # an allocation went: every route afresh
    assert rt.free(a) == 0 and rt.free(b) == 0
    for dev in (0, 1):  # each set three times
        assert all(rt.reset_device(dev) == 0 for _ in range(3))
    assert acl.finalize() == 0


def test_a_copy_issued_by_its_destination_reads_the_link_by_its_source_writes_it() -> None:
    acl = simulated_acl(A2)  # HCCS: a write reaches 0.755 of the link, a read all of it
    with copy_setup(acl) as (src, _dst, stream):
        assert acl.rt.set_context(CONTEXT_BASE + 1) == 0
        (far, _), _ = acl.rt.malloc(64 * KIB_2, 0), acl.rt.set_context(CONTEXT_BASE + 0)
        write = (far, 64 * KIB_2, src, 8 * KIB_2, D2D_2, stream)  # 0 -> 1, issued on 0
        read = (src, 64 * KIB_2, far, 8 * KIB_2, D2D_2, stream)  # 1 -> 0, issued on 0
        for args in (write, read, write, read):
            assert acl.rt.memcpy_async(*args) == 0
        assert acl._copies.plans[write].route.resources[-1] == ("push", 0, 1)
        assert not any(r[0] in ("push", "pull") for r in acl._copies.plans[read].route.resources)
        assert acl.rt.free(far) == 0
