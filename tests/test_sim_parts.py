"""The simulator's parts: declared argument formats, the shared Route cache, the
``acl.simulator`` interface, and the size of the sim modules.

The wrong-type messages below are the ones the simulator gave before its calls declared
formats (each call checked its own arguments then); they are written out here, not read
from :mod:`ascend_p2p_lab.sim.formats`, so that a change of wording is noticed.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import enum
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pytest

import ascend_p2p_lab.sim as sim_pkg
from ascend_p2p_lab import codes as C
from ascend_p2p_lab.sim import SimulatedACL, Simulator, shim_path, simulated_acl
from ascend_p2p_lab.sim.devices import CONTEXT_BASE
from ascend_p2p_lab.sim.formats import FORMATS, RT_CALLS, checker
from ascend_p2p_lab.sim.routes import Route

KIB = 1024
D2D = 3

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
WRONG = [(1.0, "float"), ("1", "str"), (None, "NoneType"), (np.int64(1), "int64"),
         ([1], "list")]
POSITIONS = [(name, pos) for name, labels in RT_ARGS.items() for pos in range(len(labels))]


def test_the_table_covers_every_call() -> None:
    assert set(RT_ARGS) == set(RT_CALLS) - KEYED
    assert {f"rt.{name}" for name in RT_CALLS} <= set(FORMATS)
    for name, labels in RT_ARGS.items():
        assert len(FORMATS[f"rt.{name}"]) == len(labels), name


# ------------------------------------------------------------------ declared formats
@pytest.mark.parametrize(("name", "pos"), POSITIONS)
@pytest.mark.parametrize(("bad", "type_name"), WRONG)
def test_a_wrong_type_raises_the_same_type_error_as_before(
        name: str, pos: int, bad: object, type_name: str) -> None:
    acl = simulated_acl("atlas800t-a2")  # not even initialized: the type check comes first
    args: list[Any] = [0] * len(RT_ARGS[name])
    args[pos] = bad
    with pytest.raises(TypeError) as info:
        getattr(acl.rt, name)(*args)
    assert str(info.value) == f"{RT_ARGS[name][pos]}: an integer is required (got type {type_name})"
    assert acl.call_counts == {f"rt.{name}": 1}  # counted, as every call was
    assert acl.simulator.ledger_is_empty() and acl.simulator.host_time_us == 0.0


def test_the_first_wrong_argument_is_the_one_reported() -> None:
    acl = simulated_acl("atlas800t-a2")
    with pytest.raises(TypeError, match=r"^device_enable_peer_access: .* \(got type str\)$"):
        acl.rt.device_enable_peer_access("1", 0.5)
    with pytest.raises(TypeError, match=r"^flags: .* \(got type float\)$"):
        acl.rt.device_enable_peer_access(1, 0.5)


@pytest.mark.parametrize("name", [n for n, labels in RT_ARGS.items() if labels])
def test_ints_of_every_kind_pass_the_check(name: str) -> None:
    class Flag(enum.IntEnum):
        ZERO = 0

    check = checker(f"rt.{name}")
    n = len(RT_ARGS[name])
    for value in (0, True, Flag.ZERO, 2**70, -1):
        assert check((value,) * n) is None


def test_top_level_and_util_calls_keep_their_messages() -> None:
    acl = simulated_acl("atlas800t-a2")
    with pytest.raises(TypeError, match=r"^init\(\): argument 1 must be str$"):
        acl.init(5)
    for fn in (acl.util.bytes_to_ptr, acl.util.numpy_to_ptr):
        with pytest.raises(TypeError, match=r"^bytes_to_ptr\(\): a bytes-like object is required$"):
            fn(12)
    with pytest.raises(TypeError, match=r"^ptr_to_bytes: an integer is .* \(got type float\)$"):
        acl.util.ptr_to_bytes(1.0, 4)
    # top level and util: not counted
    assert acl.call_counts == {} and not acl.simulator.ledger()["initialized"]
    assert acl.init(None) == 0 and acl.finalize() == 0


@pytest.mark.parametrize(("call", "args", "message"), [
    ("set_device", (0, 1), "set_device() takes exactly 1 argument (2 given)"),
    ("memcpy", (1, 2), "memcpy() takes exactly 5 arguments (2 given)"),
    ("get_device", (0,), "get_device() takes no arguments (1 given)"),
])
def test_a_wrong_number_of_arguments_is_a_type_error(
        call: str, args: tuple[int, ...], message: str) -> None:
    acl = simulated_acl("atlas800t-a2")
    with pytest.raises(TypeError) as info:
        getattr(acl.rt, call)(*args)
    assert str(info.value) == message
    with pytest.raises(TypeError, match=r"^init\(\) takes at most 1 argument \(2 given\)$"):
        acl.init("a", "b")


def test_every_declared_format_parses() -> None:
    for call in FORMATS:
        checker(call)  # unknown units raise ValueError


# ------------------------------------------------------------------ routes
@contextlib.contextmanager
def copy_setup(acl: SimulatedACL) -> Iterator[tuple[int, int, int]]:
    """Devices 0 and 1 set with peer access both ways, a buffer on each, a stream on
    device 0 (current); (src, dst, stream), all released afterwards."""
    rt = acl.rt
    assert acl.init() == 0
    for dev, peer in ((1, 0), (0, 1)):
        assert rt.set_device(dev) == 0 and rt.device_enable_peer_access(peer, 0) == 0
    (src, _), (dst, _) = rt.malloc(64 * KIB, 0), rt.malloc(64 * KIB, 0)
    stream, _ = rt.create_stream()
    yield src, dst, stream
    assert rt.synchronize_device() == 0 and rt.destroy_stream(stream) == 0
    assert rt.free(src) == 0 and rt.free(dst) == 0
    for dev, peer in ((0, 1), (1, 0)):
        assert rt.set_device(dev) == 0 and rt.device_disable_peer_access(peer) == 0
        assert rt.reset_device(dev) == 0 and rt.reset_device(dev) == 0
    assert acl.finalize() == 0 and acl.simulator.ledger_is_empty(), acl.simulator.ledger()


def test_the_fast_path_and_the_checked_paths_share_one_route() -> None:
    acl = simulated_acl("atlas800t-a2")
    with copy_setup(acl) as (src, dst, stream):
        args = (dst, 64 * KIB, src, 4 * KIB, D2D, stream)
        key = (dst, 64 * KIB, src, 4 * KIB, D2D, 0)  # ... and the current device
        assert acl.rt.memcpy_async(*args) == 0  # the checked path: routes, keeps the copy
        route = acl._router.cache[key]
        assert isinstance(route, Route) and acl._copies.plans[args].route is route
        for _ in range(5):
            assert acl.rt.memcpy_async(*args) == 0  # the fast path
        assert acl._copies.plans[args].route is route and acl._router.cache[key] is route
        assert acl.rt.memcpy(*args[:5]) == 0  # the synchronous copy resolves to it too
        assert acl._router.resolve(*key) == (route, 0)
        assert (route.devices, route.link, route.resources, route.staged, route.count,
                route.nbytes, route.memo_able) == (
            (0, 0), None, (("hbm", 0),), False, 4 * KIB, 4 * KIB, True)
        with pytest.raises(dataclasses.FrozenInstanceError):
            route.count = 1  # type: ignore[misc]
        assert acl.rt.memcpy_async(*args[:5], 0) == 0  # the default stream: another copy
        assert acl._copies.plans[(*args[:5], 0)].route is route  # ... over the same route


def test_a_device_to_device_route_names_its_link() -> None:
    acl = simulated_acl("atlas800t-a3")
    with copy_setup(acl) as (src, _dst, stream):
        assert acl.rt.set_context(CONTEXT_BASE + 1) == 0
        (far, _), _ = acl.rt.malloc(64 * KIB, 0), acl.rt.set_context(CONTEXT_BASE + 0)
        args = (far, 64 * KIB, src, 8 * KIB, D2D, stream)
        assert acl.rt.memcpy_async(*args) == 0 and acl.rt.memcpy_async(*args) == 0
        route = acl._copies.plans[args].route
        assert route.link == (0, 1) and route.devices == (0, 1) and route.device == 0
        assert route.resources[0] == ("link", 0, 1) and not route.staged
        assert acl.rt.free(far) == 0


def test_the_fast_path_skips_the_checks_until_something_changes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[tuple[int, ...]] = []
    real = SimulatedACL._memcpy_async  # the class says which part serves each call

    def counting(self: SimulatedACL, *args: Any) -> Any:
        checked.append(args)
        return real(self, *args)

    monkeypatch.setattr(SimulatedACL, "_memcpy_async", counting)
    acl = simulated_acl("atlas800t-a2")  # binds its calls now: the counting one
    with copy_setup(acl) as (src, dst, stream):
        args = (dst, 64 * KIB, src, 4 * KIB, D2D, stream)
        for _ in range(4):
            assert acl.rt.memcpy_async(*args) == 0
        assert checked == [args]  # once checked, then the fast path
        assert acl.call_counts["rt.memcpy_async"] == 4
        for equal_but_not_int in (float(dst), np.int64(dst)):
            with pytest.raises(TypeError, match=r"^memcpy_async: an integer is required"):
                acl.rt.memcpy_async(equal_but_not_int, *args[1:])
        route = acl._copies.plans[args].route
        assert acl.rt.set_device(1) == 0  # another current device: the checks decide
        assert acl.rt.memcpy_async(*args) == C.ACL_ERROR_RT_STREAM_CONTEXT
        assert not acl._copies.plans and not acl._router.cache  # set_device dropped them
        assert acl.rt.set_context(CONTEXT_BASE + 0) == 0 and acl.rt.reset_device(1) == 0
        assert acl.rt.memcpy_async(*args) == 0
        assert acl._copies.plans[args].route is not route  # routed afresh ...
        assert acl._copies.plans[args].route == route  # ... to the same place
        assert len(checked) == 3  # wrong types never reach it: the format check is first


# ------------------------------------------------------------------ acl.simulator
DOCUMENTED = {"topology", "seed", "host_time_us", "ledger", "ledger_is_empty",
              "call_counts", "implicit_releases", "shared_ledger", "reseed_jitter",
              "host_time_ns", "begin_point", "faults", "app_log_path"}


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
    for name in ("ledger", "ledger_is_empty", "initialized", "device_refs", "host_time_us",
                 "faults", "resident_bytes"):
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


# ------------------------------------------------------------------ size
SIM = Path(sim_pkg.__file__).parent
MODULES = sorted(SIM.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(SIM)) for p in MODULES])
def test_sim_modules_and_functions_stay_small(path: Path) -> None:
    """No sim module over 500 lines, no function over 80 (the formats table is data)."""
    text = path.read_text()
    assert text.count("\n") <= 500
    long = [(node.name, node.end_lineno - node.lineno + 1)  # type: ignore[operator]
            for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > 80]  # type: ignore[operator]
    assert not long


# ---------------------------------------------------------------------- the fluid model
FLUID_LATE = """
from ascend_p2p_lab.sim.engine import Engine
eng = Engine(capacity={("link", 0, 1): 26000.0})
eng.host_us = 1e13  # ~116 virtual days: a 1-byte copy ends within the clock's rounding
a, b = eng.new_stream(0), eng.new_stream(0)
x = eng.enqueue_copy(a, 1, (("link", 0, 1),), latency_us=0.0)
y = eng.enqueue_copy(b, 1 << 20, (("link", 0, 1),), latency_us=0.0)
eng.resolve()
print(x.end - 1e13, y.end - 1e13)
"""


def test_the_fluid_model_ends_a_tiny_copy_late_in_virtual_time() -> None:
    """A copy whose remaining time is below the clock's resolution finished; the loop
    used to spin for ever (run in a child so that a regression fails, not hangs)."""
    import subprocess

    out = subprocess.run([sys.executable, "-c", FLUID_LATE], capture_output=True, text=True,
                         timeout=60, check=True).stdout.split()
    tiny, big = map(float, out)
    assert tiny == 0.0
    assert big == pytest.approx((1 << 20) / 26000.0, rel=1e-4)  # the link alone afterwards
