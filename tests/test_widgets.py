"""Widgets driven without a browser: set ``.value``, ``.click()`` buttons, check the runtime.

Example:
    python -m pytest tests/test_widgets.py -q -p no:nbval
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

import traitlets
from matplotlib.figure import Figure

from ascend_p2p_lab import measure, open_runtime
from ascend_p2p_lab import widgets as W
from ascend_p2p_lab.measure import links, peer_matrix
from ascend_p2p_lab.runtime import Runtime
from ascend_p2p_lab.widgets import PeerLinkPanel, SweepDashboard
from ascend_p2p_lab.widgets.status import error_summary

ENABLE_FAULT = [{"kind": "error", "call": "rt.device_enable_peer_access", "nth": 1,
                 "code": 507899}]
TINY = (4 << 10, 64 << 10)  # 4 KiB .. 64 KiB: 5 sizes


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


def _tiny(dash: SweepDashboard, pairs: tuple[str, ...] = ("0-1",),
          sizes: tuple[int, int] = TINY, plots_on: bool = False) -> None:
    dash.pairs_mode.value = "selected"
    dash.pairs.value = pairs
    dash.sizes.value = sizes
    dash.samples.value = 2
    dash.plots.value = plots_on


def _allocated(rt: Runtime) -> tuple[Any, ...]:
    ledger = rt.ledger()
    assert ledger is not None
    return (ledger["device_buffers"], ledger["host_buffers"], ledger["streams"],
            ledger["events"], dict(ledger["peer_refs"]))


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
    assert set(duo.peer_refs()) == {(0, 1), (1, 0), (2, 3), (3, 2), (4, 5), (5, 4), (6, 7),
                                    (7, 6)}
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
        a2: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
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
    assert bundle["application/vnd.jupyter.widget-view+json"]["model_id"] == \
        panel.widget.model_id


# ---------------------------------------------------------------------- SweepDashboard
def test_dashboard_run_makes_the_expected_frame(a2: Runtime) -> None:
    dash = SweepDashboard(a2)
    assert repr(dash) == "SweepDashboard(sim atlas800t-a2, 8 devices, idle, no run yet)"
    assert isinstance(dash.links, PeerLinkPanel) and dash.links.rt is a2
    _tiny(dash, pairs=("0-1", "1-0"))
    before = _allocated(a2)
    dash.run_button.click()

    frame = dash.frame
    assert frame is not None, dash.message
    assert set(zip(frame["src"], frame["dst"])) == {(0, 1), (1, 0)}
    assert sorted(frame["size_bytes"].unique()) == [4096, 8192, 16384, 32768, 65536]
    assert len(frame) == 2 * 5 * 2 and frame["error"].isna().all()
    assert frame["run_id"].nunique() == 1
    meta = frame.attrs["run"]
    assert meta["run_id"] == frame["run_id"].iloc[0] and meta["source"] == "SweepDashboard"
    assert meta["params"]["sizes"] == [4096, 8192, 16384, 32768, 65536]
    assert meta["params"]["pairs"] == [[0, 1], [1, 0]] and "chunks" not in meta
    assert dash.progress.value == dash.progress.max == 10
    assert dash.message.startswith("done: 20 rows")
    assert _allocated(a2) == before  # the sweep released its buffers and links
    assert repr(dash) == "SweepDashboard(sim atlas800t-a2, 8 devices, idle, last run: 20 rows)"

    dash.close()
    assert dash.closed and not a2.closed  # a runtime passed in stays the caller's
    assert dash.run() is None and "closed" in dash.message


def test_dashboard_both_directions_and_peer_modes() -> None:
    with SweepDashboard(backend="sim", preset="atlas800t-a2", links=False) as dash:
        assert dash.links is None
        _tiny(dash, sizes=(4096, 8192))
        dash.direction.value = "both"
        dash.peer.value = "both"
        frame = dash.run()
        assert frame is not None
        assert set(frame["direction"]) == {"uni", "bi"} and set(frame["peer"]) == {"on", "off"}
        assert dash.progress.value == dash.progress.max
        assert dash.rt.peer_refs() == {}


def test_progress_moves_and_a_second_run_is_refused(
        a2: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    dash = SweepDashboard(a2)
    _tiny(dash, pairs=("0-1", "2-3"), sizes=(4096, 8192))
    sweeps: list[Any] = []
    real_sweep = measure.sweep_run

    def counting_sweep(*args: Any, **kwargs: Any) -> Any:
        sweeps.append(kwargs["spec"].pairs)
        return real_sweep(*args, **kwargs)

    monkeypatch.setattr(measure, "sweep_run", counting_sweep)
    seen: list[tuple[int, bool, Any, bool]] = []

    def on_progress(change: dict[str, Any]) -> None:
        if change["new"] == 0:
            return
        again = dash.run()  # re-entrant Run while the first one is going on
        seen.append((change["new"], dash.busy, again, dash.links.locked is not None))
        dash.links.toggles[4][5].value = True  # refused too while a sweep runs

    dash.progress.observe(on_progress, names="value")
    frame = dash.run()
    dash.progress.unobserve(on_progress, names="value")

    assert [v for v, *_ in seen] == [2, 4]  # points, once per block: 2 pairs x 2 sizes
    assert all(busy and again is None and locked for _, busy, again, locked in seen)
    assert dash.refused_runs == 2 and len(sweeps) == 1  # no second sweep started
    assert frame is not None and len(frame) == 2 * 2 * 2
    assert not dash.busy and not dash.run_button.disabled and dash.links.locked is None
    assert not a2.peer_enabled(4, 5)
    assert dash.message.startswith("done")

    dash.progress.observe(lambda c: dash.run(), names="value")
    dash.run()
    assert "already running" not in dash.message  # the last message is the run's own
    assert dash.refused_runs > 2


def test_wrong_values_give_a_status_message_and_allocate_nothing(a2: Runtime) -> None:
    dash = SweepDashboard(a2)
    _tiny(dash)
    before = _allocated(a2)

    dash.samples.value = 0
    assert dash.run() is None and dash.frame is None
    assert dash.message == "cannot run: samples must be between 1 and 1000, got 0"
    assert "p2p-status-error" in dash.status.value

    dash.samples.value = 2
    dash.pairs.value = ()
    dash.run_button.click()
    assert dash.frame is None and "no pair selected" in dash.message
    assert _allocated(a2) == before and not dash.busy

    with pytest.raises(traitlets.TraitError):  # the widgets themselves refuse wrong types
        dash.samples.value = "many"
    with pytest.raises(traitlets.TraitError):
        dash.pairs.value = ("0-9",)


def test_callback_errors_are_reported_and_state_stays_consistent(
        a2: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    dash = SweepDashboard(a2)
    _tiny(dash)
    dash.links.toggles[0][1].value = True

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("simulated crash")

    monkeypatch.setattr(measure, "sweep_run", broken)
    dash.run_button.click()
    assert "sweep failed" in dash.message and "RuntimeError: simulated crash" in dash.message
    assert dash.progress.bar_style == "danger"
    assert not dash.busy and dash.links.locked is None
    assert a2.peer_refs() == {(0, 1): 1} and dash.links.state[0, 1]


def test_dashboard_plots_figures_into_the_output(a2: Runtime) -> None:
    dash = SweepDashboard(a2)
    _tiny(dash, pairs=("0-1", "1-0"), sizes=(4096, 16384), plots_on=True)
    dash.live.value = False
    dash.run()
    assert set(dash.figures) == {"heatmap", "bandwidth_vs_size"}
    assert all(isinstance(f, Figure) for f in dash.figures.values())
    assert dash.plot_error is None
    *pictures, caption = dash.out.outputs
    assert len(pictures) == 2 and all(o["data"]["image/png"] for o in pictures)
    assert caption["data"]["text/plain"].startswith(
        "heatmap at 16 KiB (largest size), row = source: 2 cells measured (0→1 ")


def test_dashboard_caption_names_the_measured_cells_and_the_refusals(a2: Runtime) -> None:
    """Peer mode current with 0 -> 2 held both ways and 3 -> 1 one way only: the caption
    names 0→2 and 2→0 as measured (not 3→1: the driver needs both directions) and counts
    the runtime's refusal on the other 54 cells, as the heatmap marks them."""
    dash = SweepDashboard(a2)
    for src, dst in ((0, 2), (2, 0), (3, 1)):
        assert dash.links.set(src, dst, True)
    _tiny(dash, sizes=(4096, 8192), plots_on=True)
    dash.pairs_mode.value, dash.peer.value, dash.live.value = "all", "current", False
    dash.run()
    caption = dash.out.outputs[-1]["data"]["text/plain"]
    assert caption.startswith("heatmap at 8 KiB (largest size), row = source: 2 cells "
                              "measured (0→2 "), caption
    assert ", 2→0 " in caption and "3→1" not in caption and "0→1" not in caption
    assert caption.endswith(" GB/s)\nE1 refused: ACL_ERROR_RT_DRV_INTERNAL_ERROR (507899) from "
                            "acl.rt.memcpy_async [54 cells]"), caption


def test_live_plots_follow_each_block(a2: Runtime, fake_plots: list[int]) -> None:
    drawn = fake_plots
    dash = SweepDashboard(a2)
    dash.live_interval = dash.live_draw_factor = 0
    _tiny(dash, pairs=("0-1", "2-3"), sizes=(4096, 16384), plots_on=True)
    dash.run()
    assert drawn == [6, 12]  # redrawn after each block (3 sizes x 2 samples), growing


def test_preset_switch_reopens_and_releases(monkeypatch: pytest.MonkeyPatch) -> None:
    dash = SweepDashboard(backend="sim", preset="atlas800t-a2")
    try:
        old = dash.rt
        dash.links.toggles[0][1].value = True
        assert old.peer_refs() == {(0, 1): 1}
        assert dash.preset.value == "atlas800t-a2" and not dash.preset.disabled

        dash.preset.value = "atlas300i-duo"
        assert old.closed and old.ledger()["peer_refs"] == {}  # the old state was released
        assert dash.rt is not old and dash.rt.preset == "atlas300i-duo"
        assert dash.links.rt is dash.rt and dash.links.toggles[0][2].disabled
        assert dash.links.widget in dash.links_box.children
        assert any("no P2P" in label for label, _ in dash.pairs.options)
        assert "switched to preset atlas300i-duo" in dash.message

        dash.preset.value = "atlas800t-a3"
        assert repr(dash) == "SweepDashboard(sim atlas800t-a3, 16 devices, idle, no run yet)"
        assert len(dash.links.toggles) == 16 and len(dash.pairs.options) == 240

        assert not dash.set_preset("no-such-preset")
        assert "cannot open preset 'no-such-preset'" in dash.message
        assert dash.rt.preset == "atlas800t-a3" and dash.preset.value == "atlas800t-a3"
    finally:
        dash.close()
    assert dash.rt.closed and repr(dash).endswith("closed, no run yet)")


def test_preset_switch_keeps_a_passed_runtime_and_is_refused_while_running(
        a2: Runtime) -> None:
    dash = SweepDashboard(a2)
    _tiny(dash, sizes=(4096, 4096))
    tried: list[bool] = []

    def switch_midway(change: dict[str, Any]) -> None:
        if change["new"]:
            dash.preset.value = "atlas300i-duo"
            tried.append(dash.preset.value == "atlas800t-a2" and dash.rt is a2)

    dash.progress.observe(switch_midway, names="value")
    assert dash.run() is not None
    dash.progress.unobserve(switch_midway, names="value")
    assert tried == [True]

    assert dash.set_preset("atlas300i-duo") and dash.owns_runtime
    assert not a2.closed and "still open" in dash.message
    dash.close()
    assert dash.rt.closed and not a2.closed


def test_close_during_a_run_waits_for_the_run() -> None:
    dash = SweepDashboard(backend="sim", preset="atlas800t-a2")
    _tiny(dash, sizes=(4096, 8192))
    dash.progress.observe(lambda c: dash.close(), names="value")
    frame = dash.run()
    assert frame is not None and len(frame) == 4  # the sweep finished ...
    assert dash.closed and dash.rt.closed  # ... then the dashboard closed its runtime
    assert dash.run_button.disabled


def test_dashboard_repr_mimebundle(a2: Runtime) -> None:
    dash = SweepDashboard(a2)
    bundle = dash._repr_mimebundle_(include=None, exclude=None)
    assert bundle["text/plain"] == "SweepDashboard(sim atlas800t-a2, 8 devices, idle, no run yet)"
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_constructor_arguments_are_checked(a2: Runtime) -> None:
    with pytest.raises(ValueError, match="not both"):
        SweepDashboard(a2, preset="atlas300i-duo")


def test_core_package_does_not_import_ipywidgets() -> None:
    code = ("import sys, ascend_p2p_lab, ascend_p2p_lab.measure, ascend_p2p_lab.results, "
            "ascend_p2p_lab.plots, ascend_p2p_lab.cli; "
            "assert 'ipywidgets' not in sys.modules, 'ipywidgets imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------- errors as data
def _reworded(frame: Any) -> Any:
    out = frame.copy()
    out["error"] = out["error"].where(out["error"].isna(), "reworded " + out.index.astype(str))
    return out


def test_dashboard_counts_refusals_by_kind_code_and_call(a2: Runtime) -> None:
    dash = SweepDashboard(a2)
    _tiny(dash, pairs=("0-1",), sizes=(4096, 8192))
    dash.peer.value = "off"
    frame = dash.run()
    assert frame is not None
    assert dash.message.endswith("; 2 rows carry an error: 2 refused "
                                 "ACL_ERROR_RT_DRV_INTERNAL_ERROR (507899) from "
                                 "acl.rt.memcpy_async"), dash.message
    assert "p2p-status-ok" in dash.status.value  # refusals are results, not failures
    errors = dash.errors
    assert errors[["kind", "code", "call", "rows", "points", "failure"]].values.tolist() == [
        ["refused", 507899, "acl.rt.memcpy_async", 2, 2, False]]


def test_dashboard_failures_are_named_and_turn_the_status_red() -> None:
    faults = [{"kind": "error", "call": "rt.memcpy_async", "link": [2, 3], "code": 507013}]
    with open_runtime("sim", preset="atlas800t-a2", faults=faults) as rt:
        dash = SweepDashboard(rt)
        _tiny(dash, pairs=("0-1", "2-3"), sizes=(4096, 8192))
        frame = dash.run()
        message, status, errors = dash.message, dash.status.value, dash.errors
        dash.close()
    assert frame is not None
    assert ("; 2 rows carry an error: 2 runtime ACL_ERROR_RT_SYS_DMA (507013) from "
            "acl.rt.memcpy_async (2 of them failures that cost data)") in message
    assert "p2p-status-error" in status
    assert errors["failure"].tolist() == [True]

    # the counts and the status line come from error_kind, error_code and error_call only
    assert W.error_counts(_reworded(frame)).equals(W.error_counts(frame))
    assert error_summary(W.error_counts(_reworded(frame))) == \
        error_summary(W.error_counts(frame))
    legacy = frame.copy()  # a run saved before error kinds: text only
    legacy[["error_kind", "error_code", "error_call"]] = None
    counts = W.error_counts(legacy)
    assert counts[["kind", "rows", "failure"]].values.tolist() == [["unclassified", 2, False]]
    assert W.error_counts(frame.iloc[0:0]).empty
