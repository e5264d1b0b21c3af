"""Bad input: each gets one clear line, nothing is allocated, the command line exits 2.

Through the library, the command line (in process, and once as a real process) and the
widgets; then property tests (hypothesis) of size parsing, topology TOML parsing and the
save/load round trip. The npu-smi text format -> parse round trip of random topologies is
in tests/test_npu_smi.py and is not repeated here.

The measurement engine on the simulator: probes, peer links and sweeps.

Reliability: injected faults against every operation, Ctrl-C at chosen points, resumable
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
reaching the simulator."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator
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
    peer_access,
    peer_matrix,
    probe,
    sweep,
    sweep_run,
    try_enable,
)
from ascend_p2p_lab.results import (
    load_run,
    save_run,
)
from ascend_p2p_lab.runtime import AclError, Runtime
from ascend_p2p_lab.topology import (
    Topology,
    load_preset,
)


@pytest.fixture
def a2() -> Iterator[Runtime]:
    with open_runtime("sim", "atlas800t-a2") as rt:
        yield rt


def nothing_allocated(rt: Runtime) -> None:
    """No buffer, stream, event or peer enable is held (devices may have been set)."""
    assert rt.open_resources() == [] and rt.peer_refs() == {}
    ledger = rt.ledger()
    assert ledger is not None
    assert (
        ledger["device_buffers"],
        ledger["host_buffers"],
        ledger["streams"],
        ledger["events"],
        ledger["peer_refs"],
    ) == (0, 0, 0, 0, {})


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert text and "\n" not in text and "Traceback" not in text, text
    return text


def refused(rt: Runtime, call: Callable[[], Any], *types: type[BaseException], match: str) -> str:
    with pytest.raises(types or (ValueError, TypeError)) as info:
        call()
    text = one_line(info.value)
    assert match in text, text
    nothing_allocated(rt)
    return text


# --------------------------------------------------------------------------- device ids
@pytest.mark.parametrize(
    "src, dst, match",
    [
        (8, 1, "source id 8 is out of range: 0..7"),
        (-1, 1, "source id -1 is out of range"),
        (0, 99, "destination id 99 is out of range"),
        ("0", 1, "source id must be an int, got str"),
        (0, 1.0, "destination id must be an int, got float"),
        (True, 1, "source id must be an int, got bool"),
    ],
)
def test_bad_device_ids_for_peer_changes(a2: Runtime, src: Any, dst: Any, match: str) -> None:
    refused(a2, lambda: try_enable(a2, src, dst), match=match)
    refused(a2, lambda: disable(a2, src, dst), match=match)


def test_the_same_device_on_both_ends(a2: Runtime) -> None:
    assert try_enable(a2, 3, 3) == "a device cannot enable peer access to itself"
    refused(a2, lambda: disable(a2, 3, 3), match="same device")
    assert a2.can_access_peer(3, 3) is False
    with pytest.raises(AclError) as info:  # the runtime layer passes it on; ACL refuses
        a2.enable_peer(3, 3)
    assert info.value.name == "ACL_ERROR_INVALID_PARAM" and "equals" in info.value.message
    nothing_allocated(a2)


@pytest.fixture
def a2_2():
    with open_runtime("sim", "atlas800t-a2") as rt:
        yield rt


def test_enable_all_and_disable_all(a2_2) -> None:
    assert enable_all(a2_2) == {}
    assert int(peer_matrix(a2_2).to_numpy().sum()) == 56
    assert probe(a2_2)["peer_enabled"].all()
    assert disable_all(a2_2) == 56
    assert int(peer_matrix(a2_2).to_numpy().sum()) == 0


def test_refused_enable_keeps_state_off_and_says_why() -> None:
    with open_runtime("sim", "atlas300i-duo") as rt:
        reason = try_enable(rt, 0, 2)
        assert reason is not None and "207000" in reason
        assert not rt.peer_enabled(0, 2)
        assert try_enable(rt, 0, 1) is None and rt.peer_enabled(0, 1)
        with pytest.raises(ValueError, match="out of range"):
            try_enable(rt, 0, 8)


def test_peer_access_block_restores_previous_state(a2_2) -> None:
    a2_2.enable_peer(0, 1)
    with peer_access(a2_2, [(0, 1), (1, 0)]):
        assert a2_2.peer_refs()[(0, 1)] == 2 and a2_2.peer_enabled(1, 0)
    assert a2_2.peer_refs() == {(0, 1): 1}
    a2_2.disable_peer(0, 1)


# ------------------------------------------------------------------------------ the server
def _cut(preset: str, n: int, **overrides: Any) -> Topology:
    """The first n devices of a preset (a smaller server runs the matrix faster)."""
    full = load_preset(preset)
    return dataclasses.replace(
        full,
        name=f"{preset}-{n}",
        labels=full.labels[:n],
        links=tuple(row[:n] for row in full.links[:n]),
        cpu_affinity=full.cpu_affinity[:n],
        **overrides,
    )


A2x4 = _cut("atlas800t-a2", 4)


#: A sweep that takes a few milliseconds of host time.
QUICK: dict[str, Any] = {
    "sizes": "4KiB,64KiB",
    "samples": 2,
    "warmup": 1,
    "min_sample_us": 20.0,
    "max_copies": 4,
    "progress": False,
}


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


def assert_released(rt: Runtime, refs_before: dict[tuple[int, int], int]) -> None:
    """Nothing the operation made is still held; peer access is as it was before."""
    assert rt.open_resources() == []
    assert rt.peer_refs() == refs_before
    ledger = rt.ledger()
    assert ledger is not None
    held = (ledger["device_buffers"], ledger["host_buffers"], ledger["streams"], ledger["events"])
    assert held == (0, 0, 0, 0), ledger
    assert ledger["peer_refs"] == {f"{a}->{b}": n for (a, b), n in refs_before.items()}
    assert ledger["implicit_releases"] == []


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
        assert dash.message.startswith(
            f"ready, but probing {len(dash.probe_errors)} pair(s) failed, e.g. "
        )
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
INTERRUPT_OPS = (
    "probe",
    "toggle",
    "enable_all",
    "sweep_uni",
    "sweep_bi",
    "sweep_peer_off",
    "sweep_fanout",
    "dashboard",
    "panel",
)


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
        steps = [
            lambda: try_enable(rt, 0, 1),
            lambda: try_enable(rt, 1, 0),
            lambda: disable(rt, 0, 1),
            lambda: disable(rt, 1, 0),
        ]
    elif op == "enable_all":
        steps = [lambda: enable_all(rt), lambda: disable_all(rt)]
    else:
        widgets = pytest.importorskip("ascend_p2p_lab.widgets")
        panel = widgets.PeerLinkPanel(rt)
        toggles = panel.toggles
        steps = [
            lambda: setattr(toggles[0][1], "value", True),
            lambda: setattr(toggles[1][0], "value", True),
            lambda: setattr(toggles[0][1], "value", False),
            panel.enable_all_button.click,
            panel.disable_all_button.click,
        ]
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
def test_interrupt_matrix(
    point: str, op: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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


def test_interrupted_enable_all_takes_its_enables_back(monkeypatch: pytest.MonkeyPatch) -> None:
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
