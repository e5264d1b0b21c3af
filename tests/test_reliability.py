"""Reliability: injected faults against every operation, Ctrl-C at chosen points, resumable
sweeps, and a second sweep or a second thread at the same time.

The guarantees under test (docs/reliability.md has the table):

- after any failure, and after a KeyboardInterrupt, every buffer, stream and event the
  operation made is released, peer access is as it was before, and the runtime then
  closes to an empty simulator ledger (tests/conftest.py checks that last part too);
- the rows measured before a failure are returned (in ``exc.partial_frame`` when the
  operation raises) and, when ``out=`` was given, saved;
- every error names the ACL call, the code, its symbolic name and the runtime's message.

Faults are injected by the simulator (``open_runtime(..., faults=[...])``); interrupts by
wrapping one ``acl.rt`` function so that its Nth call raises KeyboardInterrupt *before*
reaching the simulator.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.codes import error_name
from ascend_p2p_lab.measure import (
    disable,
    disable_all,
    enable_all,
    execute,
    probe,
    sweep,
    sweep_run,
)
from ascend_p2p_lab.measure.checkpoint import Checkpoint, pack_rows, unpack_rows
from ascend_p2p_lab.measure.peerstate import PeerRestoreError
from ascend_p2p_lab.results import ERROR_KINDS, load_run, save_run
from ascend_p2p_lab.runtime import AclError, Runtime
from ascend_p2p_lab.sim import LIVE
from ascend_p2p_lab.topology import Topology, load_preset


# ------------------------------------------------------------------------------ the server
def _cut(preset: str, n: int, **overrides: Any) -> Topology:
    """The first n devices of a preset (a smaller server runs the matrix faster)."""
    full = load_preset(preset)
    return dataclasses.replace(full, name=f"{preset}-{n}", labels=full.labels[:n],
                               links=tuple(row[:n] for row in full.links[:n]),
                               cpu_affinity=full.cpu_affinity[:n], **overrides)


checkpoint_module = importlib.import_module("ascend_p2p_lab.measure.checkpoint")
A2x4 = _cut("atlas800t-a2", 4)
A2x4_EXACT = _cut("atlas800t-a2", 4, jitter=0.0)  # for frames compared number by number
#: A sweep that takes a few milliseconds of host time.
QUICK: dict[str, Any] = {"sizes": "4KiB,64KiB", "samples": 2, "warmup": 1,
                         "min_sample_us": 20.0, "max_copies": 4, "progress": False}


def _open(faults: list[dict[str, Any]] | None = None, topology: Topology = A2x4) -> Runtime:
    return open_runtime("sim", topology=topology, faults=faults)


# ------------------------------------------------------------------------------- checks
#: "acl.rt.malloc(4096, 3) returned 207001 (ACL_ERROR_RT_MEMORY_ALLOCATION): EE207001: ..."
_ACL_TEXT = re.compile(r"acl\.[\w.]+\(.*?\) returned (\d+) \((ACL_[A-Z0-9_]+)\): EE(\d+): \S")
#: a failed direct copy: "ACL_ERROR_RT_... (507899) from acl.rt.memcpy_async: EE507899: ..."
_DIRECT_TEXT = re.compile(r"(ACL_[A-Z0-9_]+) \((\d+)\) from acl\.[\w.]+: EE(\d+): \S")


def assert_names_the_call(text: str) -> None:
    """An error text names the ACL call, the code, its symbolic name and the runtime's
    message (pyACL's ``EE<code>: ...`` text)."""
    m = _ACL_TEXT.search(text)
    if m:
        code, name, ee = m.groups()
    else:
        m = _DIRECT_TEXT.search(text)
        assert m, f"error text does not name an ACL call, code and name: {text!r}"
        name, code, ee = m.groups()
    assert error_name(int(code)) == name and ee == code, text


def assert_acl_error(exc: BaseException) -> None:
    assert isinstance(exc, AclError), f"{type(exc).__name__}: {exc}"
    assert exc.call.startswith("acl.") and exc.call in str(exc)
    assert exc.name == error_name(exc.code) and exc.name in str(exc)
    assert str(exc.code) in str(exc)
    assert exc.message.startswith(f"EE{exc.code}: ") and exc.message in str(exc)
    assert_names_the_call(str(exc))


def _error_texts(frame: pd.DataFrame | None) -> list[str]:
    if frame is None or "error" not in frame:
        return []
    return [str(e) for e in frame["error"].dropna().unique()]


def assert_error_columns(frame: pd.DataFrame | None) -> None:
    """Every row that has an error text has it as data too: a known kind, and for the
    kinds that come from a failed call the ACL code and the call, which the text names."""
    if frame is None or "error_kind" not in frame:
        return
    bad = frame[frame["error"].notna()]
    assert bad["error_kind"].notna().all(), bad[["error", "error_kind"]]
    assert set(bad["error_kind"]) <= set(ERROR_KINDS)
    assert frame.loc[frame["error"].isna(), "error_kind"].isna().all()
    from_calls = bad[bad["error_kind"].isin(["runtime", "refused", "device_lost"])
                     & bad["error_code"].notna()]
    for row in from_calls.itertuples(index=False):
        assert row.error_call.startswith("acl.") and row.error_call in row.error, row
        assert str(row.error_code) in row.error and error_name(row.error_code) in row.error


def _is_reason(text: str) -> bool:
    """An unreachable pair's reason, not a failed call."""
    return "cannot access peer" in text or "= 0 (link" in text


def assert_released(rt: Runtime, refs_before: dict[tuple[int, int], int]) -> None:
    """Nothing the operation made is still held; peer access is as it was before."""
    assert rt.open_resources() == []
    assert rt.peer_refs() == refs_before
    ledger = rt.ledger()
    assert ledger is not None
    held = (ledger["device_buffers"], ledger["host_buffers"], ledger["streams"],
            ledger["events"])
    assert held == (0, 0, 0, 0), ledger
    assert ledger["peer_refs"] == {f"{a}->{b}": n for (a, b), n in refs_before.items()}
    assert ledger["implicit_releases"] == []


def close_clean(rt: Runtime) -> None:
    """Close; the runtime finalizes what it initialized and the simulator holds nothing."""
    sim = rt.acl
    rt.close()
    assert rt.closed and not sim.simulator.ledger()["initialized"]
    assert sim.simulator.ledger_is_empty(), sim.simulator.ledger()


def _same_frames(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Equal but for run ids, to the bit (each point starts at the clock's origin)."""
    assert list(a.columns) == list(b.columns) and len(a) == len(b)
    rest = [c for c in a.columns if c != "run_id"]
    pd.testing.assert_frame_equal(a[rest].reset_index(drop=True),
                                  b[rest].reset_index(drop=True), check_exact=True)


# ---------------------------------------------------------------------------- operations
@dataclass
class Outcome:
    """What an operation gave back: a frame, an exception, and every error text it showed."""

    frame: pd.DataFrame | None = None
    raised: BaseException | None = None
    texts: list[str] = field(default_factory=list)
    refs_before: dict[tuple[int, int], int] = field(default_factory=dict)


def op_probe(rt: Runtime, tmp: Path) -> Outcome:
    out = Outcome()
    try:
        out.frame = probe(rt)
    except AclError as exc:
        out.raised, out.frame = exc, exc.partial_frame  # type: ignore[attr-defined]
        assert len(out.frame) < 4 * 3 and "failed" in out.frame.attrs["run"]
    return out


def op_toggle(rt: Runtime, tmp: Path) -> Outcome:
    """Enable 0->1 and 1->0 one by one, then disable them; a failed call changes nothing."""
    out = Outcome()
    for src, dst in ((0, 1), (1, 0)):
        reason = links_try_enable(rt, src, dst)
        if reason:
            out.texts.append(reason)
            assert not rt.peer_enabled(src, dst)
    for src, dst in ((0, 1), (1, 0)):
        if not rt.peer_enabled(src, dst):
            continue
        before = rt.peer_refs()
        try:
            disable(rt, src, dst)
        except AclError as exc:
            assert_acl_error(exc)
            out.texts.append(str(exc))
            assert rt.peer_refs() == before  # the failed disable changed nothing
            disable(rt, src, dst)  # as a user would: again
    return out


def links_try_enable(rt: Runtime, src: int, dst: int) -> str | None:
    from ascend_p2p_lab.measure import try_enable

    return try_enable(rt, src, dst)


def op_enable_all(rt: Runtime, tmp: Path) -> Outcome:
    out = Outcome()
    try:
        refused = enable_all(rt)
    except AclError as exc:  # while finding the reachable pairs: nothing was enabled
        out.raised = exc
        assert rt.peer_refs() == {}
        return out
    out.texts += list(refused.values())
    assert all(not rt.peer_enabled(*pair) for pair in refused)
    before = rt.peer_refs()
    try:
        disable_all(rt)
    except AclError as exc:
        assert_acl_error(exc)
        out.texts.append(str(exc))
        assert rt.peer_refs() == before  # taken back
        disable_all(rt)
    return out


def _sweep_op(**kwargs: Any) -> Callable[[Runtime, Path], Outcome]:
    def op(rt: Runtime, tmp: Path) -> Outcome:
        out = Outcome()
        folder = tmp / "run"
        try:
            run = sweep_run(rt, **{**QUICK, **kwargs})
        except AclError as exc:
            out.raised = exc
            run = exc.partial_run  # type: ignore[attr-defined]
            assert run.meta.failed and exc.partial_frame.attrs["run"]["failed"]  # type: ignore[attr-defined]
        out.frame = run.frame()
        if not run.meta.run_id:
            assert len(run) == 0  # failed before the first point: nothing to save
        else:  # saved as the command saves it, also after a failure
            save_run(run, folder)
            pd.testing.assert_frame_equal(load_run(folder), out.frame)
            assert not list(folder.glob(".*.tmp"))
        return out

    return op


def op_save_and_resume(rt: Runtime, tmp: Path) -> Outcome:
    """A sweep with out= and a checkpoint under the fault, then the same sweep again on a
    healthy server: it measures only what the first one did not complete."""
    kwargs = {**QUICK, "pairs": "0-1,1-0,2-3", "checkpoint": tmp / "ckpt.jsonl"}
    out = Outcome()
    try:
        out.frame = sweep(rt, **kwargs)
    except AclError as exc:
        out.raised, out.frame = exc, exc.partial_frame  # type: ignore[attr-defined]
    if out.frame is not None and len(out.frame):
        save_run(out.frame, tmp / "run")
        pd.testing.assert_frame_equal(load_run(tmp / "run"), out.frame)
    with _open(topology=A2x4) as healthy:
        resumed = sweep(healthy, **kwargs)
        save_run(resumed, tmp / "resumed")
    assert not any("injected" in t or "lost" in t for t in _error_texts(resumed))
    assert resumed["bandwidth_GBps"].notna().all()  # every point measured once
    keys = ["src", "dst", "size_bytes", "sample"]
    assert not resumed.duplicated(keys).any() and len(resumed) == 3 * 2 * 2
    return out


def op_dashboard(rt: Runtime, tmp: Path) -> Outcome:
    widgets = pytest.importorskip("ascend_p2p_lab.widgets")
    out = Outcome()
    try:
        dash = widgets.SweepDashboard(rt)
    except AclError as exc:
        out.raised = exc
        return out
    out.texts += list(dash.probe_errors.values())
    if dash.probe_errors:  # shown, not swallowed
        assert dash.message.startswith(f"ready, but probing {len(dash.probe_errors)} pair(s) "
                                       "failed, e.g. ")
    dash.chunk_pairs = 1
    dash.pairs_mode.value = "selected"
    dash.pairs.value = ("0-1", "1-0", "2-3")
    dash.sizes.value = (4096, 8192)
    dash.samples.value = 1
    dash.peer.value = "both"
    dash.plots.value = False
    out.frame = dash.run()
    assert not dash.busy and dash.links is not None and dash.links.locked is None
    assert_panel_mirrors_runtime(dash.links)
    if dash.message.startswith(("sweep failed", "cannot run")):
        out.texts.append(dash.message)
        out.raised = RuntimeError(dash.message)  # the dashboard reports, never raises
    out.texts += list(dash.links.reasons.values())
    dash.close()
    return out


def assert_panel_mirrors_runtime(panel: Any) -> None:
    rt = panel.rt
    for i, row in enumerate(panel.toggles):
        for j, toggle in enumerate(row):
            if toggle is None:
                continue
            assert panel.state[i, j] == rt.peer_enabled(i, j), (i, j)
            assert toggle.value == bool(panel.state[i, j]), (i, j)


def op_panel(rt: Runtime, tmp: Path) -> Outcome:
    widgets = pytest.importorskip("ascend_p2p_lab.widgets")
    out = Outcome()
    panel = widgets.PeerLinkPanel(rt)
    out.texts += [r for r in panel.reasons.values() if "failed" in r]
    steps: list[Callable[[], Any]] = [
        lambda: setattr(panel.toggles[0][1], "value", True),
        lambda: setattr(panel.toggles[1][0], "value", True),
        lambda: setattr(panel.toggles[0][1], "value", False),
        lambda: setattr(panel.toggles[1][0], "value", False),
        panel.enable_all_button.click,
        panel.disable_all_button.click,
        panel.disable_all_button.click,  # again, should the first one have been refused
    ]
    for step in steps:
        if panel.toggles[0][1] is None or panel.toggles[0][1].disabled:
            break  # unreachable after a failed probe: the reason says why
        step()
        assert_panel_mirrors_runtime(panel)
        if panel.last_error:
            out.texts.append(panel.last_error)
            assert "p2p-status-error" in panel.status.value
    panel.close()
    return out


OPERATIONS: dict[str, Callable[[Runtime, Path], Outcome]] = {
    "probe": op_probe,
    "toggle": op_toggle,
    "enable_all": op_enable_all,
    "sweep_uni": _sweep_op(pairs="0-1,1-0,2-3"),
    "sweep_bi": _sweep_op(pairs="0-1,2-3", direction="bi"),
    "sweep_peer_off": _sweep_op(pairs="0-1,2-3", peer="off"),  # direct and staged blocks
    "sweep_fanout": _sweep_op(pairs="0-1", patterns=("one_to_all", "all_to_one")),
    "dashboard": op_dashboard,
    "panel": op_panel,
    "save": op_save_and_resume,
}
SWEEPS = ("sweep_uni", "sweep_bi", "sweep_peer_off", "sweep_fanout", "dashboard", "save")
PEER_OPS = ("toggle", "enable_all", "panel")


# -------------------------------------------------------------------------------- faults
@dataclass(frozen=True)
class FaultCase:
    """A fault, the text its errors carry, and the operations it shows in.

    ``recorded``: the operation completes and its error is in the rows, a refusal, a
    reason or a status line. ``raised``: the operation raises it (sweeps: with the rows so
    far). Every other operation is unaffected (its result has no error of this fault).
    """

    fault: dict[str, Any]
    marker: str | None
    recorded: tuple[str, ...] = ()
    raised: tuple[str, ...] = ()


def _err(call: str | None, code: int, nth: int | None = None, **kw: Any) -> dict[str, Any]:
    return {"kind": "error", "call": call, "code": code, "nth": nth, "message": "injected",
            **kw}


FAULTS: dict[str, FaultCase] = {
    "malloc#2": FaultCase(_err("rt.malloc", 207001, 2), "EE207001: injected",
                          recorded=SWEEPS),
    "malloc_host#1": FaultCase(_err("rt.malloc_host", 207005, 1), "EE207005: injected",
                               recorded=SWEEPS),
    "memcpy#3": FaultCase(_err("rt.memcpy", 507013, 3), "EE507013: injected",
                          recorded=SWEEPS),
    "memcpy_async#9": FaultCase(_err("rt.memcpy_async", 507013, 9), "EE507013: injected",
                                recorded=SWEEPS),
    "memset#2": FaultCase(_err("rt.memset", 507000, 2), "EE507000: injected",
                          recorded=SWEEPS),
    "create_stream#2": FaultCase(_err("rt.create_stream", 207008, 2), "EE207008: injected",
                                 recorded=SWEEPS),
    "create_event#3": FaultCase(_err("rt.create_event_with_flag", 207007, 3), "EE207007: injected",
                                recorded=SWEEPS),
    "record_event#3": FaultCase(_err("rt.record_event", 507001, 3), "EE507001: injected",
                                recorded=SWEEPS),
    # peer off: the direct copies fail before timing, the staged path syncs its stream
    "synchronize_event#2": FaultCase(_err("rt.synchronize_event", 507012, 2),
                                     "EE507012: injected",
                                     recorded=tuple(o for o in SWEEPS if o != "sweep_peer_off")),
    "synchronize_stream#1": FaultCase(_err("rt.synchronize_stream", 507004, 1),
                                      "EE507004: injected",
                                      recorded=("sweep_bi", "sweep_peer_off", "dashboard")),
    "enable_peer#2": FaultCase(_err("rt.device_enable_peer_access", 207012, 2),
                               "EE207012: injected",
                               recorded=(*PEER_OPS, "sweep_uni", "sweep_bi", "sweep_fanout",
                                         "dashboard", "save")),
    # a failed disable is retried once: the restore succeeds, nothing is recorded
    "disable_peer#1": FaultCase(_err("rt.device_disable_peer_access", 207006, 1),
                                "EE207006: injected", recorded=PEER_OPS),
    # a failed release is retried once: everything is freed, nothing is recorded
    "free#1": FaultCase(_err("rt.free", 207002, 1), "EE207002: injected"),
    "free_host#1": FaultCase(_err("rt.free_host", 207002, 1), "EE207002: injected"),
    "can_access_peer#3": FaultCase(
        _err("rt.device_can_access_peer", 200002, 3), "EE200002: injected",
        recorded=("panel", "dashboard"),  # the sweeps: a failed probe costs its pair only
        raised=("probe", "enable_all")),
    # a sweep sets its devices while checking the sizes against their memory
    "set_device#2": FaultCase(
        _err("rt.set_device", 507033, 2), "EE507033: injected",
        recorded=("toggle", "enable_all", "panel"),
        raised=("sweep_uni", "sweep_bi", "sweep_peer_off", "sweep_fanout", "dashboard",
                "save")),
    "device1:set_device": FaultCase(
        _err("rt.set_device", 500004, device=1), "EE500004: injected",
        recorded=("toggle", "enable_all", "panel"),
        raised=("sweep_uni", "sweep_bi", "sweep_peer_off", "sweep_fanout", "dashboard",
                "save")),
    # every call that concerns device 1 fails (can_access_peer(0, 1) included)
    "device1:any": FaultCase(
        _err(None, 500004, device=1), "EE500004: injected",
        recorded=("toggle", "panel", "sweep_uni", "sweep_bi", "sweep_fanout", "save"),
        raised=("probe", "enable_all", "sweep_peer_off", "dashboard")),
    "device1:memcpy_async": FaultCase(
        _err("rt.memcpy_async", 500004, device=1), "EE500004: injected",
        recorded=SWEEPS),
    # peer off: 0->1 copies are refused (507899) before the link is used
    "link0-1:memcpy_async": FaultCase(
        _err("rt.memcpy_async", 500003, link=[0, 1]), "EE500003: injected",
        recorded=("sweep_uni", "sweep_bi", "sweep_fanout", "dashboard", "save")),
    "degrade0-1": FaultCase({"kind": "degrade", "link": [0, 1], "factor": 0.25}, None),
    # lost while the operation checks who can reach whom
    "device_lost1#6": FaultCase(
        {"kind": "device_lost", "device": 1, "nth": 6}, "EE507010: device 1 is lost",
        recorded=("panel",),
        raised=("probe", "enable_all", "sweep_uni", "sweep_bi", "sweep_peer_off",
                "sweep_fanout", "dashboard", "save")),
    # lost in the middle of measuring: at the 3rd copy that touches it (the dashboard's
    # next chunk then fails while planning)
    "device_lost1@copy#3": FaultCase(
        {"kind": "device_lost", "device": 1, "call": "rt.memcpy_async", "nth": 3},
        "EE507010: device 1 is lost",
        recorded=SWEEPS),  # the dashboard's one sweep records the lost device, as any sweep
    "memory_exhausted1": FaultCase({"kind": "memory_exhausted", "device": 1},
                                   "out of device memory on device 1", recorded=SWEEPS),
    "slow_host": FaultCase({"kind": "slow_host", "factor": 20.0}, None),
}


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
                    base.frame[keep].reset_index(drop=True))
                assert outcome.frame["error"].isna().equals(base.frame["error"].isna())
        if op_name == "probe" and got == "unaffected":
            pd.testing.assert_frame_equal(outcome.frame, base.frame)
        assert_released(rt, refs_before)
    finally:
        rt.close()
    assert rt.acl.simulator.ledger_is_empty(), rt.acl.simulator.ledger()


# ---------------------------------------------------------------- what degraded links do
def _median_bw(frame: pd.DataFrame, src: int, dst: int) -> float:
    top = frame.size_bytes == frame.size_bytes.max()
    sel = frame[(frame.src == src) & (frame.dst == dst) & top]
    return float(sel["bandwidth_GBps"].median())


def test_degraded_link_is_slower_and_only_that_one() -> None:
    kwargs = {**QUICK, "sizes": "16MiB", "pairs": "0-1,1-0,2-3", "min_sample_us": 200.0}
    with _open(topology=A2x4_EXACT) as rt:
        healthy = sweep(rt, **kwargs)
    with _open([FAULTS["degrade0-1"].fault], topology=A2x4_EXACT) as rt:
        degraded = sweep(rt, **kwargs)
    assert degraded["error"].isna().all()
    ratio = _median_bw(degraded, 0, 1) / _median_bw(healthy, 0, 1)
    assert ratio == pytest.approx(0.25, rel=0.1)
    for pair in ((1, 0), (2, 3)):
        assert _median_bw(degraded, *pair) == pytest.approx(_median_bw(healthy, *pair),
                                                            rel=0.01)


def test_slow_host_shows_in_the_host_time_and_flags_small_copies() -> None:
    kwargs = {**QUICK, "sizes": "4KiB", "pairs": "0-1"}
    with _open(topology=A2x4_EXACT) as rt:
        healthy = sweep(rt, **kwargs)
    with _open([FAULTS["slow_host"].fault], topology=A2x4_EXACT) as rt:
        slow = sweep(rt, **kwargs)

    def per_copy(frame: pd.DataFrame) -> float:
        return float((frame["host_enqueue_us"] / frame["copies"].astype(float)).median())

    assert per_copy(slow) == pytest.approx(20 * per_copy(healthy), rel=0.05)
    assert slow["host_bound"].all() and slow["error"].isna().all()


# ------------------------------------------------------------- faults the matrix cannot hold
def test_a_failing_init_raises_and_leaves_nothing() -> None:
    with pytest.raises(AclError) as info:
        _open([_err("init", 500001, 1)])
    assert_acl_error(info.value)
    assert info.value.call == "acl.init"


def test_a_failing_device_count_is_one_clear_error() -> None:
    with _open([_err("rt.get_device_count", 500002, 1)]) as rt:
        with pytest.raises(AclError) as info:
            probe(rt)
        assert_acl_error(info.value)
        assert len(info.value.partial_frame) == 0  # type: ignore[attr-defined]
        assert probe(rt)["can_access_peer"].all()  # the next call works


@pytest.mark.keeps_ledger
def test_a_release_that_keeps_failing_is_raised_and_the_reset_frees_it(tmp_path: Path
                                                                       ) -> None:
    rt = _open([_err("rt.free", 207002)])
    with pytest.raises(AclError) as info:
        sweep(rt, pairs="0-1", **QUICK)
    assert_acl_error(info.value)
    frame = info.value.partial_frame  # type: ignore[attr-defined]
    assert frame["bandwidth_GBps"].notna().all() and len(frame) == 2 * 2  # all measured
    save_run(info.value.partial_run, tmp_path / "run")  # type: ignore[attr-defined]
    pd.testing.assert_frame_equal(load_run(tmp_path / "run"), frame)
    assert {r.kind for r in rt.open_resources()} == {"device buffer"}  # the runtime keeps them
    with pytest.raises(AclError):
        rt.close()  # tried once more, then the device reset releases them
    sim = rt.acl
    ledger = sim.simulator.ledger()
    assert not ledger["initialized"] and ledger["devices_set"] == {}
    assert ledger["device_buffers"] == 0 and rt.open_resources() == []
    assert ledger["implicit_releases"] and all(
        "device buffer" in r and "aclrtResetDevice" in r for r in ledger["implicit_releases"])


@pytest.mark.keeps_ledger
def test_peer_access_that_cannot_be_restored_stops_the_sweep(tmp_path: Path) -> None:
    rt = _open([_err("rt.device_disable_peer_access", 207006)])
    with pytest.raises(PeerRestoreError) as info:
        sweep(rt, pairs="0-1,2-3", **QUICK)
    exc = info.value
    assert_acl_error(exc)
    assert str(exc).startswith("cannot restore peer access after the test: "
                               "acl.rt.device_disable_peer_access(")
    frame = exc.partial_frame  # type: ignore[attr-defined]
    assert set(zip(frame.src, frame.dst)) == {(0, 1)}  # 2-3 never ran on a wrong state
    assert frame.attrs["run"]["failed"].startswith("PeerRestoreError")
    assert exc.partial_run.meta.failed.startswith("PeerRestoreError")  # type: ignore[attr-defined]
    save_run(exc.partial_run, tmp_path / "run")  # type: ignore[attr-defined]
    pd.testing.assert_frame_equal(load_run(tmp_path / "run"), frame)
    assert rt.open_resources() == []
    assert rt.peer_refs() == {(0, 1): 1, (1, 0): 1}  # held, and dropped by the reset
    with pytest.raises(AclError):
        rt.close()
    ledger = rt.acl.simulator.ledger()
    assert ledger["peer_refs"] == {} and not ledger["initialized"]


def test_a_users_peer_links_survive_failing_peer_off_blocks() -> None:
    with _open([_err("rt.memcpy_async", 507013, 3, link=[2, 3])],
               topology=_cut("atlas800t-a3", 4)) as rt:
        rt.enable_peer(0, 1)
        rt.enable_peer(1, 0)
        rt.enable_peer(2, 3)
        run = sweep(rt, pairs="0-1,2-3", peer="off", **QUICK)
        assert run.loc[(run.src == 2) & (run.path == "direct"), "error"].notna().any()
        assert rt.peer_refs() == {(0, 1): 1, (1, 0): 1, (2, 3): 1}
        disable_all(rt)


# --------------------------------------------------------- every call can carry a fault


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


@pytest.mark.parametrize("call", [
    "destroy_stream", "destroy_event", "event_elapsed_time", "stream_wait_event", "get_mem_info",
    "create_event_with_flag", "create_stream", "record_event", "synchronize_event",
])
def test_an_error_fault_fires_on_the_call_it_names(call: str) -> None:
    with _open([_err(f"rt.{call}", 507000, 1)]) as rt:
        with pytest.raises(AclError) as info:
            _touch_every_call(rt)
        assert info.value.call == f"acl.rt.{call}" and info.value.code == 507000




@pytest.mark.parametrize("call", [
    "get_mem_info", "stream_wait_event", "event_elapsed_time", "record_event", "synchronize_event",
])
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
            "event_elapsed_time": lambda: rt.call("rt.event_elapsed_time", start.handle,
                                                  end.handle),
            "record_event": lambda: start.record(stream),
            "synchronize_event": end.synchronize,
        }
        with pytest.raises(AclError) as info:
            calls[call]()
        assert info.value.code == 507010


@pytest.mark.keeps_ledger
def test_the_command_line_reports_a_failed_sweep_and_keeps_its_rows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ascend_p2p_lab.cli import main

    topo = tmp_path / "a2x4.toml"
    from ascend_p2p_lab.topology.presets import read_packaged

    preset_text = read_packaged("atlas800t-a2.toml")
    topo.write_text(preset_text + '\n[[fault]]\nkind = "error"\n'
                    'call = "rt.device_disable_peer_access"\ncode = 207006\n')
    before = list(LIVE)  # strong references: no id of theirs can be reused meanwhile
    code = main(["sweep", "--backend", "sim", "--topology", str(topo), "--pairs", "0-1,2-3",
                 "--sizes", "4KiB", "--samples", "1", "--no-progress",
                 "--out", str(tmp_path / "run")])
    captured = capsys.readouterr()
    out, err = captured.out, captured.err.strip().splitlines()
    assert code == 1 and "Traceback" not in "".join(err)
    # the rows measured before the failure are summarized and saved, then teardown is told
    assert "FAILED: the run stopped early: PeerRestoreError: cannot restore peer access " \
           "after the test: acl.rt.device_disable_peer_access(" in out
    assert f"saved to {tmp_path / 'run'}" in out
    assert len(err) == 1 and err[0].startswith(
        "ascend-p2p-lab: teardown failed after the results above: "
        "acl.rt.device_disable_peer_access(")
    assert len(load_run(tmp_path / "run")) == 1
    made = [sim for sim in LIVE if not any(sim is old for old in before)]
    ledgers = [sim.simulator.ledger() for sim in made]
    # the command's runtime was reset and finalized
    assert made and all(not led["initialized"] and not led["devices_set"] for led in ledgers)


# ------------------------------------------------------------------- KeyboardInterrupt
def interrupt_at(monkeypatch: pytest.MonkeyPatch, rt: Runtime, call: str, nth: int) -> None:
    """Make the nth call of ``acl.rt.<call>`` raise KeyboardInterrupt before it runs."""
    namespace = rt.acl.rt
    real = getattr(namespace, call)
    seen = {"n": 0}

    def hook(*args: Any) -> Any:
        seen["n"] += 1
        if seen["n"] == nth:
            raise KeyboardInterrupt(f"Ctrl-C at acl.rt.{call} #{nth}")
        return real(*args)

    monkeypatch.setattr(namespace, call, hook)


INTERRUPT_POINTS = {
    "malloc#2": ("malloc", 2),
    "memcpy_async#9": ("memcpy_async", 9),
    "enable_peer#2": ("device_enable_peer_access", 2),
    "disable_peer#1": ("device_disable_peer_access", 1),  # inside the restore / teardown
    "create_event#3": ("create_event_with_flag", 3),
    "synchronize_event#2": ("synchronize_event", 2),
    "destroy_event#1": ("destroy_event", 1),  # inside a block's teardown
    "free#1": ("free", 1),  # inside the buffer pool's teardown
    "can_access_peer#3": ("device_can_access_peer", 3),
}
#: How each operation answers a Ctrl-C at each point: "done" (it never makes that call, or
#: not that often), "interrupted" (it returns what was done, marked interrupted) or
#: "raised" (KeyboardInterrupt propagates after the operation undid its change; a sweep
#: or a dashboard only does so while planning, before anything is measured).
INTERRUPT_OPS = ("probe", "toggle", "enable_all", "sweep_uni", "sweep_bi", "sweep_peer_off",
                 "sweep_fanout", "dashboard", "panel")
_D, _I, _R = "done", "interrupted", "raised"
INTERRUPT_TABLE = {  # point: answers of INTERRUPT_OPS, in order
    "malloc#2":            (_D, _D, _D, _I, _I, _I, _I, _I, _D),
    "memcpy_async#9":      (_D, _D, _D, _I, _I, _I, _I, _I, _D),
    "enable_peer#2":       (_D, _R, _R, _I, _I, _D, _I, _I, _R),
    "disable_peer#1":      (_D, _R, _R, _I, _I, _D, _I, _I, _R),
    "create_event#3":      (_D, _D, _D, _I, _I, _I, _I, _I, _D),
    "synchronize_event#2": (_D, _D, _D, _I, _I, _D, _I, _I, _D),
    "destroy_event#1":     (_D, _D, _D, _I, _I, _I, _I, _I, _D),
    "free#1":              (_D, _D, _D, _I, _I, _I, _I, _I, _D),
    "can_access_peer#3":   (_I, _D, _R, _R, _R, _R, _R, _R, _R),
}  # fmt: skip


def _interrupted_op(op: str, rt: Runtime, tmp: Path) -> tuple[str, Any]:
    """Run op; ("raised", None), ("interrupted", frame) or ("done", frame)."""
    try:
        if op == "probe":
            frame = probe(rt)
            return ("interrupted" if frame.attrs["run"].get("interrupted") else "done"), frame
        if op in ("toggle", "enable_all", "panel"):
            return _interrupted_peer_steps(op, rt)
        if op == "dashboard":
            widgets = pytest.importorskip("ascend_p2p_lab.widgets")
            dash = widgets.SweepDashboard(rt)
            dash.pairs_mode.value = "selected"
            dash.pairs.value = ("0-1", "1-0", "2-3")
            dash.sizes.value = (4096, 8192)
            dash.samples.value = 1
            dash.plots.value = False
            frame = dash.run()
            assert not dash.busy and dash.links is not None and dash.links.locked is None
            assert_panel_mirrors_runtime(dash.links)
            interrupted = dash.message.startswith("sweep interrupted")
            dash.close()
            return ("interrupted" if interrupted else "done"), frame
        else:
            frame = OPERATIONS[op](rt, tmp).frame
            assert frame is not None
            return ("interrupted" if frame.attrs["run"]["interrupted"] else "done"), frame
    except KeyboardInterrupt:
        return "raised", None
    return "done", None


def _interrupted_peer_steps(op: str, rt: Runtime) -> tuple[str, Any]:
    """Peer changes one call at a time: the interrupted call changes nothing (the ones
    before it stay done); then the test undoes them as a user would."""
    from ascend_p2p_lab.measure import try_enable

    panel = None
    if op == "toggle":
        steps = [lambda: try_enable(rt, 0, 1), lambda: try_enable(rt, 1, 0),
                 lambda: disable(rt, 0, 1), lambda: disable(rt, 1, 0)]
    elif op == "enable_all":
        steps = [lambda: enable_all(rt), lambda: disable_all(rt)]
    else:
        widgets = pytest.importorskip("ascend_p2p_lab.widgets")
        panel = widgets.PeerLinkPanel(rt)
        toggles = panel.toggles
        steps = [lambda: setattr(toggles[0][1], "value", True),
                 lambda: setattr(toggles[1][0], "value", True),
                 lambda: setattr(toggles[0][1], "value", False),
                 panel.enable_all_button.click, panel.disable_all_button.click]
    try:
        for step in steps:
            before = rt.peer_refs()
            try:
                step()
            except KeyboardInterrupt:
                assert rt.peer_refs() == before
                if panel is not None:
                    assert_panel_mirrors_runtime(panel)
                    assert panel.last_error and "interrupted" in panel.last_error
                return "raised", None
    finally:
        disable_all(rt)
        if panel is not None:
            panel.close()
    return "done", None


@pytest.mark.parametrize("op", INTERRUPT_OPS)
@pytest.mark.parametrize("point", list(INTERRUPT_POINTS))
def test_interrupt_matrix(point: str, op: str, tmp_path: Path,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    rt = _open()
    interrupt_at(monkeypatch, rt, *INTERRUPT_POINTS[point])
    refs_before = rt.peer_refs()
    try:
        got, frame = _interrupted_op(op, rt, tmp_path)
        assert got == INTERRUPT_TABLE[point][INTERRUPT_OPS.index(op)]
        if op.startswith("sweep") and got == "interrupted":
            saved = load_run(tmp_path / "run")
            assert saved.attrs["run"]["interrupted"] is True
            pd.testing.assert_frame_equal(saved, frame)
        assert_released(rt, refs_before)
    finally:
        rt.close()
    assert rt.acl.simulator.ledger_is_empty(), rt.acl.simulator.ledger()


@pytest.mark.parametrize("point", ["malloc#2", "memcpy_async#9", "enable_peer#2",
                                   "synchronize_event#2"])
def test_an_interrupted_sweep_keeps_the_points_before_it(point: str, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    with _open(topology=A2x4_EXACT) as rt:
        full = sweep(rt, pairs="0-1,1-0,2-3", **QUICK)
    with _open(topology=A2x4_EXACT) as rt:
        interrupt_at(monkeypatch, rt, *INTERRUPT_POINTS[point])
        part = sweep(rt, pairs="0-1,1-0,2-3", **QUICK)
    assert part.attrs["run"]["interrupted"] is True and len(part) < len(full)
    assert part["error"].isna().all() and part["bandwidth_GBps"].notna().all()
    _same_frames(part, full.iloc[:len(part)])  # a prefix of the uninterrupted run


def test_interrupt_while_saving_leaves_no_half_written_run(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    with _open() as rt:
        first = sweep(rt, pairs="0-1", **QUICK)
        save_run(first, tmp_path / "run")
        real = pd.DataFrame.to_csv

        def interrupted_csv(self: pd.DataFrame, *args: Any, **kwargs: Any) -> Any:
            raise KeyboardInterrupt("Ctrl-C while writing samples.csv")

        second = sweep(rt, pairs="2-3", **QUICK)
        assert set(zip(second.src, second.dst)) == {(2, 3)}
        assert_released(rt, {})
        monkeypatch.setattr(pd.DataFrame, "to_csv", interrupted_csv)
        with pytest.raises(KeyboardInterrupt):
            save_run(second, tmp_path / "run")
        monkeypatch.setattr(pd.DataFrame, "to_csv", real)
    assert not list((tmp_path / "run").glob(".*"))  # no temporary file left
    pd.testing.assert_frame_equal(load_run(tmp_path / "run"), first)  # the old run, whole


def test_interrupt_between_renames_leaves_no_mixed_run(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    with _open() as rt:
        first = sweep(rt, pairs="0-1", **QUICK)
        second = sweep(rt, pairs="2-3", **QUICK)
    save_run(first, tmp_path / "run")
    real = Path.replace
    calls = {"n": 0}

    def replace(self: Path, target: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 2:  # samples.parquet is new, samples.csv not yet
            raise KeyboardInterrupt
        return real(self, target)

    monkeypatch.setattr(Path, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        save_run(second, tmp_path / "run")
    monkeypatch.setattr(Path, "replace", real)
    from ascend_p2p_lab.results import ResultsError

    with pytest.raises(ResultsError, match=r"run\.json: missing"):
        load_run(tmp_path / "run")  # never new samples under the old run.json
    assert not list((tmp_path / "run").glob(".*"))
    save_run(second, tmp_path / "run")
    pd.testing.assert_frame_equal(load_run(tmp_path / "run"), second)


def test_interrupted_enable_all_takes_its_enables_back(monkeypatch: pytest.MonkeyPatch
                                                       ) -> None:
    with _open() as rt:
        rt.enable_peer(2, 3)  # the user's
        interrupt_at(monkeypatch, rt, "device_enable_peer_access", 5)
        with pytest.raises(KeyboardInterrupt):
            enable_all(rt)
        assert rt.peer_refs() == {(2, 3): 1}
        interrupt_at(monkeypatch, rt, "device_disable_peer_access", 2)
        enable_all(rt)
        with pytest.raises(KeyboardInterrupt):
            disable_all(rt)
        assert len(rt.peer_refs()) == 12  # what disable_all did was taken back
        disable_all(rt)


@pytest.mark.parametrize("exc", [KeyboardInterrupt, RuntimeError])
def test_a_preset_switch_that_fails_half_way_keeps_the_old_runtime(
        exc: type[BaseException], monkeypatch: pytest.MonkeyPatch) -> None:
    widgets = pytest.importorskip("ascend_p2p_lab.widgets")
    dash = widgets.SweepDashboard(backend="sim", preset="atlas800t-a2")
    old = dash.rt
    real = widgets.PeerLinkPanel

    def broken(rt: Runtime) -> Any:
        if rt is not old:
            raise exc("while building the new link panel")
        return real(rt)

    monkeypatch.setattr(widgets, "PeerLinkPanel", broken)
    before = list(LIVE)  # strong references: no id of theirs can be reused meanwhile
    if exc is KeyboardInterrupt:
        with pytest.raises(KeyboardInterrupt):
            dash.preset.value = "atlas300i-duo"
        assert "interrupted; still on atlas800t-a2" in dash.message
    else:
        dash.preset.value = "atlas300i-duo"
        assert dash.message.startswith("cannot switch to 'atlas300i-duo': RuntimeError")
    assert dash.rt is old and not old.closed and dash.preset.value == "atlas800t-a2"
    assert dash.links is not None and dash.links.rt is old
    newest = [sim for sim in LIVE if not any(sim is old for old in before)]
    # the new one was closed
    assert newest and all(sim.simulator.ledger_is_empty() for sim in newest)
    dash.close()
    assert old.closed


def test_the_command_line_exits_130_after_ctrl_c_and_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from ascend_p2p_lab.cli import main
    from ascend_p2p_lab.sim.facade import SimulatedACL

    real = SimulatedACL._device_can_access_peer
    seen = {"n": 0}

    def interrupted(self: SimulatedACL, *args: Any) -> Any:
        seen["n"] += 1
        if seen["n"] == 3:
            raise KeyboardInterrupt
        return real(self, *args)

    monkeypatch.setattr(SimulatedACL, "_device_can_access_peer", interrupted)
    assert main(["probe", "--backend", "sim"]) == 130
    assert capsys.readouterr().err.strip() == "ascend-p2p-lab: interrupted after 2 pairs"
    monkeypatch.undo()

    _count_blocks(monkeypatch, stop_after=1)  # Ctrl-C as the second block starts
    code = main(["sweep", "--backend", "sim", "--pairs", "0-1,1-0,2-3", "--sizes", "4KiB",
                 "--samples", "1", "--no-progress", "--out", str(tmp_path / "run")])
    out = capsys.readouterr().out
    assert code == 130 and "interrupted: the rows measured so far are kept" in out
    saved = load_run(tmp_path / "run")
    assert saved.attrs["run"]["interrupted"] is True
    assert set(zip(saved.src, saved.dst)) == {(0, 1)}


# -------------------------------------------------------------------- resumable sweeps
RESUME = {**QUICK, "pairs": "0-1,1-0,2-3,3-2", "peer": "both"}


def _count_blocks(monkeypatch: pytest.MonkeyPatch, stop_after: int | None = None
                  ) -> list[str]:
    """Record the blocks a sweep runs; optionally press Ctrl-C as block stop_after+1 starts."""
    ran: list[str] = []

    def counted(ctx: Any, test: Any, fn: Any = execute.measure_test) -> Any:
        if stop_after is not None and len(ran) == stop_after:
            raise KeyboardInterrupt
        ran.append(test.key)
        return fn(ctx, test)

    monkeypatch.setattr(execute, "measure_test", counted)
    return ran


@pytest.fixture
def uninterrupted() -> pd.DataFrame:
    with _open(topology=A2x4_EXACT) as rt:
        return sweep(rt, **RESUME)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize("k", [0, 1, 5, 11])
def test_a_sweep_killed_after_k_blocks_resumes_where_it_stopped(
        k: int, uninterrupted: pd.DataFrame, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    total = len(uninterrupted.groupby(["pattern", "direction", "peer", "path", "src", "dst"]))
    assert total == 12  # 4 pairs x (p2p, direct, staged)
    _count_blocks(monkeypatch, stop_after=k)
    with _open(topology=A2x4_EXACT) as rt:
        first = sweep(rt, checkpoint=ckpt, **RESUME)
    assert first.attrs["run"]["interrupted"] is True
    assert len(_lines(ckpt)) == 1 + k  # the header, then one line per completed block
    monkeypatch.undo()
    ran = _count_blocks(monkeypatch)
    with _open(topology=A2x4_EXACT) as rt:
        resumed = sweep(rt, checkpoint=ckpt, **RESUME)
    assert len(ran) == total - k and resumed.attrs["run"]["resumed_blocks"] == k
    assert resumed.attrs["run"]["interrupted"] is False
    assert resumed.attrs["run"]["blocks"] == total
    _same_frames(resumed, uninterrupted)
    assert resumed["run_id"].nunique() == (2 if k else 1)
    assert len(_lines(ckpt)) == 1 + total  # not saved anywhere: the checkpoint stays
    ran.clear()
    with _open(topology=A2x4_EXACT) as rt:  # all done: nothing is measured or allocated
        again = sweep(rt, checkpoint=ckpt, **RESUME)
        assert rt.acl.call_counts.get("rt.malloc", 0) == 0
    assert ran == [] and again.attrs["run"]["resumed_blocks"] == total
    _same_frames(again, uninterrupted)
    assert again.attrs["run"]["finished_checkpoint"] == str(ckpt) and ckpt.exists()
    save_run(again, tmp_path / "run")
    pd.testing.assert_frame_equal(load_run(tmp_path / "run"), again)
    assert not ckpt.exists()  # saved with every block: nothing left to resume
    assert json.loads((tmp_path / "run" / "run.json").read_text())["finished_checkpoint"] is None


def test_a_resumed_sweep_with_jitter_equals_an_uninterrupted_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The jitter draws depend on the point (rt.begin_point), not on the calls before it:
    the same seed gives the same numbers whether or not the sweep was interrupted."""
    assert A2x4.jitter > 0
    both = {**RESUME, "direction": "both"}
    with open_runtime("sim", topology=A2x4, seed=5) as rt:
        whole = sweep(rt, **both)
    with _open(topology=A2x4_EXACT) as rt:
        exact = sweep(rt, **both)
    ratio = whole["bandwidth_GBps"] / exact["bandwidth_GBps"]
    assert (ratio - 1).abs().max() > 1e-3  # the jitter is on and moves the numbers
    ckpt = tmp_path / "sweep.ckpt"
    _count_blocks(monkeypatch, stop_after=7)
    with open_runtime("sim", topology=A2x4, seed=5) as rt:
        assert sweep(rt, checkpoint=ckpt, **both).attrs["run"]["interrupted"] is True
    monkeypatch.undo()
    with open_runtime("sim", topology=A2x4, seed=5) as rt:
        resumed = sweep(rt, checkpoint=ckpt, **both)
    assert resumed.attrs["run"]["resumed_blocks"] == 7
    _same_frames(resumed, whole)


def test_the_command_resumes_into_its_own_run_and_then_removes_the_checkpoint(
        capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The same interrupted sweep rerun with the same --checkpoint and --out is a resume,
    not an overwrite: it says so, saves the whole run and removes the checkpoint; another
    run in --out is still refused without --overwrite."""
    from ascend_p2p_lab.cli import main

    ckpt, out = tmp_path / "sweep.ckpt", tmp_path / "run"
    argv = ["sweep", "--backend", "sim", "--pairs", "0-1,1-0,2-3", "--sizes", "4KiB,64KiB",
            "--samples", "1", "--no-progress", "--out", str(out), "--checkpoint", str(ckpt)]
    _count_blocks(monkeypatch, stop_after=1)  # Ctrl-C as the second block starts
    assert main(argv) == 130
    first_id = json.loads((out / "run.json").read_text())["run_id"]
    capsys.readouterr()
    monkeypatch.undo()
    code = main(argv)
    stdout, err = capsys.readouterr()
    assert code == 0, err
    assert "resumed 1 of 3 blocks from the checkpoint" in stdout
    saved = load_run(out)
    assert len(saved) == 3 * 2 and first_id in set(saved["run_id"])
    assert not ckpt.exists()
    other = [a if a != str(ckpt) else str(tmp_path / "other.ckpt") for a in argv]
    assert main(other) == 2  # a fresh checkpoint does not continue the run in --out
    assert "holds a run already" in capsys.readouterr().err


def test_a_checkpoint_is_compact(tmp_path: Path) -> None:
    """Each block's rows are compressed: the file is a fraction of the rows as JSON."""
    ckpt = tmp_path / "sweep.ckpt"
    with _open(topology=A2x4_EXACT) as rt:
        run = sweep(rt, checkpoint=ckpt, **{**RESUME, "sizes": "4KiB:1MiB", "samples": 4})
    as_json = len(json.dumps(checkpoint_module.jsonable_rows(run.to_dict("records")),
                             default=str))
    assert ckpt.stat().st_size * 5 < as_json


def test_a_torn_last_line_is_discarded_and_its_block_measured_again(
        uninterrupted: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
        ) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    real_append = Checkpoint.append
    appended = {"n": 0}

    def torn_append(self: Checkpoint, block: Any, rows: list[dict[str, Any]]) -> None:
        appended["n"] += 1
        if appended["n"] < 4:
            return real_append(self, block, rows)
        line = json.dumps({"block": block.key, "rows": rows})
        with self.path.open("a") as fh:  # the process dies half-way through the write
            fh.write(line[: len(line) // 2])
        raise KeyboardInterrupt

    monkeypatch.setattr(Checkpoint, "append", torn_append)
    with _open(topology=A2x4_EXACT) as rt:
        sweep(rt, checkpoint=ckpt, **RESUME)
    assert not ckpt.read_bytes().endswith(b"\n")
    monkeypatch.setattr(Checkpoint, "append", real_append)
    ran = _count_blocks(monkeypatch)
    with _open(topology=A2x4_EXACT) as rt:
        resumed = sweep(rt, checkpoint=ckpt, **RESUME)
    assert len(ran) == 12 - 3 and resumed.attrs["run"]["resumed_blocks"] == 3
    _same_frames(resumed, uninterrupted)
    lines = _lines(ckpt)  # the torn line is gone, every block is there once
    assert len(lines) == 13 and len({rec["block"] for rec in lines[1:]}) == 12


def test_a_torn_header_starts_over_and_a_foreign_file_is_refused(tmp_path: Path) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    with _open(topology=A2x4_EXACT) as rt:
        sweep(rt, checkpoint=ckpt, **RESUME)
    header = ckpt.read_bytes().split(b"\n")[0]
    ckpt.write_bytes(header[:40])  # the first write was cut short
    with _open(topology=A2x4_EXACT) as rt:
        run = sweep(rt, checkpoint=ckpt, **RESUME)
    assert run.attrs["run"]["resumed_blocks"] == 0 and len(_lines(ckpt)) == 13
    for foreign in (b"my notes, no newline", b"name,size\nx,1\n", b'{"a": 1}\n'):
        ckpt.write_bytes(foreign)
        with _open() as rt, pytest.raises(ValueError, match="not an ascend-p2p-lab checkpoint"):
            sweep(rt, checkpoint=ckpt, **RESUME)
        assert ckpt.read_bytes() == foreign  # left as it was


def test_damage_before_the_last_line_is_an_error_that_names_the_line(tmp_path: Path) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    with _open() as rt:
        sweep(rt, checkpoint=ckpt, **RESUME)
    lines = ckpt.read_text().splitlines(keepends=True)
    for damaged, line_no in ((lines[2][:30] + "\n", 3), ('{"block": 3, "rows": []}\n', 3),
                             ('{"block": "x", "rows": [1]}\n', 3)):
        text = "".join([*lines[:2], damaged, *lines[3:]])
        ckpt.write_text(text)
        with _open() as rt:
            with pytest.raises(ValueError, match=f"line {line_no} is damaged"):
                sweep(rt, checkpoint=ckpt, **RESUME)
            assert rt.open_resources() == [] and rt.ledger()["device_buffers"] == 0
        assert ckpt.read_text() == text


@pytest.mark.parametrize("change, named", [
    ({"samples": 3}, "samples: 2 in the file, 3 now"),
    ({"sizes": "4KiB"}, "sizes: [4096, 65536] in the file, [4096] now"),
    ({"pairs": "0-1"}, "pairs:"),
    ({"peer": "on"}, "peers: ['on', 'off'] in the file, ['on'] now"),
    ({"verify": False}, "verify: True in the file, False now"),
])
def test_different_parameters_are_refused_and_the_file_kept(change: dict[str, Any], named: str,
                                                            tmp_path: Path) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    with _open() as rt:
        sweep(rt, checkpoint=ckpt, **RESUME)
    before = ckpt.read_bytes()
    with _open() as rt:
        with pytest.raises(ValueError, match="different parameters") as info:
            sweep(rt, checkpoint=ckpt, **{**RESUME, **change})
        assert named in str(info.value) and "\n" not in str(info.value)
        assert rt.open_resources() == [] and rt.ledger()["device_buffers"] == 0
    assert ckpt.read_bytes() == before


def test_another_server_or_seed_is_refused(tmp_path: Path) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    with _open() as rt:
        sweep(rt, checkpoint=ckpt, **RESUME)
    with open_runtime("sim", topology=A2x4, seed=7) as rt, \
            pytest.raises(ValueError, match="seed: 0 in the file, 7 now"):
        sweep(rt, checkpoint=ckpt, **RESUME)
    with open_runtime("sim", "atlas800t-a2") as rt, \
            pytest.raises(ValueError, match="preset: 'atlas800t-a2-4' in the file"):
        sweep(rt, checkpoint=ckpt, **RESUME)


def test_a_failed_block_is_not_recorded_and_is_measured_on_resume(tmp_path: Path) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    broken = _err("rt.memcpy_async", 507013, link=[2, 3])
    with _open([broken], topology=A2x4_EXACT) as rt:
        first = sweep(rt, checkpoint=ckpt, **RESUME)
    failed = first[first["error_code"].eq(507013).fillna(False)]
    assert set(failed["error_kind"]) == {"runtime"}
    assert set(failed["error_call"]) == {"acl.rt.memcpy_async"}
    assert set(zip(failed.src, failed.dst)) == {(2, 3)}
    recorded = {rec["block"] for rec in _lines(ckpt)[1:]}
    assert len(recorded) == 11 and not any(key.endswith("/p2p/2-3") for key in recorded)
    with _open(topology=A2x4_EXACT) as rt:
        resumed = sweep(rt, checkpoint=ckpt, **RESUME)
    p2p = resumed[resumed.path == "p2p"]
    assert p2p["bandwidth_GBps"].notna().all() and len(p2p) == 4 * 2 * 2


def test_checkpoint_rows_that_do_not_fit_the_schema_are_refused_before_measuring(
        tmp_path: Path) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    with _open() as rt:
        sweep(rt, checkpoint=ckpt, **RESUME)
    lines = _lines(ckpt)
    rows = unpack_rows(lines[1]["z"])
    rows[0]["size_bytes"] = "huge"
    lines[1]["z"] = pack_rows(rows)
    ckpt.write_text("".join(json.dumps(rec) + "\n" for rec in lines))
    with _open() as rt:
        with pytest.raises(ValueError, match="do not fit the schema"):
            sweep(rt, checkpoint=ckpt, **RESUME)
        assert rt.ledger()["device_buffers"] == 0


def test_an_oversized_checkpoint_is_refused(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    with _open() as rt:
        sweep(rt, checkpoint=ckpt, **RESUME)
    monkeypatch.setattr(checkpoint_module, "MAX_CHECKPOINT_BYTES", 100)
    with _open() as rt, pytest.raises(ValueError, match="larger than 100 bytes"):
        sweep(rt, checkpoint=ckpt, **RESUME)


# ----------------------------------------------------------------- concurrency and safety
def test_a_second_run_from_another_thread_is_refused() -> None:
    widgets = pytest.importorskip("ascend_p2p_lab.widgets")
    with _open() as rt:
        dash = widgets.SweepDashboard(rt)
        dash.pairs_mode.value = "selected"
        dash.pairs.value = ("0-1", "2-3")
        dash.sizes.value = (4096, 8192)
        dash.samples.value = 1
        dash.plots.value = False
        inside, release = threading.Event(), threading.Event()
        import ascend_p2p_lab.measure as measure

        real_sweep = measure.sweep_run
        calls: list[Any] = []

        def slow_sweep(*args: Any, **kwargs: Any) -> Any:
            calls.append(kwargs["spec"])
            inside.set()
            release.wait(10)
            return real_sweep(*args, **kwargs)

        measure.sweep_run = slow_sweep
        try:
            results: dict[str, Any] = {}
            worker = threading.Thread(target=lambda: results.setdefault("a", dash.run()))
            worker.start()
            assert inside.wait(10)
            second = dash.run()  # from this thread, while the worker's run is going on
            assert second is None and dash.refused_runs == 1
            assert "already running" in dash.message
            release.set()
            worker.join(10)
        finally:
            measure.sweep_run = real_sweep
        frame = results["a"]
        assert frame is not None and len(frame) == 2 * 2 and len(calls) == 1
        assert not dash.busy and rt.open_resources() == [] and rt.peer_refs() == {}
        dash.close()


def test_concurrent_sweeps_on_one_runtime_keep_their_own_current_device() -> None:
    results: dict[tuple[int, int], Any] = {}
    current: dict[tuple[int, int], Any] = {}
    with _open(topology=A2x4_EXACT) as rt:
        alone = {pair: sweep(rt, pairs=[pair], **QUICK) for pair in ((0, 1), (2, 3))}
        barrier = threading.Barrier(2)

        def work(pair: tuple[int, int]) -> None:
            barrier.wait(5)
            try:
                results[pair] = sweep(rt, pairs=[pair], peer="both", direction="both",
                                      **QUICK)
                current[pair] = (rt.current_device(), rt.acl.rt.get_device())
            except BaseException as exc:  # reported below
                results[pair] = exc

        threads = [threading.Thread(target=work, args=(p,)) for p in ((0, 1), (2, 3))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        for pair, (mine, acl_says) in current.items():  # each thread kept its own device
            assert mine in pair and acl_says == (mine, 0)
        for pair, frame in results.items():
            assert isinstance(frame, pd.DataFrame), frame
            assert set(zip(frame.src, frame.dst)) == {pair, pair[::-1]}  # bi: both ways
            p2p = frame[(frame.path == "p2p") & (frame.direction == "uni")]
            assert p2p["verified"].all() and p2p["error"].isna().all()
            assert len(p2p) == len(alone[pair]) and p2p["bandwidth_GBps"].notna().all()
            staged = frame[frame.path == "staged"]
            assert staged["verified"].all() and staged["error"].isna().all()
        assert rt.open_resources() == [] and rt.peer_refs() == {}


def test_no_unsafe_deserialisation_anywhere() -> None:
    import ascend_p2p_lab

    root = Path(ascend_p2p_lab.__file__).parent
    banned = ("pickle", "marshal", "shelve", "eval(", "exec(", "yaml.load", "read_pickle",
              "allow_pickle=True", "literal_eval", "__import__(")
    for path in root.rglob("*.py"):
        text = path.read_text()
        for word in banned:
            found = [line for line in text.splitlines()
                     if word in line and not line.lstrip().startswith("#")
                     and "keep it picklable" not in line]
            assert not found, f"{word} in {path}: {found}"

