"""Errors from the ACL layer: AclError, and the reliability matrix of injected faults against
every operation.

- Bad device ids and a buffer larger than device memory raise an AclError that names the
  call, in one line, with nothing allocated.
- The fault matrix (docs/reliability.md has the table): each fault of helpers.FAULT_CASES
  against each operation of helpers.OPERATIONS (probe, peer toggles, enable_all, four
  sweeps, the dashboard, the link panel, a saved sweep resumed from its checkpoint) is
  raised, recorded, or leaves the result as on a healthy server, as the case says.
- After any failure every buffer, stream and event the operation made is released, peer
  access is as it was before, and the runtime then closes to an empty simulator ledger.
- The rows measured before a failure are returned (in ``exc.partial_run`` when the
  operation raises) and saved; an operation that completes has the rows of every point,
  measured or carrying the error.
- Every error, as text and in the error columns, names the ACL call, the code, its
  symbolic name and the runtime's message.
- Faults the matrix cannot hold: a failing aclInit, an error fault that fires on the very
  call it names, a lost device that fails every later call (close still releases
  everything).
- AclError itself: every field, the message consumed from acl.get_recent_err_msg(), the
  out-values of rt.call unwrapped, a pickling round trip. Runtime methods raise it, or
  ValueError and TypeError for bad arguments; peer_links failing half way disables what it
  enabled; the acl backend without pyACL says how to get it.
- Memoized copy plans: disabling peer access fails the same copy again, and a fault still
  fires on a memoized copy.

Faults are injected by the simulator (``open_runtime(..., faults=[...])``). The tests pick
the backend explicitly or steer ``import acl`` through ``sys.modules``, so they behave the
same on a machine that has CANN."""

from __future__ import annotations

import pickle
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from helpers import FAULT_CASES as FAULTS
from helpers import (
    OPERATIONS,
    FaultCase,
    Outcome,
    _err,
    _error_texts,
    _open,
    all_released,
    assert_acl_error,
    assert_names_the_call,
    assert_released,
    nothing_allocated,
    one_line,
)

from ascend_p2p_lab import codes as C
from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.codes import error_name
from ascend_p2p_lab.results import (
    ERROR_KINDS,
)
from ascend_p2p_lab.runtime import (
    ENV_BACKEND,
    ENV_PRESET,
    ENV_SEED,
    AclError,
    BackendUnavailable,
    Runtime,
)

MIB, GIB = 1 << 20, 1 << 30


@pytest.fixture
def a2() -> Iterator[Runtime]:
    with open_runtime("sim", "atlas800t-a2") as rt:
        yield rt


def test_device_ids_out_of_range_in_the_runtime_layer_name_the_call(a2: Runtime) -> None:
    with pytest.raises(AclError) as info:
        a2.device_buffer(8, 4096)
    assert info.value.call == "acl.rt.set_device" and "8" in info.value.message
    with pytest.raises(AclError) as info:
        a2.device_buffer(-1, 4096)
    assert info.value.name == "ACL_ERROR_RT_PARAM_INVALID"
    nothing_allocated(a2)


def test_a_buffer_larger_than_device_memory_names_the_call(a2: Runtime) -> None:
    with pytest.raises(AclError) as info:
        a2.device_buffer(0, 65 * GIB)
    assert info.value.call == "acl.rt.malloc" and info.value.code == 207001
    assert "out of device memory" in one_line(info.value)
    nothing_allocated(a2)


def assert_error_columns(frame: pd.DataFrame | None) -> None:
    """Every row that has an error text has it as data too: a known kind, and for the
    kinds that come from a failed call the ACL code and the call, which the text names."""
    if frame is None or "error_kind" not in frame:
        return
    bad = frame[frame["error"].notna()]
    assert bad["error_kind"].notna().all(), bad[["error", "error_kind"]]
    assert set(bad["error_kind"]) <= set(ERROR_KINDS)
    assert frame.loc[frame["error"].isna(), "error_kind"].isna().all()
    from_calls = bad[
        bad["error_kind"].isin(["runtime", "refused", "device_lost"]) & bad["error_code"].notna()
    ]
    for row in from_calls.itertuples(index=False):
        assert row.error_call.startswith("acl.") and row.error_call in row.error, row
        assert str(row.error_code) in row.error and error_name(row.error_code) in row.error


def _is_reason(text: str) -> bool:
    """An unreachable pair's reason, not a failed call."""
    return "cannot access peer" in text or "= 0 (link" in text


_POINT = ["pattern", "direction", "peer", "path", "src", "dst", "size_bytes"]


_BASELINES: dict[str, Outcome] = {}


def _baseline(op_name: str, tmp: Path) -> Outcome:
    """The operation on a healthy server (computed once per operation)."""
    if op_name not in _BASELINES:
        with _open() as rt:
            _BASELINES[op_name] = OPERATIONS[op_name](rt, tmp / "baseline")
    return _BASELINES[op_name]


def _points(frame: pd.DataFrame) -> set[tuple[Any, ...]]:
    return set(frame[_POINT].astype(object).itertuples(index=False, name=None))


def _expected(case: FaultCase, op: str) -> str:
    if op in case.raised:
        return "raised"
    return "recorded" if op in case.recorded else "unaffected"


@pytest.mark.parametrize("op_name", list(OPERATIONS))
@pytest.mark.parametrize("fault_name", list(FAULTS))
def test_fault_matrix(fault_name: str, op_name: str, tmp_path: Path) -> None:
    case = FAULTS[fault_name]
    rt = _open([case.fault])
    refs_before = rt.peer_refs()
    try:
        outcome = OPERATIONS[op_name](rt, tmp_path)
        texts = [*outcome.texts, *_error_texts(outcome.frame)]
        if isinstance(outcome.raised, AclError):
            assert_acl_error(outcome.raised)
            texts.append(str(outcome.raised))
        for text in texts:
            if not _is_reason(text) or "failed" in text:
                assert_names_the_call(text)
        assert_error_columns(outcome.frame)
        mine = [t for t in texts if case.marker and case.marker in t]
        if outcome.raised is not None:
            got = "raised"
            assert mine, texts
        else:
            got = "recorded" if mine else "unaffected"
        assert got == _expected(case, op_name), (got, texts)
        base = _baseline(op_name, tmp_path)
        if outcome.frame is not None and base.frame is not None and op_name != "probe":
            # no silent gaps: every point has its rows, measured or carrying the error
            if got == "raised":
                assert _points(outcome.frame) <= _points(base.frame)
            else:
                assert _points(outcome.frame) == _points(base.frame)
            if got == "unaffected":
                keep = [*_POINT, "sample"]
                pd.testing.assert_frame_equal(
                    outcome.frame[keep].reset_index(drop=True),
                    base.frame[keep].reset_index(drop=True),
                )
                assert outcome.frame["error"].isna().equals(base.frame["error"].isna())
        if op_name == "probe" and got == "unaffected":
            pd.testing.assert_frame_equal(outcome.frame, base.frame)
        assert_released(rt, refs_before)
    finally:
        rt.close()
    assert rt.acl.simulator.ledger_is_empty(), rt.acl.simulator.ledger()


# ------------------------------------------------------------- faults the matrix cannot hold
def test_a_failing_init_raises_and_leaves_nothing() -> None:
    with pytest.raises(AclError) as info:
        _open([_err("init", 500001, 1)])
    assert_acl_error(info.value)
    assert info.value.call == "acl.init"


def _touch_every_call(rt: Runtime) -> None:
    """Make each call of a timed copy window once on device 0."""
    with rt.stream(0) as stream:
        start, end = rt.event(0), rt.event(0)
        start.record(stream)
        rt.wait_event(stream, start)
        end.record(stream)
        rt.elapsed_ms(start, end)
        rt.mem_info(0)
        start.close()
        end.close()


@pytest.mark.parametrize(
    "call",
    [
        "destroy_stream",
        "destroy_event",
        "event_elapsed_time",
        "stream_wait_event",
        "get_mem_info",
        "create_event_with_flag",
        "create_stream",
        "record_event",
        "synchronize_event",
    ],
)
def test_an_error_fault_fires_on_the_call_it_names(call: str) -> None:
    with _open([_err(f"rt.{call}", 507000, 1)]) as rt:
        with pytest.raises(AclError) as info:
            _touch_every_call(rt)
        assert info.value.call == f"acl.rt.{call}" and info.value.code == 507000


@pytest.mark.parametrize(
    "call",
    [
        "get_mem_info",
        "stream_wait_event",
        "event_elapsed_time",
        "record_event",
        "synchronize_event",
    ],
)
def test_a_lost_device_fails_every_later_call(call: str) -> None:
    lost = {"kind": "device_lost", "device": 1, "call": "rt.create_stream", "nth": 2}
    with _open([lost]) as rt:
        stream = rt.stream(1)
        start, end = rt.event(1), rt.event(1)
        start.record(stream)
        end.record(stream)
        with pytest.raises(AclError):
            rt.stream(1)  # the device is lost from here on
        calls = {
            "get_mem_info": lambda: rt.mem_info(1),
            "stream_wait_event": lambda: rt.wait_event(stream, start),
            "event_elapsed_time": lambda: rt.call(
                "rt.event_elapsed_time", start.handle, end.handle
            ),
            "record_event": lambda: start.record(stream),
            "synchronize_event": end.synchronize,
        }
        with pytest.raises(AclError) as info:
            calls[call]()
        assert info.value.code == 507010


# ------------------------------------------------------------------------------------ helpers
@pytest.fixture(autouse=True)
def _no_backend_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start every test without the backend variables (the root conftest sets some)."""
    for name in (ENV_BACKEND, ENV_PRESET, ENV_SEED):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def no_pyacl(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``import acl`` fail, whatever is installed."""
    monkeypatch.setitem(sys.modules, "acl", None)


def test_acl_backend_without_pyacl_says_how_to_get_it(no_pyacl: None) -> None:
    with pytest.raises(BackendUnavailable) as info:
        open_runtime("acl")
    text = str(info.value)
    assert "CANN" in text and "set_env.sh" in text


# ------------------------------------------------------------------------------- AclError
def test_a_nonzero_ret_raises_acl_error_with_everything_known() -> None:
    with open_runtime("sim") as rt:
        with pytest.raises(AclError) as info:
            rt.call("rt.set_device", 64)
        e = info.value
        assert e.call == "acl.rt.set_device" and e.call_args == (64,)
        assert e.code == C.ACL_ERROR_RT_PARAM_INVALID == 107000
        assert e.name == "ACL_ERROR_RT_PARAM_INVALID"
        assert "out of range" in e.message  # acl.get_recent_err_msg()
        assert str(e).startswith(
            "acl.rt.set_device(64) returned 107000 (ACL_ERROR_RT_PARAM_INVALID): "
        )
        assert not rt.acl.get_recent_err_msg()  # the message was consumed

        rt.use(0)
        with pytest.raises(AclError) as info:
            rt.call("rt.device_enable_peer_access", 1, 4)
        assert (info.value.code, info.value.name) == (200006, "ACL_ERROR_FEATURE_UNSUPPORTED")
        assert info.value.call_args == (1, 4) and "flags" in info.value.message

        assert rt.call("rt.get_device_count") == 8  # one out-value: unwrapped
        assert rt.call("rt.get_mem_info", C.MemAttr.HBM_MEM)[1] == 64 * GIB  # several: a tuple
        assert rt.call("rt.synchronize_device") is None  # only ret


def test_runtime_methods_raise_acl_error() -> None:
    with open_runtime("sim", "atlas300i-310") as rt:
        assert not rt.can_access_peer(0, 1)
        assert not rt.can_access_peer(2, 2)  # equal ids: False without asking ACL
        with pytest.raises(AclError) as info:
            rt.enable_peer(0, 1)
        assert info.value.code == C.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        assert info.value.call == "acl.rt.device_enable_peer_access"
        assert "cannot access" in info.value.message
        assert rt.peer_refs() == {}
        with pytest.raises(AclError) as info:
            rt.device_buffer(0, 1 << 40)
        assert info.value.code == C.ACL_ERROR_RT_MEMORY_ALLOCATION
        with pytest.raises(ValueError, match="not enabled by this runtime"):
            rt.disable_peer(0, 1)
        with pytest.raises(ValueError, match="out of range"):
            rt.check_device(8)
        with pytest.raises(TypeError):
            rt.check_device(True)


def test_acl_error_survives_pickling() -> None:
    e = AclError("acl.rt.memcpy", (1 << 44, 4096), 507899, "driver said no")
    back = pickle.loads(pickle.dumps(e))
    assert (back.call, back.call_args, back.code, back.name, back.message) == (
        e.call,
        e.call_args,
        507899,
        "ACL_ERROR_RT_DRV_INTERNAL_ERROR",
        "driver said no",
    )
    assert "0x100000000000" in str(back)


def test_peer_links_failing_half_way_disable_what_they_enabled() -> None:
    with open_runtime("sim", "atlas300i-duo") as rt:
        with pytest.raises(AclError) as info:
            rt.peer_links([(0, 1), (1, 0), (0, 2)])  # 0 -> 2 crosses cards
        assert info.value.code == C.ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        assert rt.peer_refs() == {}
        assert rt.acl.simulator.ledger()["peer_refs"] == {}
        assert rt.open_resources() == []


def test_close_after_a_device_is_lost_still_releases_everything() -> None:
    lost = {"kind": "device_lost", "device": 1, "call": "rt.create_stream"}
    with open_runtime("sim", faults=[lost]) as rt:
        sim = rt.acl
        rt.peer_links([(0, 1), (1, 0)])
        rt.device_buffer(1, MIB)
        rt.device_buffer(0, MIB)
        with pytest.raises(AclError) as info:
            rt.stream(1)
        assert info.value.code == C.ACL_ERROR_RT_LOST_HEARTBEAT
        with pytest.raises(AclError):
            rt.device_buffer(1, MIB)
    assert all_released(sim)


# ------------------------------------------------------- memoized plans are invalidated
def test_disabling_peer_access_fails_the_same_copy_again():
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        src, dst = rt.device_buffer(0, 1 << 20), rt.device_buffer(1, 1 << 20)
        stream = rt.stream(0)
        links = rt.peer_links([(0, 1), (1, 0)])
        rt.enqueue_copies(dst, src, 4096, stream, 5)
        links.close()
        with pytest.raises(AclError) as err:
            rt.enqueue_copies(dst, src, 4096, stream, 5)
        assert err.value.code == rt.topology.peer_off_error
        with rt.peer_links([(0, 1), (1, 0)]):
            rt.enqueue_copies(dst, src, 4096, stream, 5)
        stream.synchronize()


def test_faults_still_fire_on_memoized_copies():
    fault = {"kind": "error", "call": "rt.memcpy_async", "nth": 4, "code": 507013}
    with open_runtime("sim", preset="atlas800t-a2", faults=[fault]) as rt:
        src, dst = rt.device_buffer(0, 1 << 20), rt.device_buffer(1, 1 << 20)
        stream = rt.stream(0)
        with rt.peer_links([(0, 1), (1, 0)]):
            rt.enqueue_copies(dst, src, 4096, stream, 3)
            with pytest.raises(AclError) as err:
                rt.enqueue_copies(dst, src, 4096, stream, 3)
            assert err.value.code == 507013
            rt.enqueue_copies(dst, src, 4096, stream, 3)  # nth=4 fires once
            stream.synchronize()
