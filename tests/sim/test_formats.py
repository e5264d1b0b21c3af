"""The simulator's parts: declared argument formats, the shared Route cache, the
``acl.simulator`` interface, and the size of the sim modules.

The wrong-type messages below are the ones the simulator gave before its calls declared
formats (each call checked its own arguments then); they are written out here, not read
from :mod:`ascend_p2p_lab.sim.formats`, so that a change of wording is noticed."""

from __future__ import annotations

import enum
from typing import Any

import numpy as np
import pytest
from helpers import (
    RT_ARGS,
)
from simacl import (
    finish,
    new_acl,
)

from ascend_p2p_lab.sim import (
    simulated_acl,
)
from ascend_p2p_lab.sim.facade import CALLS, NAMESPACES
from ascend_p2p_lab.sim.formats import checker

#: Calls with a string argument (a key): their type checks are tested in test_sim_ipc.py.
KEYED = {"ipc_mem_set_import_pid", "ipc_mem_import_by_key", "ipc_mem_close"}


def test_the_table_covers_every_call() -> None:
    assert set(RT_ARGS) == set(NAMESPACES["rt"]) - KEYED
    for name, labels in RT_ARGS.items():
        assert len(CALLS[f"rt.{name}"].fmt) == len(labels), name


@pytest.mark.parametrize("name", [n for n, labels in RT_ARGS.items() if labels])
def test_ints_of_every_kind_pass_the_check(name: str) -> None:
    class Flag(enum.IntEnum):
        ZERO = 0

    check = checker(CALLS[f"rt.{name}"])
    n = len(RT_ARGS[name])
    for value in (0, True, Flag.ZERO, 2**70, -1):
        assert check((value,) * n) is None


def test_every_declared_format_parses() -> None:
    for call in CALLS.values():
        checker(call)  # unknown units raise ValueError


@pytest.mark.parametrize(
    ("call", "args"),
    [
        ("set_device", ("0",)),
        ("set_device", (0.0,)),
        ("malloc", (1.5, 0)),
        ("malloc", (1024, None)),
        ("memcpy", (None, 8, 1, 8, 1)),
        ("device_enable_peer_access", (1, "0")),
        ("device_can_access_peer", (0, [1])),
        ("create_event_with_flag", (8.0,)),
        ("get_mem_info", ("HBM",)),
    ],
)
def test_wrong_argument_types_raise_type_error(call: str, args: tuple) -> None:
    acl = new_acl()
    with pytest.raises(TypeError):
        getattr(acl.rt, call)(*args)
    assert not acl.get_recent_err_msg()  # a Python exception, not an ACL error
    finish(acl)


def test_init_with_a_non_string_config_raises_type_error() -> None:
    acl = simulated_acl("atlas800t-a2")
    with pytest.raises(TypeError):
        acl.init(5)
    assert acl.simulator.ledger_is_empty()


WRONG = [(1.0, "float"), ("1", "str"), (None, "NoneType"), (np.int64(1), "int64"), ([1], "list")]


POSITIONS = [(name, pos) for name, labels in RT_ARGS.items() for pos in range(len(labels))]


# ------------------------------------------------------------------ declared formats
@pytest.mark.parametrize(("name", "pos"), POSITIONS)
@pytest.mark.parametrize(("bad", "type_name"), WRONG)
def test_a_wrong_type_raises_the_same_type_error_as_before(
    name: str, pos: int, bad: object, type_name: str
) -> None:
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


@pytest.mark.parametrize(
    ("call", "args", "message"),
    [
        ("set_device", (0, 1), "set_device() takes exactly 1 argument (2 given)"),
        ("memcpy", (1, 2), "memcpy() takes exactly 5 arguments (2 given)"),
        ("get_device", (0,), "get_device() takes no arguments (1 given)"),
    ],
)
def test_a_wrong_number_of_arguments_is_a_type_error(
    call: str, args: tuple[int, ...], message: str
) -> None:
    acl = simulated_acl("atlas800t-a2")
    with pytest.raises(TypeError) as info:
        getattr(acl.rt, call)(*args)
    assert str(info.value) == message
    with pytest.raises(TypeError, match=r"^init\(\) takes at most 1 argument \(2 given\)$"):
        acl.init("a", "b")
