"""``ascend-p2p-lab demo`` (``cli/cmd_demo.py``): an earlier demo replaced, a backend taken."""

from __future__ import annotations

import json

from helpers import run_cli


def test_demo_replaces_an_earlier_demo_and_takes_a_backend(
    capsys, tmp_path, planned_report
) -> None:
    out = tmp_path / "demo"
    argv = [
        "demo",
        "--backend",
        "sim",
        "--preset",
        "atlas300i-duo",
        "--sizes",
        "64KiB",  # one size: the report draws no curves (the replacing is what is tested)
        "--no-progress",
        "--out",
        str(out),
    ]
    code, text, _ = run_cli(capsys, *argv)
    assert code == 0 and "simulated atlas300i-duo" in text
    first = json.loads((out / "run.json").read_text())
    assert first["command"] == "demo"
    manifest = json.loads((out / "report.json").read_text())
    assert manifest["run_id"] == first["run_id"] and "summary.csv" in manifest["files"]
    assert manifest["files"][1:] == planned_report[0]  # the figures as planned, not drawn
    assert run_cli(capsys, *argv)[0] == 0
    assert json.loads((out / "run.json").read_text())["run_id"] != first["run_id"]
