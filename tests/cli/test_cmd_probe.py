"""The ascend-p2p-lab command line, run in-process through main(argv)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from helpers import run_cli


def test_probe_json_rows_are_sources_and_unprobed_pairs_say_so() -> None:

    from ascend_p2p_lab.cli.cmd_probe import probe_json

    table = pd.DataFrame(
        {
            "src": [0, 1, 1],
            "dst": [1, 0, 2],
            "link": ["HCCS", "HCCS", "SYS"],
            "can_access_peer": [True, False, True],
            "peer_enabled": [False, False, True],
        }
    )
    table.attrs["run"] = {"run_id": "r1"}
    data = probe_json(table, 3)
    acc, enabled, links = (m["matrix"] for m in data["matrices"])
    assert acc == [[None, 1, None], [0, None, 1], [None, None, None]]
    assert enabled[1][2] == 1 and enabled[0][1] == 0 and links[1][2] == "SYS"
    reasons = data["matrices"][0]["reasons"]
    assert reasons[0][2] == "not probed" and reasons[1][2] is None
    assert data["matrices"][0]["kinds"][0][2] == "not_probed" and data["run_id"] == "r1"


DATA = Path(__file__).resolve().parents[1] / "data"


def test_probe_json_has_the_documented_keys(capsys) -> None:
    code, out, _ = run_cli(
        capsys, "probe", "--backend", "sim", "--preset", "atlas300i-duo", "--format", "json"
    )
    assert code == 0
    data = json.loads(out)
    assert {"run_id", "device_count", "matrices", "exit_status", "failures"} <= set(data)
    assert data["backend"] == "sim" and data["preset"] == "atlas300i-duo"
    assert data["device_count"] == 8 and data["labels"][0] == "NPU0" and data["run_id"]
    by_value = {m["value"]: m for m in data["matrices"]}
    assert list(by_value) == ["can_access_peer", "peer_enabled", "link"]
    for m in data["matrices"]:
        assert {"title", "value", "unit", "devices", "matrix", "reasons", "kinds"} <= set(m)
        assert all(
            m["matrix"][i][i] is None and m["reasons"][i][i] == "same device" for i in range(8)
        )
    acc, links = by_value["can_access_peer"]["matrix"], by_value["link"]["matrix"]
    assert acc[0][1] == 1 and acc[0][2] == 0 and links[0][1] == "PIX"
    assert by_value["can_access_peer"]["reasons"][0][2] is None  # a 0 is a value


def test_probe_table_on_a3(capsys) -> None:
    code, out, _ = run_cli(capsys, "probe", "--backend", "sim", "--preset", "atlas800t-a3")
    assert code == 0 and "SIO" in out and "HCCS_SW" in out
    # one naming (pyACL's device ids, as every matrix and figure), npu-smi's explained once
    assert (
        out.count("Phy-ID") == 2
        and ("devices are pyACL device ids 0-15 everywhere; npu-smi names them Phy-ID0 .. Phy-ID15")
        in out
    )
    header = next(line for line in out.splitlines() if line.split()[:2] == ["0", "1"])
    assert header.split() == [str(i) for i in range(16)]


def test_probe_with_an_npu_smi_topology(capsys) -> None:
    code, out, _ = run_cli(
        capsys,
        "probe",
        "--backend",
        "sim",
        "--topology",
        str(DATA / "npu-smi-topo-910b3-8npu.txt"),
        "--format",
        "json",
    )
    assert code == 0
    links = next(m for m in json.loads(out)["matrices"] if m["value"] == "link")
    assert links["matrix"][0][7] == "HCCS"
