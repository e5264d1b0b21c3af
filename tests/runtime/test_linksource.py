"""Where link classes come from (runtime/linksource.py, issue 29): the topology query, else
``npu-smi info -t topo`` on PATH (a stand-in printing a real capture here), else nobody,
and then a check's link-class items are SKIP, never FAIL; run.json names the source."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import (
    all_released,
    as_real_acl,
)

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.check import criteria_from_preset, run_check
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.run import Run
from ascend_p2p_lab.runtime import BackendInfo, Runtime
from ascend_p2p_lab.runtime.linksource import NPU_SMI, QUERY, UNKNOWN, find_link_source
from ascend_p2p_lab.sim import (
    simulated_acl,
)

DATA = Path(__file__).resolve().parents[1] / "data"
CAPTURE = DATA / "npu-smi-topo-910b3-8npu.txt"


def older_cann(preset: str = "atlas800t-a2") -> tuple[Runtime, object]:
    """A pyACL double without the newer calls (no get_devices_topo), dressed as CANN's."""
    sim = simulated_acl(preset, api_level="old")
    acl = SimpleNamespace(
        rt=sim.rt,
        util=sim.util,
        init=sim.init,
        finalize=sim.finalize,
        get_soc_name=sim.get_soc_name,
        get_version=sim.get_version,
        get_recent_err_msg=sim.get_recent_err_msg,
    )
    return Runtime(acl, BackendInfo("acl", None, None)), sim


def stand_in_npu_smi(folder: Path, body: str) -> Path:
    """An ``npu-smi`` script in folder running body (a shell line)."""
    exe = folder / "npu-smi"
    exe.write_text(f"#!/bin/sh\n{body}\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


@pytest.fixture
def path_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    def put(body: str) -> Path:
        exe = stand_in_npu_smi(tmp_path, body)
        monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
        return exe

    return put


def test_check_on_older_cann_takes_the_classes_from_npu_smi(path_with, tmp_path) -> None:
    exe = path_with(f"[ \"$*\" = 'info -t topo' ] && cat '{CAPTURE}'")
    rt, sim = older_cann()
    criteria = criteria_from_preset("atlas800t-a2", fraction=0.5)
    with rt.open():
        assert not rt.has("get_devices_topo")
        source = rt.link_source()
        assert source.kind == NPU_SMI and str(exe) in source.describe()
        assert rt.link_class(0, 7) == "HCCS"
        result = run_check(rt, criteria, devices=[0, 1])
        links = result.items[result.items["kind"] == "link_class"]
        assert len(links) == 2 and set(links["status"]) == {"PASS"}
        frame = sweep(rt, pairs=[(0, 1)], sizes="1MiB", samples=2)
        Run.of(frame).save(tmp_path / "run")
    meta = json.loads((tmp_path / "run" / "run.json").read_text())
    assert (
        "npu-smi info -t topo" in meta["link_classes_from"]
        and str(exe) in meta["link_classes_from"]
    )
    assert frame.meta.link_classes_from == meta["link_classes_from"]
    assert sim.simulator.ledger_is_empty()


def test_without_any_source_link_items_are_skip_not_fail(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no npu-smi anywhere
    rt, sim = older_cann()
    with rt.open():
        assert rt.link_source().kind == UNKNOWN and rt.link_class(0, 1) == "NA"
        result = run_check(rt, criteria_from_preset("atlas800t-a2", fraction=0.5), devices=[0, 1])
    links = result.items[result.items["kind"] == "link_class"]
    assert set(links["status"]) == {"SKIP"} and "FAIL" not in set(result.items["status"])
    assert links["reason"].str.contains("no link class reported").all()
    assert sim.simulator.ledger_is_empty()


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("sleep 5", "did not answer"),
        ("echo 'npu-smi: no device' >&2; exit 3", "exited 3"),
        ("echo 'This device does not support querying topo.'", "no topology we read"),
    ],
)
def test_an_npu_smi_that_fails_is_no_source_and_says_why(path_with, body, why) -> None:
    exe = path_with(body)
    rt, _ = older_cann()
    with rt.open():
        # 1 s for the npu-smi that hangs; the others get a loaded machine's start-up time
        found = find_link_source(rt, timeout=1.0 if body == "sleep 5" else 15.0)
    assert found.kind == UNKNOWN and why in found.describe() and str(exe) in found.describe()


def test_the_query_comes_before_npu_smi(path_with) -> None:
    path_with("echo should not run; exit 9")
    sim = simulated_acl("atlas800t-a3")
    acl = SimpleNamespace(
        rt=sim.rt,
        util=sim.util,
        init=sim.init,
        finalize=sim.finalize,
        get_soc_name=sim.get_soc_name,
        get_version=sim.get_version,
        get_recent_err_msg=sim.get_recent_err_msg,
    )
    with Runtime(acl, BackendInfo("acl", None, None)).open() as rt:
        assert rt.link_source().kind == QUERY and rt.link_class(0, 1) == "SIO"


def test_the_simulator_names_its_own_server() -> None:
    with open_runtime("sim", "atlas800t-a3") as rt:
        assert rt.describe()["link_classes_from"] == "the simulated server atlas800t-a3"


# ---------------------------------------------------------------------- links and status
def test_link_class_from_get_devices_topo() -> None:
    sim = simulated_acl("atlas800t-a3")
    with Runtime(as_real_acl(sim), BackendInfo("acl", None, None)).open() as rt:
        assert rt.topology is None and not rt.simulated
        assert rt.link_class(0, 1) == "SIO"
        assert rt.link_class(0, 2) == "HCCS_SW"
        assert rt.link_class(4, 4) == "X"
        assert sim.call_counts["rt.get_devices_topo"] == 2
    old = simulated_acl("atlas800t-a3", api_level="old")
    with Runtime(as_real_acl(old), BackendInfo("acl", None, None)).open() as rt:
        assert not rt.has("get_devices_topo")
        assert rt.link_class(0, 1) == "NA"
    assert all_released(sim) and all_released(old)
