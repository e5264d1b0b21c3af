"""Choosing the backend (``runtime/backend.py``): a bad preset from the environment says
it came from there (issue 30 item 18); an unknown preset makes no simulator; a shim acl on
the path is reported as the simulator; auto takes real pyACL when it reports devices and
keeps a session someone else opened."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType

import pytest
from helpers import (
    all_released,
    as_real_acl,
    one_line,
)
from simacl import (
    MIB,
)

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.runtime import ENV_BACKEND, ENV_PRESET, ENV_SEED
from ascend_p2p_lab.sim import (
    LIVE,
    shim_path,
    simulated_acl,
)
from ascend_p2p_lab.topology import (
    TopologyError,
)


def test_a_bad_preset_from_the_environment_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ASCEND_P2P_LAB_PRESET", "atlas-nope")
    assert main(["probe", "--backend", "sim"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown preset 'atlas-nope'" in err[0], err
    assert "from the environment: ASCEND_P2P_LAB_PRESET='atlas-nope'" in err[0]


def test_a_bad_preset_given_on_the_command_line_names_no_environment(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ASCEND_P2P_LAB_PRESET", "atlas800t-a3")  # a good one, not used
    assert main(["probe", "--backend", "sim", "--preset", "atlas-nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown preset 'atlas-nope'" in err[0], err
    assert "environment" not in err[0]


# ---------------------------------------------------------------- presets and topologies
def test_unknown_presets_make_no_simulator() -> None:
    before = list(LIVE)  # strong references: none of them is collected meanwhile
    for name in ("atlas9999", "Atlas800T-A2 ", "../atlas800t-a2"):
        with pytest.raises(TopologyError) as info:
            open_runtime("sim", name)
        assert "unknown preset" in one_line(info.value)
        assert "atlas800t-a2" in str(info.value)  # lists the known ones
    with pytest.raises(ValueError, match="unknown backend"):
        open_runtime("cuda")
    assert [sim for sim in LIVE if not any(sim is old for old in before)] == []


def load_shim(monkeypatch: pytest.MonkeyPatch, preset: str) -> ModuleType:
    """A fresh copy of the shim package, installed as ``acl`` for this test."""
    monkeypatch.setenv(ENV_PRESET, preset)
    spec = importlib.util.spec_from_file_location("acl", shim_path() / "acl" / "__init__.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.delenv(ENV_PRESET)
    monkeypatch.setitem(sys.modules, "acl", module)
    return module


@pytest.mark.parametrize("backend", ["auto", "acl"])
def test_a_shim_acl_on_the_path_is_reported_as_sim(
    backend: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shim = load_shim(monkeypatch, "atlas800t-a3")
    with open_runtime(backend) as rt:
        assert rt.backend == "sim" and rt.simulated
        assert rt.preset == "atlas800t-a3"
        assert rt.acl is shim
        assert rt.device_count == 16
        with rt.device_buffer(1, MIB) as buf:
            rt.write(buf, b"shim")
            assert rt.read(buf, 4) == b"shim"
        assert rt.ledger() is not None
    assert capsys.readouterr().err == ""  # no fallback notice: it is what was asked for
    assert all_released(shim.__simulator__)


def test_auto_takes_real_pyacl_when_it_reports_devices(monkeypatch: pytest.MonkeyPatch) -> None:
    sim = simulated_acl("atlas800t-a2")
    monkeypatch.setitem(sys.modules, "acl", as_real_acl(sim))
    with open_runtime("auto") as rt:
        assert rt.backend == "acl" and not rt.simulated
        assert rt.preset is None and rt.ledger() is None
        assert rt.device_count == 8
    assert all_released(sim)


@pytest.mark.keeps_ledger
def test_auto_probe_keeps_an_acl_session_opened_by_someone_else(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sim = simulated_acl("atlas800t-a2")
    monkeypatch.setitem(sys.modules, "acl", as_real_acl(sim))
    assert sim.init() == 0 and sim.rt.set_device(0) == 0  # the caller's own session
    try:
        with open_runtime("auto") as rt:
            assert rt.backend == "acl"
            assert sim.simulator.ledger()["initialized"]
            # the caller's device is still set
            assert sim.simulator.ledger()["devices_set"].get(0) == 1
        assert sim.simulator.ledger()["initialized"]  # and the runtime did not finalize it on close
    finally:
        if sim.simulator.ledger()["initialized"]:
            sim.rt.reset_device_force(0)
            sim.finalize()


# ------------------------------------------------------------------------------------ helpers
@pytest.fixture(autouse=True)
def _no_backend_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start every test without the backend variables (the root conftest sets some)."""
    for name in (ENV_BACKEND, ENV_PRESET, ENV_SEED):
        monkeypatch.delenv(name, raising=False)
