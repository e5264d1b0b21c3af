"""Peer links (measure: try_enable, disable, enable_all, disable_all, peer_access,
peer_matrix) and Ctrl-C in every operation that touches them.

- Bad device ids are refused in one clear line with nothing allocated, and so is the same
  device on both ends; a pair the server cannot reach is refused with the reason and
  stays off.
- enable_all and disable_all cover the 56 ordered pairs of an atlas800t-a2; peer_matrix
  has sources as rows (2->5 enabled one way only sits in row 2, column 5); a peer_access
  block gives back the peer state it found.
- Ctrl-C at chosen ACL calls of probe, peer toggles, enable_all, four sweeps, the sweep
  dashboard and the link panel: each operation finishes, returns what was done marked
  interrupted, or raises after undoing its change (INTERRUPT_TABLE). Every buffer, stream
  and event it made is released, peer access is as it was before, an interrupted sweep's
  saved run equals the one returned, and the runtime closes to an empty simulator ledger.
  An interrupted enable_all or disable_all takes back what it did.

Interrupts wrap one ``acl.rt`` function so that its Nth call raises KeyboardInterrupt
*before* reaching the simulator (helpers.interrupt_at)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from helpers import (
    INTERRUPT_POINTS,
    OPERATIONS,
    _open,
    assert_panel_mirrors_runtime,
    assert_released,
    interrupt_at,
    nothing_allocated,
    refused,
)

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import (
    disable,
    disable_all,
    enable_all,
    peer_access,
    peer_matrix,
    probe,
    try_enable,
)
from ascend_p2p_lab.run import Run
from ascend_p2p_lab.runtime import AclError, Runtime


@pytest.fixture
def a2() -> Iterator[Runtime]:
    with open_runtime("sim", "atlas800t-a2") as rt:
        yield rt


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
    assert probe(a2_2).samples["peer_enabled"].all()
    assert disable_all(a2_2) == 56
    assert int(peer_matrix(a2_2).to_numpy().sum()) == 0


def test_the_peer_matrix_rows_are_sources(a2_2) -> None:
    """One way enabled (2 -> 5, not 5 -> 2): the 1 sits in row 2, column 5 only."""
    a2_2.enable_peer(2, 5)
    mat = peer_matrix(a2_2)
    assert (mat.index.name, mat.columns.name) == ("src", "dst")
    assert [(a, b) for a in mat.index for b in mat.columns if mat.loc[a, b]] == [(2, 5)]
    a2_2.disable_peer(2, 5)


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
            frame = probe(rt).frame()
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
            saved = Run.load(tmp_path / "run").frame()
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
