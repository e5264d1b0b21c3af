"""The widgets package on the measure API: one sweep per Run, progress per block, the link
panel on probe() and the peer-link helpers, and the package's own shape.

Example:
    python -m pytest tests/test_widget_parts.py -q

Widgets driven without a browser: set ``.value``, ``.click()`` buttons, check the runtime.

Example:
    python -m pytest tests/test_widgets.py -q -p no:nbval"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import links, peer_matrix
from ascend_p2p_lab.runtime import Runtime
from ascend_p2p_lab.widgets import PeerLinkPanel

ENABLE_FAULT = [{"kind": "error", "call": "rt.device_enable_peer_access", "nth": 1, "code": 507899}]


@pytest.fixture
def a2() -> Iterator[Runtime]:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        yield rt


@pytest.fixture
def duo() -> Iterator[Runtime]:
    with open_runtime("sim", preset="atlas300i-duo") as rt:
        yield rt


@pytest.fixture
def faulty() -> Iterator[Runtime]:
    with open_runtime("sim", preset="atlas800t-a2", faults=ENABLE_FAULT) as rt:
        yield rt


def _cells(panel: PeerLinkPanel) -> Iterator[tuple[int, int, Any]]:
    for i, row in enumerate(panel.toggles):
        for j, toggle in enumerate(row):
            if toggle is not None:
                yield i, j, toggle


# ---------------------------------------------------------------------- PeerLinkPanel
def test_panel_click_changes_the_runtime_and_mirrors_it(a2: Runtime) -> None:
    panel = PeerLinkPanel(a2)
    assert panel.state.shape == (8, 8) and panel.state.dtype == bool and not panel.state.any()
    assert all(panel.toggles[i][i] is None for i in range(8))
    assert "p2p-cell-0-1" in panel.toggles[0][1]._dom_classes
    assert repr(panel) == "PeerLinkPanel(8 devices, sim atlas800t-a2, 0/56 enabled)"

    panel.toggles[0][1].value = True
    assert a2.peer_enabled(0, 1) and a2.peer_refs() == {(0, 1): 1}
    assert panel.state[0, 1] and panel.last_error is None
    assert panel.toggles[0][1].description == "on"
    assert not a2.peer_enabled(1, 0)  # one direction only

    panel.toggles[1][0].value = True
    panel.toggles[0][1].value = False
    assert a2.peer_refs() == {(1, 0): 1}
    np.testing.assert_array_equal(panel.state, peer_matrix(a2).to_numpy().astype(bool))
    assert repr(panel) == "PeerLinkPanel(8 devices, sim atlas800t-a2, 1/56 enabled)"

    assert panel.set(2, 3, True) and a2.peer_enabled(2, 3)
    assert panel.toggles[2][3].value is True


def test_unreachable_pairs_are_disabled_with_the_reason(duo: Runtime) -> None:
    panel = PeerLinkPanel(duo)
    assert panel.reachable_count == 8  # two chips per card, both directions
    cross = panel.toggles[0][2]
    assert cross.disabled and cross.description == "n/a"
    assert "aclrtDeviceCanAccessPeer(0, 2) = 0" in cross.tooltip and "SYS" in cross.tooltip
    assert "p2p-unreachable" in cross._dom_classes
    assert not panel.toggles[0][1].disabled

    cross.value = True  # only code can do this to a disabled toggle: refused, flipped back
    assert cross.value is False and not panel.state[0, 2]
    assert not duo.peer_enabled(0, 2) and duo.peer_refs() == {}
    assert panel.last_error is not None and "aclrtDeviceCanAccessPeer(0, 2)" in panel.last_error

    panel.enable_all_button.click()
    assert panel.last_error is None
    assert set(duo.peer_refs()) == {(0, 1), (1, 0), (2, 3), (3, 2), (4, 5), (5, 4), (6, 7), (7, 6)}
    assert repr(panel) == "PeerLinkPanel(8 devices, sim atlas300i-duo, 8/8 enabled)"
    assert not cross.value


def test_refused_enable_flips_back_and_shows_the_error(faulty: Runtime) -> None:
    panel = PeerLinkPanel(faulty)
    toggle = panel.toggles[0][1]
    assert not toggle.disabled  # looks enableable; the driver refuses (injected fault)
    toggle.value = True
    assert toggle.value is False and not panel.state[0, 1]
    assert not faulty.peer_enabled(0, 1) and faulty.peer_refs() == {}
    assert panel.last_error is not None and "507899" in panel.last_error
    assert "507899" in panel.status.value and "p2p-status-error" in panel.status.value

    toggle.value = True  # the fault fired once; the next click works and clears the error
    assert toggle.value is True and faulty.peer_enabled(0, 1)
    assert panel.last_error is None


def test_enable_all_and_disable_all_make_no_observer_storm(
    a2: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    panel = PeerLinkPanel(a2)
    calls = {"enable": 0, "disable": 0}
    enable, disable = a2.enable_peer, a2.disable_peer

    def counting_enable(src: int, dst: int) -> None:
        calls["enable"] += 1
        enable(src, dst)

    def counting_disable(src: int, dst: int) -> None:
        calls["disable"] += 1
        disable(src, dst)

    monkeypatch.setattr(a2, "enable_peer", counting_enable)
    monkeypatch.setattr(a2, "disable_peer", counting_disable)

    panel.enable_all_button.click()
    assert calls == {"enable": 56, "disable": 0}  # the 56 toggle changes called nothing
    assert set(a2.peer_refs().values()) == {1} and len(a2.peer_refs()) == 56
    assert all(t.value for _, _, t in _cells(panel)) and panel.enabled_count == 56

    panel.disable_all_button.click()
    assert calls == {"enable": 56, "disable": 56}
    assert a2.peer_refs() == {} and not panel.state.any()
    assert not any(t.value for _, _, t in _cells(panel))


def test_enable_all_reports_refusals(faulty: Runtime) -> None:
    panel = PeerLinkPanel(faulty)
    refused = panel.enable_all()
    assert list(refused) == [(0, 1)]
    assert panel.enabled_count == 55 and not panel.toggles[0][1].value
    assert panel.last_error is not None and "1 direction(s) refused" in panel.last_error


def test_refresh_rereads_the_runtime(a2: Runtime) -> None:
    panel = PeerLinkPanel(a2)
    assert links.try_enable(a2, 2, 3) is None  # changed behind the panel's back
    assert not panel.state[2, 3]
    panel.refresh()
    assert panel.state[2, 3] and panel.toggles[2][3].value is True
    assert a2.peer_refs() == {(2, 3): 1}  # refreshing made no runtime call

    panel.toggles[2][3].value = False
    assert a2.peer_refs() == {}


def test_panel_errors_do_not_vanish(a2: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    panel = PeerLinkPanel(a2)

    def boom(rt: Runtime, src: int, dst: int) -> None:
        raise RuntimeError("driver exploded")

    monkeypatch.setattr(links, "try_enable", boom)
    panel.toggles[0][1].value = True
    assert panel.toggles[0][1].value is False
    assert panel.last_error == "enable 0->1 refused: RuntimeError: driver exploded"
    assert a2.peer_refs() == {}

    panel.locked = "a sweep is running"
    monkeypatch.undo()
    panel.toggles[0][1].value = True
    assert panel.toggles[0][1].value is False and a2.peer_refs() == {}
    assert panel.last_error is not None and "a sweep is running" in panel.last_error


def test_panel_repr_mimebundle(a2: Runtime) -> None:
    panel = PeerLinkPanel(a2)
    bundle = panel._repr_mimebundle_()
    assert bundle["text/plain"] == repr(panel)
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == panel.widget.model_id
