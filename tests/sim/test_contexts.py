"""Contexts (sim/contexts.py), as real pyACL clients use them (issue 29): the default and
explicit contexts, their misuse codes, a stream belongs to its context, finalize releases
them, one current context per thread; and the one-line message for a call the simulator
lacks.

Each test renders, in our own code, a pattern of Ascend/samples' memory-management samples
or of AclLite (python/common/acllite), and checks the codes the runtime's source gives.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from helpers import KIB
from simacl import (
    D2D,
    ok,
    started,
)

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.sim import shim_path, simulated_acl
from ascend_p2p_lab.sim.contexts import EXPLICIT_BASE
from ascend_p2p_lab.sim.devices import CONTEXT_BASE
from ascend_p2p_lab.sim.facade import NotSimulated

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------------- contexts
def test_set_device_makes_the_default_context_and_create_context_an_explicit_current_one():
    acl = started()
    ok(acl.rt.set_device(0))
    assert acl.rt.get_context() == (CONTEXT_BASE, 0)  # implicit: the default context
    ctx = ok(acl.rt.create_context(1))
    assert ctx >= EXPLICIT_BASE and acl.rt.get_context() == (ctx, 0)  # current at once
    assert acl.rt.get_device() == (1, 0)  # its device is the current device
    ptr = ok(acl.rt.malloc(4 * KIB, 0))
    assert ptr >> 40 == (0x1000_0000_0000 >> 40) + 1  # device 1's memory
    ok(acl.rt.set_context(CONTEXT_BASE))  # back to device 0 (switching the device too)
    assert acl.rt.get_device() == (0, 0)
    ok(acl.rt.set_context(ctx))
    ok(acl.rt.free(ptr))
    ok(acl.rt.destroy_context(ctx))  # the thread falls back to device 0's default context
    assert acl.rt.get_context() == (CONTEXT_BASE, 0) and acl.rt.get_device() == (0, 0)
    ok(acl.rt.reset_device(0))
    ok(acl.finalize())
    assert acl.simulator.ledger_is_empty()


def test_context_misuse_returns_the_runtimes_codes():
    acl = started()
    ok(acl.rt.set_device(0))
    assert acl.rt.create_context(8)[1] == C.ACL_ERROR_RT_INVALID_DEVICEID  # RT_ERROR_DEVICE_ID
    assert acl.rt.create_context(-1)[1] == C.ACL_ERROR_RT_INVALID_DEVICEID
    assert acl.rt.destroy_context(0) == C.ACL_ERROR_INVALID_PARAM  # the ACL null check
    assert acl.rt.set_context(0) == C.ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_context(CONTEXT_BASE) == C.ACL_ERROR_RT_CONTEXT_NULL  # a default one
    assert "default context" in acl.get_recent_err_msg()
    ctx = ok(acl.rt.create_context(0))
    ok(acl.rt.destroy_context(ctx))
    assert acl.rt.destroy_context(ctx) == C.ACL_ERROR_RT_CONTEXT_NULL  # already destroyed
    assert acl.rt.set_context(ctx) == C.ACL_ERROR_RT_PARAM_INVALID  # not a valid context
    ok(acl.rt.reset_device(0))
    ok(acl.finalize())
    assert acl.simulator.ledger_is_empty()


@pytest.mark.keeps_ledger  # the destroyed context's stream is an implicit release
def test_a_stream_belongs_to_its_context():
    acl = started()
    ok(acl.rt.set_device(0))
    s_default = ok(acl.rt.create_stream())
    ctx = ok(acl.rt.create_context(0))  # the same device, another context
    s_ctx = ok(acl.rt.create_stream())
    a = ok(acl.rt.malloc(4 * KIB, 0))
    b = ok(acl.rt.malloc(4 * KIB, 0))
    ok(acl.rt.memcpy_async(b, 4 * KIB, a, 4 * KIB, D2D, s_ctx))
    ok(acl.rt.memcpy_async(b, 4 * KIB, a, 4 * KIB, D2D, 0))  # the context's default stream
    assert (
        acl.rt.memcpy_async(b, 4 * KIB, a, 4 * KIB, D2D, s_default) == C.ACL_ERROR_RT_STREAM_CONTEXT
    )  # made in the default context, not the current one
    assert "belongs to context" in acl.get_recent_err_msg()
    ok(acl.rt.synchronize_stream(s_ctx))
    ok(acl.rt.set_context(CONTEXT_BASE))
    assert acl.rt.memcpy_async(b, 4 * KIB, a, 4 * KIB, D2D, s_ctx) == C.ACL_ERROR_RT_STREAM_CONTEXT
    ok(acl.rt.memcpy_async(b, 4 * KIB, a, 4 * KIB, D2D, s_default))
    ok(acl.rt.synchronize_stream(s_default))
    ok(acl.rt.destroy_stream(s_default))
    for p in (a, b):
        ok(acl.rt.free(p))
    ok(acl.rt.destroy_context(ctx))  # its stream goes with it
    assert acl.simulator.ledger()["streams"] == 0
    assert any(
        f"stream {s_ctx} destroyed by aclrtDestroyContext" in r
        for r in acl.simulator.implicit_releases
    )
    ok(acl.rt.reset_device(0))
    ok(acl.finalize())


@pytest.mark.keeps_ledger  # finalize's releases are the point
def test_an_explicit_context_holds_its_device_and_finalize_releases_it():
    acl = started()
    ctx = ok(acl.rt.create_context(2))  # no aclrtSetDevice: the context opens device 2
    ptr = ok(acl.rt.malloc(4 * KIB, 0))
    assert acl.rt.get_device() == (2, 0)
    ok(acl.rt.set_device(2))
    ok(acl.rt.reset_device(2))  # the set reference goes; the context still holds it
    ok(acl.rt.set_context(ctx))
    ok(acl.rt.memset(ptr, 4 * KIB, 1, 4 * KIB))  # the buffer is still there
    ok(acl.finalize())
    led = acl.simulator.ledger()
    assert led["contexts"] == 0 and led["device_buffers"] == 0
    assert any(f"context {ctx:#x} destroyed by aclFinalize" in r for r in led["implicit_releases"])


def test_each_thread_has_its_own_current_context():
    acl = started()
    ok(acl.rt.set_device(0))
    ctx = ok(acl.rt.create_context(1))
    seen: list = []
    thread = threading.Thread(
        target=lambda: (
            seen.append(acl.rt.get_context()),
            seen.append(acl.rt.set_context(ctx)),
            seen.append(acl.rt.get_device()),
        )
    )
    thread.start()
    thread.join(10)
    assert seen == [(0, C.ACL_ERROR_RT_CONTEXT_NULL), 0, (1, 0)]  # shared once it is set
    assert acl.rt.get_context() == (ctx, 0)
    ok(acl.rt.destroy_context(ctx))
    ok(acl.rt.reset_device(0))
    ok(acl.finalize())
    assert acl.simulator.ledger_is_empty()


# ------------------------------------------------------------------------- what is missing
def test_a_call_the_simulator_lacks_says_so_in_one_line():
    acl = simulated_acl("atlas800t-a2")
    for get in (
        lambda: acl.rt.memcpy2d,
        lambda: acl.mdl,
        lambda: acl.media.dvpp_vpc_resize,
        lambda: acl.util.ptr_to_numpy,
    ):
        with pytest.raises(NotSimulated) as info:
            get()
        text = str(info.value)
        assert "\n" not in text and "ascend_p2p_lab simulator" in text
        assert "simulator-calls.md" in text
    assert not hasattr(acl.rt, "memcpy2d")  # an AttributeError: feature checks still work
    old = simulated_acl("atlas800t-a2", api_level="old")
    with pytest.raises(NotSimulated, match="api_level='old'"):
        _ = old.rt.get_devices_topo


def test_the_shim_module_reports_missing_names_too():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(shim_path()), str(ROOT)]))
    code = "import acl\ntry:\n    acl.op.execute\nexcept AttributeError as e:\n    print(e)"
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.startswith("acl.op is not implemented by the ascend_p2p_lab simulator")


def test_the_documented_list_is_the_simulators():
    """Each call's row (its format, the part that serves it, newer or not) is its
    declaration's (sim.part.pyacl)."""
    from ascend_p2p_lab.sim.facade import CALLS

    doc = (ROOT / "docs" / "reference" / "simulator-calls.md").read_text()
    listed = [line for line in doc.splitlines() if line.startswith("| `acl.")]
    declared = [
        f"| `acl.{c.name}` | `{c.fmt or '(none)'}` | {c.part[1:]} | {'yes' if c.newer else ''} |"
        for c in CALLS.values()
    ]
    assert sorted(listed) == sorted(declared)
