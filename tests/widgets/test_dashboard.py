"""The sweep dashboard (widgets.SweepDashboard), driven without a browser: set ``.value``,
``.click()`` buttons, check the runtime.

- Run makes one sweep, with the spec checked once, and a frame with its own run id.
  Wrong values give a status message and allocate nothing; a failing sweep is reported
  and leaves the state consistent; refusals are counted by kind, code and call.
- The progress bar moves per block. A second Run, a peer toggle or a preset switch while
  a run is going on is refused; close during a run waits for it.
- Figures go into the output with a caption naming the measured cells and the refusals;
  live figures follow each block, or are drawn once at the end when none is due.
- The test control runs a built-in test or a test file instead of pairs.
- Without pyACL the dashboard uses the simulator and says so in its status line, not on
  stderr; pairs it could not probe are named.
- A preset switch reopens the runtime and releases the old one (a runtime passed in stays
  open); one that fails half way keeps the old runtime. Also its repr and the checks of
  its constructor.
- The package's shape: importing the widgets loads neither the simulator nor matplotlib,
  the core package does not import ipywidgets, and the widget modules stay small and
  call no ACL."""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ascend_p2p_lab.runtime import open_runtime

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

import traitlets
from helpers import _dashboard, _tiny, too_long
from matplotlib.figure import Figure

from ascend_p2p_lab import measure
from ascend_p2p_lab.runtime import Runtime
from ascend_p2p_lab.sim import (
    LIVE,
)
from ascend_p2p_lab.topology import (
    load_preset,
)
from ascend_p2p_lab.widgets import PeerLinkPanel, SweepDashboard


def test_the_dashboard_shows_the_simulator_fallback_as_information(capsys, monkeypatch) -> None:
    """Without pyACL the dashboard falls back to the simulator and says so in its own
    status line, as information: nothing on stderr (a kernel shows stderr as a pink
    error box)."""
    pytest.importorskip("ipywidgets")
    from ascend_p2p_lab.runtime import backend
    from ascend_p2p_lab.widgets import SweepDashboard

    def no_pyacl():
        raise backend.BackendUnavailable("no module named acl")

    monkeypatch.setattr(backend, "_import_real_acl", no_pyacl)
    monkeypatch.delenv("ASCEND_P2P_LAB_BACKEND", raising=False)
    dash = SweepDashboard()
    try:
        assert dash.rt.simulated and dash.rt.info.notice
        assert capsys.readouterr().err == ""
        assert dash.message == "ready; pyACL not found; using the simulated CANN runtime"
        assert 'class="p2p-status-info"' in dash.status.value
    finally:
        dash.close()
    with open_runtime() as rt:  # the command line still announces it on stderr
        assert rt.simulated
    assert "pyACL not found" in capsys.readouterr().err


def test_the_dashboard_runs_a_built_in_test_or_a_file():
    """The dashboard's test control: a built-in test, or a file, instead of pairs; the
    figures are the tests' bars and the caption lists each transfer's value."""
    pytest.importorskip("ipywidgets")
    from ascend_p2p_lab.widgets.dashboard import SweepDashboard
    from ascend_p2p_lab.widgets.render import tests_caption

    with SweepDashboard(backend="sim", preset="atlas800t-a2") as dash:
        dash.sizes.value = (1 << 20, 1 << 20)
        dash.samples.value = 1
        dash.plots.value = True
        dash.test.value = "ring"
        dash.run_button.click()
        ring = dash.frame
        assert set(ring["test"].dropna()) == {"ring"} and ring["transfer"].max() == 7
        assert list(dash.figures) == ["tests"] and dash.plot_error is None
        caption = tests_caption(ring)
        assert caption.splitlines()[0].startswith("ring: 0->1 ") and "ring: all " in caption
        dash.test.value = "pairs"
        dash.test_file.value = str(Path("examples/tests/three-copies.toml"))
        dash.run_button.click()
        assert set(dash.frame["test"].dropna()) == {"pull-push-host"}
        dash.test_file.value = "nosuch.toml"
        before = dash.frame
        dash.run_button.click()
        assert "nosuch.toml: no such file" in dash.message and dash.frame is before
        dash.test_file.value = ""
        dash.peer.value = "off"
        dash.test.value = "a2a"
        dash.run_button.click()
        assert "peer on or current" in dash.message


PACKAGE = Path(__file__).resolve().parents[2] / "ascend_p2p_lab" / "widgets"


@pytest.fixture
def a2() -> Iterator[Runtime]:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        yield rt


class SweepSpy:
    """measure.sweep, counted, with each on_block call's progress recorded."""

    def __init__(self, dash: SweepDashboard) -> None:
        self.dash = dash
        self.real = measure.sweep
        self.calls: list[dict[str, Any]] = []
        self.progress: list[tuple[int, int, int, int]] = []  # value, max, done, total

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        on_block = kwargs["on_block"]

        def recording(event: measure.BlockDone) -> None:
            on_block(event)
            bar = self.dash.progress
            self.progress.append((bar.value, bar.max, event.done, event.total))

        return self.real(*args, **{**kwargs, "on_block": recording})


# ------------------------------------------------------------------------ the dashboard
def test_one_sweep_per_run_and_the_runs_own_run_id(
    a2: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    dash = _dashboard(a2, ("0-1", "1-0", "2-3"), direction="both", peer="both")
    spy = SweepSpy(dash)
    monkeypatch.setattr(measure, "sweep", spy)
    ids = []
    for run in (1, 2):
        frame = dash.run()
        assert frame is not None and dash.message.startswith("done"), dash.message
        assert len(spy.calls) == run  # one sweep per Run, however many blocks
        meta = frame.attrs["run"]
        assert frame["run_id"].nunique() == 1 and frame["run_id"].iloc[0] == meta["run_id"]
        assert meta["source"] == "SweepDashboard" and not meta["interrupted"]
        ids.append(meta["run_id"])
    assert ids[0] != ids[1]
    # the dashboard hands sweep the checked spec: nothing is validated a second time
    assert set(spy.calls[0]) == {"spec", "progress", "on_block"}
    assert spy.calls[0]["spec"].directions == ("uni", "bi")
    assert set(frame["direction"]) == {"uni", "bi"} and set(frame["peer"]) == {"on", "off"}


def test_the_progress_bar_moves_per_block_and_reaches_the_total(
    a2: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    dash = _dashboard(a2, ("0-1", "1-0", "2-3"))  # 3 blocks of 3 sizes
    spy = SweepSpy(dash)
    monkeypatch.setattr(measure, "sweep", spy)
    dash.run()
    assert spy.progress == [(3, 9, 1, 3), (6, 9, 2, 3), (9, 9, 3, 3)]
    assert dash.progress.value == dash.progress.max == 9
    assert dash.progress.bar_style == "success"


def test_make_spec_checks_once_and_wrong_values_never_reach_sweep(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checks: list[Any] = []
    real = measure.make_spec

    def counting(*args: Any, **kwargs: Any) -> Any:
        checks.append(args[1:])
        return real(*args, **kwargs)

    monkeypatch.setattr(measure, "make_spec", counting)
    small = dataclasses.replace(load_preset("atlas800t-a2"), memory_bytes=1 << 30)
    with open_runtime("sim", topology=small) as rt:  # 1 GiB per device
        dash = _dashboard(rt, ("0-1",), sizes=(4096, 1 << 30))
        dash.direction.value = "bi"  # both ways: a send and a receive buffer on each
        spy = SweepSpy(dash)
        monkeypatch.setattr(measure, "sweep", spy)
        assert dash.run() is None and spy.calls == [] and len(checks) == 1
        assert dash.message.startswith("cannot run: size 1 GiB needs 2 GiB on each device")
        assert "p2p-status-error" in dash.status.value and rt.open_resources() == []
        dash.sizes.value = (4096, 8192)
        assert dash.run() is not None and len(spy.calls) == 1 and len(checks) == 2
        dash.close()


def test_live_figures_are_throttled_to_one_final_drawing(
    a2: Runtime, fake_plots: list[int]
) -> None:
    drawn = fake_plots
    dash = _dashboard(a2, ("0-1", "1-0", "2-3"), plots=True)
    dash.live_interval = 3600.0  # no live drawing can be due during this run
    dash.run()
    assert drawn == [9] and dash.plot_error is None and len(dash.out.outputs) == 3


def test_the_dashboard_names_the_pairs_it_could_not_probe() -> None:
    fault = [{"kind": "error", "call": "rt.device_can_access_peer", "nth": 3, "code": 200002}]
    with open_runtime("sim", preset="atlas800t-a2", faults=fault) as rt:
        dash = SweepDashboard(rt)
        assert len(dash.probe_errors) == 54
        assert dash.message.startswith(
            "ready, but probing 54 pair(s) failed, e.g. 0->3: "
            "AclError: acl.rt.device_can_access_peer(0, 3)"
        )
        labels = dict((v, k) for k, v in dash.pairs.options)
        assert labels["0-2"] == "0 → 2 (HCCS)" and labels["0-3"] == "0 → 3 (NA, unknown)"
        assert dash.links is not None and dash.links.reachable_count == 56  # probed anew
        dash.close()


# ------------------------------------------------------------------- the package itself
def test_importing_the_widgets_loads_neither_the_simulator_nor_matplotlib() -> None:
    code = (
        "import sys, ascend_p2p_lab.widgets; "
        "bad = [m for m in sys.modules if m.startswith(('ascend_p2p_lab.sim', "
        "'matplotlib', 'ascend_p2p_lab.plots'))]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_modules_and_functions_stay_small_and_call_no_acl() -> None:
    for path in sorted(PACKAGE.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert not too_long(text), f"{path.name}: {too_long(text)}"
        tree = ast.parse(text)
        for node in ast.walk(tree):  # no pyACL object, no import from the layers below
            if isinstance(node, ast.Attribute):
                assert node.attr != "acl", f"{path.name}:{node.lineno}"
            if isinstance(node, ast.ImportFrom) and node.level == 2:
                assert node.module not in ("sim", "cli") and not (node.module or "").startswith(
                    "sim."
                ), f"{path.name}:{node.lineno}"


def _allocated(rt: Runtime) -> tuple[Any, ...]:
    ledger = rt.ledger()
    assert ledger is not None
    return (
        ledger["device_buffers"],
        ledger["host_buffers"],
        ledger["streams"],
        ledger["events"],
        dict(ledger["peer_refs"]),
    )


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
    a2: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    dash = SweepDashboard(a2)
    _tiny(dash, pairs=("0-1", "2-3"), sizes=(4096, 8192))
    sweeps: list[Any] = []
    real_sweep = measure.sweep

    def counting_sweep(*args: Any, **kwargs: Any) -> Any:
        sweeps.append(kwargs["spec"].pairs)
        return real_sweep(*args, **kwargs)

    monkeypatch.setattr(measure, "sweep", counting_sweep)
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
    a2: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    dash = SweepDashboard(a2)
    _tiny(dash)
    dash.links.toggles[0][1].value = True

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("simulated crash")

    monkeypatch.setattr(measure, "sweep", broken)
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
        "heatmap at 16 KiB (largest size), row = source: 2 cells measured (0→1 "
    )


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
    assert caption.startswith(
        "heatmap at 8 KiB (largest size), row = source: 2 cells measured (0→2 "
    ), caption
    assert ", 2→0 " in caption and "3→1" not in caption and "0→1" not in caption
    assert caption.endswith(
        " GB/s)\nE1 refused: ACL_ERROR_RT_DRV_INTERNAL_ERROR (507899) from "
        "acl.rt.memcpy_async [54 cells]"
    ), caption


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


def test_preset_switch_keeps_a_passed_runtime_and_is_refused_while_running(a2: Runtime) -> None:
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
    code = (
        "import sys, ascend_p2p_lab, ascend_p2p_lab.measure, ascend_p2p_lab.results, "
        "ascend_p2p_lab.plots, ascend_p2p_lab.cli; "
        "assert 'ipywidgets' not in sys.modules, 'ipywidgets imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_dashboard_counts_refusals_by_kind_code_and_call(a2: Runtime) -> None:
    dash = SweepDashboard(a2)
    _tiny(dash, pairs=("0-1",), sizes=(4096, 8192))
    dash.peer.value = "off"
    frame = dash.run()
    assert frame is not None
    assert dash.message.endswith(
        "; 2 rows carry an error: 2 refused "
        "ACL_ERROR_RT_DRV_INTERNAL_ERROR (507899) from "
        "acl.rt.memcpy_async"
    ), dash.message
    assert "p2p-status-ok" in dash.status.value  # refusals are results, not failures
    errors = dash.errors
    assert errors[["kind", "code", "call", "rows", "points", "failure"]].values.tolist() == [
        ["refused", 507899, "acl.rt.memcpy_async", 2, 2, False]
    ]


@pytest.mark.parametrize("exc", [KeyboardInterrupt, RuntimeError])
def test_a_preset_switch_that_fails_half_way_keeps_the_old_runtime(
    exc: type[BaseException], monkeypatch: pytest.MonkeyPatch
) -> None:
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
