"""The ascend-p2p-lab command line, run in-process through main(argv)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.results import load_run

DATA = Path(__file__).parent / "data"


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_presets_lists_every_preset(capsys) -> None:
    code, out, _ = run_cli(capsys, "presets")
    assert code == 0
    for name in ("atlas800-9000", "atlas800t-a2", "atlas800t-a3", "atlas800i-a2-pcie",
                 "atlas300i-duo", "atlas300i-310"):
        assert name in out


def test_probe_json_has_the_documented_keys(capsys) -> None:
    code, out, _ = run_cli(capsys, "probe", "--backend", "sim", "--preset", "atlas300i-duo",
                           "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert {"run_id", "device_count", "matrices", "exit_status", "failures"} <= set(data)
    assert data["backend"] == "sim" and data["preset"] == "atlas300i-duo"
    assert data["device_count"] == 8 and data["labels"][0] == "NPU0" and data["run_id"]
    by_value = {m["value"]: m for m in data["matrices"]}
    assert list(by_value) == ["can_access_peer", "peer_enabled", "link"]
    for m in data["matrices"]:
        assert {"title", "value", "unit", "devices", "matrix", "reasons", "kinds"} <= set(m)
        assert all(m["matrix"][i][i] is None and m["reasons"][i][i] == "same device"
                   for i in range(8))
    acc, links = by_value["can_access_peer"]["matrix"], by_value["link"]["matrix"]
    assert acc[0][1] == 1 and acc[0][2] == 0 and links[0][1] == "PIX"
    assert by_value["can_access_peer"]["reasons"][0][2] is None  # a 0 is a value


def test_probe_json_rows_are_sources_and_unprobed_pairs_say_so() -> None:
    import pandas as pd

    from ascend_p2p_lab.cli.info import probe_json

    table = pd.DataFrame({"src": [0, 1, 1], "dst": [1, 0, 2], "link": ["HCCS", "HCCS", "SYS"],
                          "can_access_peer": [True, False, True],
                          "peer_enabled": [False, False, True]})
    table.attrs["run"] = {"run_id": "r1"}
    data = probe_json(table, 3)
    acc, enabled, links = (m["matrix"] for m in data["matrices"])
    assert acc == [[None, 1, None], [0, None, 1], [None, None, None]]
    assert enabled[1][2] == 1 and enabled[0][1] == 0 and links[1][2] == "SYS"
    reasons = data["matrices"][0]["reasons"]
    assert reasons[0][2] == "not probed" and reasons[1][2] is None
    assert data["matrices"][0]["kinds"][0][2] == "not_probed" and data["run_id"] == "r1"


def test_probe_table_on_a3(capsys) -> None:
    code, out, _ = run_cli(capsys, "probe", "--backend", "sim", "--preset", "atlas800t-a3")
    assert code == 0 and "SIO" in out and "HCCS_SW" in out
    # one naming (pyACL's device ids, as every matrix and figure), npu-smi's explained once
    assert out.count("Phy-ID") == 2 and ("devices are pyACL device ids 0-15 everywhere; "
                                          "npu-smi names them Phy-ID0 .. Phy-ID15") in out
    header = next(line for line in out.splitlines() if line.split()[:2] == ["0", "1"])
    assert header.split() == [str(i) for i in range(16)]


def test_probe_with_an_npu_smi_topology(capsys) -> None:
    code, out, _ = run_cli(capsys, "probe", "--backend", "sim", "--topology",
                           str(DATA / "npu-smi-topo-910b3-8npu.txt"), "--format", "json")
    assert code == 0
    links = next(m for m in json.loads(out)["matrices"] if m["value"] == "link")
    assert links["matrix"][0][7] == "HCCS"


def test_topo_parses_npu_smi_text(capsys) -> None:
    code, out, _ = run_cli(capsys, "topo", str(DATA / "npu-smi-topo-910b3-8npu.txt"),
                           "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["device_count"] == 8 and "can_access_peer" not in data
    assert data["cpu_affinity"][0] == "144-167"


def test_sweep_writes_a_run_and_report_reads_it(capsys, tmp_path) -> None:
    out_dir = tmp_path / "run"
    code, out, _ = run_cli(capsys, "sweep", "--backend", "sim", "--pairs", "0-1,1-0",
                           "--sizes", "4KiB:64KiB", "--samples", "2", "--no-progress",
                           "--out", str(out_dir))
    assert code == 0 and "at 64 KiB" in out and "HCCS" in out
    run = load_run(out_dir)
    assert len(run) == 2 * 5 * 2
    code, out, _ = run_cli(capsys, "report", str(out_dir), "--out", str(tmp_path / "rep"))
    assert code == 0 and (tmp_path / "rep" / "summary.csv").is_file()


@pytest.mark.parametrize("argv, message", [
    (["sweep", "--sizes", "0"], "must be positive"),
    (["sweep", "--sizes", "4KiB:3KiB"], "powers of two"),
    (["sweep", "--pairs", "0-0"], "same device"),
    (["sweep", "--pairs", "0-99"], "out of range"),
    (["sweep", "--samples", "0"], "samples"),
    (["sweep", "--samples", "x"], "invalid int"),
    (["sweep", "--direction", "up"], "invalid choice"),
    (["probe", "--preset", "atlas9999"], "unknown preset"),
    (["probe", "--topology", "/nonexistent/topo.txt"], "no such file"),
    (["topo", "/nonexistent/topo.txt"], "no such file"),
    (["report", "/nonexistent/run"], "not a run folder"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_arguments_give_one_line_and_exit_2(capsys, argv, message) -> None:
    code, _out, err = run_cli(capsys, *argv)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err


def test_malformed_npu_smi_text_is_a_usage_error(capsys, tmp_path) -> None:
    bad = tmp_path / "topo.txt"
    bad.write_text("\t   NPU0       NPU1\nNPU0       X          HCCS\nNPU1       HCCS\n")
    code, _, err = run_cli(capsys, "topo", str(bad))
    assert code == 2 and "line" in err and len(err.strip().splitlines()) == 1


def test_sim_path_gives_a_working_acl_package(tmp_path) -> None:
    path = subprocess.run([sys.executable, "-m", "ascend_p2p_lab.cli", "sim-path"],
                          capture_output=True, text=True, check=True).stdout.strip()
    script = ("import acl; print(acl.init(), acl.rt.get_device_count(), acl.get_soc_name(), "
              "acl.__simulated__); acl.finalize()")
    env = {"PYTHONPATH": path, "ASCEND_P2P_LAB_PRESET": "atlas800t-a3", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert out.strip() == "0 (16, 0) Ascend910_9382 True"


def test_console_script_exits_2_without_traceback() -> None:
    proc = subprocess.run([sys.executable, "-m", "ascend_p2p_lab.cli", "sweep", "--sizes", "-1"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


# ------------------------------------------------------------------ matrices and JSON
SIM_A2 = ("--backend", "sim", "--preset", "atlas800t-a2")


def test_sweep_prints_the_matrix_rows_as_sources(capsys) -> None:
    code, out, _ = run_cli(capsys, "sweep", *SIM_A2, "--pairs", "0-1,2-0", "--sizes", "16MiB",
                           "--samples", "2", "--no-progress")
    assert code == 0
    grid = out.split("P2P bandwidth (GB/s) at 16 MiB, one direction at a time")[1]
    rows = {ln.split()[0]: ln.split()[1:] for ln in grid.splitlines()[2:10]}
    # 0 -> 1 measured, 1 -> 0 not (n/m: the emptycells tag the figures print too)
    assert float(rows["2"][0]) > 20 and rows["0"][2] == "n/m" and rows["0"][0] == "—"
    assert float(rows["0"][1]) > 20 and rows["1"][0] == "n/m"
    assert "not saved (use --out DIR" in out


def test_sweep_and_report_json_have_the_documented_keys(capsys, tmp_path: Path) -> None:
    out_dir = tmp_path / "run"
    code, out, err = run_cli(capsys, "sweep", *SIM_A2, "--pairs", "1-0", "--sizes",
                             "64KiB,16MiB", "--samples", "2", "--warmup", "0",
                             "--min-sample-ms", "0.25", "--no-progress", "--format", "json",
                             "--out", str(out_dir))
    assert code == 0
    data = json.loads(out)  # stdout is the JSON and nothing else
    assert {"run_id", "device_count", "matrices", "exit_status", "failures"} <= set(data)
    first = data["matrices"][0]
    assert {"title", "value", "unit", "pattern", "direction", "peer", "size_bytes",
            "matrix"} <= set(first)
    assert first["size_bytes"] == 16 << 20 and first["matrix"][1][0] > 20
    assert first["matrix"][0][1] is None and first["kinds"][0][1] == "not_measured"
    params = load_run(out_dir).attrs["run"]["params"]
    assert params["warmup"] == 0 and params["min_sample_us"] == 250.0
    code, out, err = run_cli(capsys, "report", str(out_dir), "--format", "json")
    assert code == 0 and json.loads(out)["run_id"] == data["run_id"]
    assert "figures:" in err and (out_dir / "summary.csv").exists()


def test_json_failures_and_exit_status_agree(capsys, tmp_path: Path) -> None:
    faults = tmp_path / "faulty.toml"
    src = Path(__file__).resolve().parents[1] / "ascend_p2p_lab/topology/presets"
    text = (src / "atlas800t-a2.toml").read_text()
    faults.write_text(text + '\n[[fault]]\nkind = "error"\ncall = "rt.memcpy_async"\n'
                             'link = [2, 3]\ncode = 507013\n')
    code, out, _ = run_cli(capsys, "sweep", "--backend", "sim", "--topology", str(faults),
                           "--pairs", "2-3,3-2", "--sizes", "1MiB", "--samples", "1",
                           "--no-progress", "--format", "json")
    data = json.loads(out)
    assert code == 1 == data["exit_status"]
    assert data["failures"][0]["code"] == 507013 and data["failures"][0]["kind"] == "runtime"
    cells = data["matrices"][0]
    assert cells["matrix"][2][3] is None and cells["reasons"][2][3].startswith("runtime")
    assert cells["matrix"][3][2] > 0


def test_devices_and_a_latency_sweep_of_four_bytes(capsys, tmp_path: Path) -> None:
    code, out, _ = run_cli(capsys, "sweep", "--backend", "sim", "--preset", "atlas800-9000",
                           "--patterns", "latency", "--devices", "0,1,4", "--samples", "1",
                           "--no-progress", "--out", str(tmp_path / "lat"))
    assert code == 0
    run = load_run(tmp_path / "lat")
    assert set(run["size_bytes"]) == {4}  # the latency pattern alone: one 4-byte copy
    assert set(zip(run["src"], run["dst"])) == {(a, b) for a in (0, 1, 4) for b in (0, 1, 4)
                                                if a != b}
    table = out.split("latency per copy at 4 B")[1].split("\n\n")[0]
    hccs = next(ln.split() for ln in table.splitlines() if " HCCS " in ln)
    sys_ = next(ln.split() for ln in table.splitlines() if " SYS " in ln)
    assert hccs[3] == "2" and sys_[3] == "4"  # 0<->1 over HCCS; 0,1 <-> 4 across sockets
    assert float(hccs[4]) < float(sys_[4])
    code, _, err = run_cli(capsys, "sweep", "--backend", "sim", "--devices", "0-1",
                           "--pairs", "0-2")
    assert code == 2 and "pairs 0-2 use devices outside --devices 0,1" in err


def test_report_of_an_interrupted_run_is_not_itself_interrupted(capsys, tmp_path,
                                                                monkeypatch) -> None:
    """An interrupted run, reported: exit 1 (an incomplete run), never 130; no "saved to"
    (report saves no run); "1 figure", not "1 figures"; a --format help that reads."""
    out_dir = tmp_path / "run"
    assert run_cli(capsys, "sweep", "--backend", "sim", "--pairs", "0-1", "--sizes", "4KiB",
                   "--samples", "1", "--no-progress", "--out", str(out_dir))[0] == 0
    meta = json.loads((out_dir / "run.json").read_text())
    (out_dir / "run.json").write_text(json.dumps({**meta, "interrupted": True}))
    import ascend_p2p_lab.plots as plots

    def one_figure(run, out, table=None, **_):
        (out / "one.png").write_bytes(b"png")
        return [out / "one.png"]

    monkeypatch.setattr(plots, "report", one_figure)
    code, out, _ = run_cli(capsys, "report", str(out_dir))
    assert code == 1
    assert "interrupted: the rows measured so far are kept" in out
    assert "saved to" not in out and f"read from {out_dir}" in out
    assert "and 1 figure:" in out and "1 figures" not in out
    code, out, _ = run_cli(capsys, "report", str(out_dir), "--format", "json")
    data = json.loads(out)
    assert code == 1 == data["exit_status"] and data["saved_to"] is None
    assert data["read_from"] == str(out_dir)
    from ascend_p2p_lab.cli import build_parser

    report = build_parser()._subparsers._group_actions[0].choices["report"]
    text = next(a.help for a in report._actions if "--format" in a.option_strings)
    assert text.startswith("table (default): the summary and every N x N matrix; json: ")
    assert text.endswith("; the figures are written either way") and "(json" not in text
