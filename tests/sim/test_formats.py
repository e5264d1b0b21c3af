"""The simulator's parts: declared argument formats, the shared Route cache, the
``acl.simulator`` interface, and the size of the sim modules.

The wrong-type messages below are the ones the simulator gave before its calls declared
formats (each call checked its own arguments then); they are written out here, not read
from :mod:`ascend_p2p_lab.sim.formats`, so that a change of wording is noticed."""

from __future__ import annotations

import enum

import pytest
from helpers import RT_ARGS

from ascend_p2p_lab.sim.formats import FORMATS, RT_CALLS, checker

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
