"""The widgets package on the measure API: one sweep per Run, progress per block, the link
panel on probe() and the peer-link helpers, and the package's own shape.

Example:
    python -m pytest tests/test_widget_parts.py -q
"""

from __future__ import annotations

import ast
import dataclasses
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")


from ascend_p2p_lab import measure, open_runtime
from ascend_p2p_lab.measure import access_matrix, probe
from ascend_p2p_lab.runtime import Runtime
from ascend_p2p_lab.topology import load_preset
from ascend_p2p_lab.widgets import PeerLinkPanel, SweepDashboard

PACKAGE = Path(__file__).resolve().parents[1] / "ascend_p2p_lab" / "widgets"


@pytest.fixture
def a2() -> Iterator[Runtime]:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        yield rt


class SweepSpy:
    """measure.sweep_run, counted, with each on_block call's progress recorded."""

    def __init__(self, dash: SweepDashboard) -> None:
        self.dash = dash
        self.real = measure.sweep_run
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


def _dashboard(rt: Runtime, pairs: tuple[str, ...], sizes: tuple[int, int] = (4096, 16384),
               **values: Any) -> SweepDashboard:
    dash = SweepDashboard(rt)
    dash.pairs_mode.value = "selected"
    dash.pairs.value = pairs
    dash.sizes.value = sizes
    dash.samples.value = 1
    dash.plots.value = False
    for name, value in values.items():
        getattr(dash, name).value = value
    return dash


# ------------------------------------------------------------------------ the dashboard
def test_one_sweep_per_run_and_the_runs_own_run_id(
        a2: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    dash = _dashboard(a2, ("0-1", "1-0", "2-3"), direction="both", peer="both")
    spy = SweepSpy(dash)
    monkeypatch.setattr(measure, "sweep_run", spy)
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
        a2: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    dash = _dashboard(a2, ("0-1", "1-0", "2-3"))  # 3 blocks of 3 sizes
    spy = SweepSpy(dash)
    monkeypatch.setattr(measure, "sweep_run", spy)
    dash.run()
    assert spy.progress == [(3, 9, 1, 3), (6, 9, 2, 3), (9, 9, 3, 3)]
    assert dash.progress.value == dash.progress.max == 9
    assert dash.progress.bar_style == "success"


def test_make_spec_checks_once_and_wrong_values_never_reach_sweep(
        monkeypatch: pytest.MonkeyPatch) -> None:
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
        monkeypatch.setattr(measure, "sweep_run", spy)
        assert dash.run() is None and spy.calls == [] and len(checks) == 1
        assert dash.message.startswith("cannot run: size 1 GiB needs 2 GiB on each device")
        assert "p2p-status-error" in dash.status.value and rt.open_resources() == []
        dash.sizes.value = (4096, 8192)
        assert dash.run() is not None and len(spy.calls) == 1 and len(checks) == 2
        dash.close()


def test_a_failing_sweep_keeps_its_rows_and_says_why(
        a2: Runtime, monkeypatch: pytest.MonkeyPatch) -> None:
    dash = _dashboard(a2, ("0-1", "2-3"))
    real = measure.sweep_run

    def failing(*args: Any, on_block: Any, **kwargs: Any) -> Any:
        def second_block_fails(event: measure.BlockDone) -> None:
            on_block(event)
            if event.done == 2:
                raise RuntimeError("view exploded")

        return real(*args, on_block=second_block_fails, **kwargs)

    monkeypatch.setattr(measure, "sweep_run", failing)
    frame = dash.run()
    assert frame is not None and len(frame) == 2 * 3
    assert dash.message.startswith("sweep failed after 6 rows: RuntimeError: view exploded")
    assert frame.attrs["run"]["failed"] and frame["run_id"].nunique() == 1
    assert not dash.busy and dash.links.locked is None and a2.open_resources() == []


def test_live_figures_are_throttled_to_one_final_drawing(
        a2: Runtime, fake_plots: list[int]) -> None:
    drawn = fake_plots
    dash = _dashboard(a2, ("0-1", "1-0", "2-3"), plots=True)
    dash.live_interval = 3600.0  # no live drawing can be due during this run
    dash.run()
    assert drawn == [9] and dash.plot_error is None and len(dash.out.outputs) == 3


# ---------------------------------------------------------------------- the link panel
def test_the_panel_matrix_is_probes_peer_enabled_in_an_asymmetric_state(a2: Runtime) -> None:
    panel = PeerLinkPanel(a2)
    panel.toggles[0][1].value = True  # 0 -> 1 on, 1 -> 0 stays off
    panel.set(2, 3, True)
    panel.set(3, 2, True)
    panel.toggles[3][2].value = False
    assert a2.peer_refs() == {(0, 1): 1, (2, 3): 1}
    enabled = access_matrix(probe(a2), "peer_enabled").to_numpy().astype(bool)
    np.testing.assert_array_equal(panel.state, enabled)
    assert panel.state[0, 1] and not panel.state[1, 0]
    assert [[bool(t.value) if t else False for t in row] for row in panel.toggles] == \
        enabled.tolist()
    assert repr(panel) == "PeerLinkPanel(8 devices, sim atlas800t-a2, 2/56 enabled)"


def test_the_panel_reads_reachability_from_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Runtime] = []
    real = measure.probe

    def counting(rt: Runtime) -> Any:
        calls.append(rt)
        return real(rt)

    monkeypatch.setattr(measure, "probe", counting)
    with open_runtime("sim", preset="atlas300i-duo") as rt:
        panel = PeerLinkPanel(rt)
        table = real(rt)
    assert calls == [rt]
    np.testing.assert_array_equal(
        panel.reachable, access_matrix(table).to_numpy().astype(bool))
    assert panel.link_classes[0, 2] == "SYS" and panel.link_classes[0, 0] == "X"
    assert panel.reasons[(0, 2)] == ("0 cannot access 2: "
                                     "aclrtDeviceCanAccessPeer(0, 2) = 0 (link SYS)")
    # one naming: pyACL's device ids on the grid, npu-smi's names said once under it
    assert panel.labels == [str(i) for i in range(8)]
    assert panel.naming == ("devices are pyACL device ids 0-7 everywhere; npu-smi names "
                            "them NPU0 .. NPU7")


def test_a_probe_that_stops_leaves_the_rest_unprobed_and_says_why() -> None:
    fault = [{"kind": "error", "call": "rt.device_can_access_peer", "nth": 3, "code": 200002}]
    with open_runtime("sim", preset="atlas800t-a2", faults=fault) as rt:
        panel = PeerLinkPanel(rt)
    assert panel.reachable[0, 1] and panel.reachable[0, 2] and not panel.reachable[0, 3]
    assert panel.toggles[0][3].disabled and panel.link_classes[0, 3] == "NA"
    assert panel.reasons[(0, 3)].startswith("probing failed: AclError: "
                                            "acl.rt.device_can_access_peer(0, 3) returned")
    assert panel.reasons[(7, 6)].startswith("not probed (probing failed at 0->3): AclError")
    assert len(panel.reasons) == 56 - 2


def test_the_dashboard_names_the_pairs_it_could_not_probe() -> None:
    fault = [{"kind": "error", "call": "rt.device_can_access_peer", "nth": 3, "code": 200002}]
    with open_runtime("sim", preset="atlas800t-a2", faults=fault) as rt:
        dash = SweepDashboard(rt)
        assert len(dash.probe_errors) == 54
        assert dash.message.startswith("ready, but probing 54 pair(s) failed, e.g. 0->3: "
                                       "AclError: acl.rt.device_can_access_peer(0, 3)")
        labels = dict((v, k) for k, v in dash.pairs.options)
        assert labels["0-2"] == "0 → 2 (HCCS)" and labels["0-3"] == "0 → 3 (NA, unknown)"
        assert dash.links is not None and dash.links.reachable_count == 56  # probed anew
        dash.close()


def test_a_ctrl_c_while_probing_propagates(monkeypatch: pytest.MonkeyPatch) -> None:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        real = rt.acl.rt.device_can_access_peer
        seen = {"n": 0}

        def hook(*args: Any) -> Any:
            seen["n"] += 1
            if seen["n"] == 3:
                raise KeyboardInterrupt
            return real(*args)

        monkeypatch.setattr(rt.acl.rt, "device_can_access_peer", hook)
        with pytest.raises(KeyboardInterrupt):
            PeerLinkPanel(rt)
        assert rt.peer_refs() == {}


# ------------------------------------------------------------------- the package itself
def test_importing_the_widgets_loads_neither_the_simulator_nor_matplotlib() -> None:
    code = ("import sys, ascend_p2p_lab.widgets; "
            "bad = [m for m in sys.modules if m.startswith(('ascend_p2p_lab.sim', "
            "'matplotlib', 'ascend_p2p_lab.plots'))]; "
            "assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


def _functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def test_modules_and_functions_stay_small_and_call_no_acl() -> None:
    for path in sorted(PACKAGE.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 500, path.name
        tree = ast.parse(text)
        for fn in _functions(tree):
            assert fn.end_lineno is not None
            assert fn.end_lineno - fn.lineno + 1 <= 80, f"{path.name}:{fn.name}"
        for node in ast.walk(tree):  # no pyACL object, no import from the layers below
            if isinstance(node, ast.Attribute):
                assert node.attr != "acl", f"{path.name}:{node.lineno}"
            if isinstance(node, ast.ImportFrom) and node.level == 2:
                assert node.module not in ("sim", "cli") and \
                    not (node.module or "").startswith("sim."), f"{path.name}:{node.lineno}"
