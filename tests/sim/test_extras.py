"""The acl.simulator interface (sim/extras.py): what it holds is what docs/simulator.md
documents, the compatibility names are gone, the shim exposes it, and reseed_jitter makes
the draws depend on the seed and key only."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import MappingProxyType

import pytest

import ascend_p2p_lab.sim as sim_pkg
from ascend_p2p_lab import codes as C
from ascend_p2p_lab.sim import (
    SimulatedACL,
    Simulator,
    shim_path,
    simulated_acl,
)

# ------------------------------------------------------------------ acl.simulator
DOCUMENTED = {
    "run_program",
    "repeat_copy",
    "topology",
    "seed",
    "host_time_us",
    "ledger",
    "ledger_is_empty",
    "call_counts",
    "implicit_releases",
    "shared_ledger",
    "reseed_jitter",
    "host_time_ns",
    "begin_point",
    "faults",
    "app_log_path",
    "copy_limit",
}


def _factors(acl, key: str | None, before: int) -> list[float]:
    """The time factors of 4 copies after ``before`` others (and a reseed to key)."""
    eng = acl._engine
    for _ in range(before):
        eng._factor()  # one draw each
    if key is not None:
        acl.simulator.reseed_jitter(key)
    return [eng._factor() for _ in range(4)]


def test_reseed_jitter_makes_the_draws_depend_on_seed_and_key_only() -> None:
    def fresh(seed: int = 3):
        return simulated_acl("atlas800t-a2", seed=seed, jitter=0.05)

    a = _factors(fresh(), "pair/uni/on/p2p/0-1/4096", before=0)
    assert a == _factors(fresh(), "pair/uni/on/p2p/0-1/4096", before=7)  # history ignored
    assert len(set(a)) == 4 and a != _factors(fresh(), "pair/uni/on/p2p/0-1/8192", before=0)
    assert a != _factors(fresh(seed=4), "pair/uni/on/p2p/0-1/4096", before=0)
    assert _factors(fresh(), None, 0) != _factors(fresh(), None, 7)  # without: call order


def test_the_simulator_interface_is_what_is_documented() -> None:
    acl = simulated_acl("atlas800t-a3", seed=7)
    sim = acl.simulator
    assert isinstance(sim, Simulator)
    assert {name for name in dir(sim) if not name.startswith("_")} == DOCUMENTED
    for name in DOCUMENTED:
        assert f"``{name}" in sim_pkg.__doc__, name  # documented in the package docstring
    assert sim.topology is acl.topology and sim.topology.name == "atlas800t-a3"
    assert sim.seed == 7 and sim.host_time_us == 0.0 and sim.ledger_is_empty()
    assert isinstance(sim.call_counts, MappingProxyType) and dict(sim.call_counts) == {}
    assert acl.init() == 0 and acl.rt.set_device(0) == 0 and acl.rt.set_device(0) == 0
    assert dict(sim.call_counts) == {"rt.set_device": 2}  # a live view
    with pytest.raises(TypeError):
        sim.call_counts["rt.set_device"] = 0  # type: ignore[index]
    assert sim.host_time_us > 200_000.0
    assert sim.ledger()["devices_set"] == {0: 2}
    assert not sim.ledger_is_empty()
    assert acl.finalize() == 0
    assert sim.implicit_releases == ["device 0 reset by aclFinalize"] == acl.implicit_releases
    sim.implicit_releases.clear()  # a copy: the simulator's own list is untouched
    assert sim.ledger()["implicit_releases"] == ["device 0 reset by aclFinalize"]
    for name in DOCUMENTED:
        with pytest.raises(AttributeError):
            setattr(sim, name, None)  # read-only
    acl.implicit_releases.clear()  # (the test suite checks every simulator's ledger)


def test_the_compatibility_names_are_gone() -> None:
    """A 0.x package keeps one way to each extra: ``acl.simulator`` (no ``sim.runtime``
    module, no ledger or clock directly on the ``acl`` object)."""
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("ascend_p2p_lab.sim.runtime")
    acl = simulated_acl("atlas800t-a2", seed=2)
    for name in (
        "ledger",
        "ledger_is_empty",
        "initialized",
        "device_refs",
        "host_time_us",
        "faults",
        "resident_bytes",
    ):
        assert not hasattr(acl, name), name
    assert (acl.seed, acl.call_counts) == (2, {})
    assert SimulatedACL._device_can_access_peer(acl, 0, 1) == (0, C.ACL_ERROR_UNINITIALIZE)


def test_the_shim_exposes_the_simulator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(shim_path()))
    monkeypatch.setenv("ASCEND_P2P_LAB_PRESET", "atlas300i-duo")
    monkeypatch.setenv("ASCEND_P2P_LAB_SEED", "4")
    monkeypatch.delitem(sys.modules, "acl", raising=False)
    try:
        acl = importlib.import_module("acl")
        assert acl.__simulated__ is True and acl.simulator is acl.__simulator__.simulator
        assert (acl.simulator.topology.name, acl.simulator.seed) == ("atlas300i-duo", 4)
    finally:
        sys.modules.pop("acl", None)
