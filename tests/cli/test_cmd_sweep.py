"""``ascend-p2p-lab sweep`` (``cli/cmd_sweep.py``): its matrices (rows are sources), its
JSON, devices and latency sweeps, groups and card matrices, host patterns, a run across
processes, and resuming from a checkpoint.

Fixtures are asymmetric (one direction degraded, the other not), so a swapped row and
column cannot pass.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import (
    _count_blocks,
    run_cli,
    run_json,
)

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.measure import (
    sweep,
)
from ascend_p2p_lab.run import Run

# ------------------------------------------------------------------ matrices and JSON
SIM_A2 = ("--backend", "sim", "--preset", "atlas800t-a2")


def _cli_2(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    from ascend_p2p_lab.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ damaged run folders
@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory):

    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(rt, pairs="0-1,1-0", sizes="4KiB,64KiB", samples=1, progress=False)
    return Run.of(run).save(tmp_path_factory.mktemp("runs") / "run")


A2, A3 = "atlas800t-a2", "atlas800t-a3"


PRESET = "atlas800t-a2"


def test_sweep_writes_a_run_and_report_reads_it(capsys, tmp_path, planned_report) -> None:
    """A sweep's run folder, read back by report (its figures planned, not drawn: a
    sweep's real report is tests/acceptance/test_seams.py's)."""
    out_dir = tmp_path / "run"
    code, out, _ = run_cli(
        capsys,
        "sweep",
        "--backend",
        "sim",
        "--pairs",
        "0-1,1-0",
        "--sizes",
        "4KiB:64KiB",
        "--samples",
        "2",
        "--no-progress",
        "--out",
        str(out_dir),
    )
    assert code == 0 and "at 64 KiB" in out and "HCCS" in out
    run = Run.load(out_dir).frame()
    assert len(run) == 2 * 5 * 2
    code, out, _ = run_cli(capsys, "report", str(out_dir), "--out", str(tmp_path / "rep"))
    assert code == 0 and (tmp_path / "rep" / "summary.csv").is_file()


def test_sweep_prints_the_matrix_rows_as_sources(capsys) -> None:
    code, out, _ = run_cli(
        capsys,
        "sweep",
        *SIM_A2,
        "--pairs",
        "0-1,2-0",
        "--sizes",
        "16MiB",
        "--samples",
        "2",
        "--no-progress",
    )
    assert code == 0
    grid = out.split("P2P bandwidth (GB/s) at 16 MiB, one direction at a time")[1]
    rows = {ln.split()[0]: ln.split()[1:] for ln in grid.splitlines()[2:10]}
    # 0 -> 1 measured, 1 -> 0 not (n/m: the emptycells tag the figures print too)
    assert float(rows["2"][0]) > 20 and rows["0"][2] == "n/m" and rows["0"][0] == "—"
    assert float(rows["0"][1]) > 20 and rows["1"][0] == "n/m"
    assert "not saved (use --out DIR" in out


def test_sweep_and_report_json_have_the_documented_keys(capsys, tmp_path: Path) -> None:
    out_dir = tmp_path / "run"
    code, out, err = run_cli(
        capsys,
        "sweep",
        *SIM_A2,
        "--pairs",
        "1-0",
        "--sizes",
        "64KiB,16MiB",
        "--samples",
        "2",
        "--warmup",
        "0",
        "--min-sample-ms",
        "0.25",
        "--no-progress",
        "--format",
        "json",
        "--out",
        str(out_dir),
    )
    assert code == 0
    data = json.loads(out)  # stdout is the JSON and nothing else
    assert {"run_id", "device_count", "matrices", "exit_status", "failures"} <= set(data)
    first = data["matrices"][0]
    assert {
        "title",
        "value",
        "unit",
        "pattern",
        "direction",
        "peer",
        "size_bytes",
        "matrix",
    } <= set(first)
    assert first["size_bytes"] == 16 << 20 and first["matrix"][1][0] > 20
    assert first["matrix"][0][1] is None and first["kinds"][0][1] == "not_measured"
    params = Run.load(out_dir).frame().attrs["run"]["params"]
    assert params["warmup"] == 0 and params["min_sample_us"] == 250.0
    code, out, err = run_cli(capsys, "report", str(out_dir), "--format", "json")
    assert code == 0 and json.loads(out)["run_id"] == data["run_id"]
    assert "figures:" in err and (out_dir / "summary.csv").exists()


def test_devices_and_a_latency_sweep_of_four_bytes(capsys, tmp_path: Path) -> None:
    code, out, _ = run_cli(
        capsys,
        "sweep",
        "--backend",
        "sim",
        "--preset",
        "atlas800-9000",
        "--patterns",
        "latency",
        "--devices",
        "0,1,4",
        "--samples",
        "1",
        "--no-progress",
        "--out",
        str(tmp_path / "lat"),
    )
    assert code == 0
    run = Run.load(tmp_path / "lat").frame()
    assert set(run["size_bytes"]) == {4}  # the latency pattern alone: one 4-byte copy
    assert set(zip(run["src"], run["dst"])) == {
        (a, b) for a in (0, 1, 4) for b in (0, 1, 4) if a != b
    }
    table = out.split("latency per copy at 4 B")[1].split("\n\n")[0]
    hccs = next(ln.split() for ln in table.splitlines() if " HCCS " in ln)
    sys_ = next(ln.split() for ln in table.splitlines() if " SYS " in ln)
    assert hccs[3] == "2" and sys_[3] == "4"  # 0<->1 over HCCS; 0,1 <-> 4 across sockets
    assert float(hccs[4]) < float(sys_[4])
    code, _, err = run_cli(
        capsys, "sweep", "--backend", "sim", "--devices", "0-1", "--pairs", "0-2"
    )
    assert code == 2 and "pairs 0-2 use devices outside --devices 0,1" in err


# ---------------------------------------------------------------- item 13: devices as lists
def test_json_values_of_group_pairs_give_their_devices_as_lists(capsys):
    code, data = run_json(
        capsys,
        [
            "sweep",
            "--backend",
            "sim",
            "--preset",
            "atlas800t-a3",
            "--groups",
            "0,1:2,3;4:6,7",
            "--sizes",
            "64MiB",
            "--samples",
            "2",
            "--no-progress",
            "--format",
            "json",
        ],
    )
    assert code == 0
    got = {
        (tuple(v["senders"]), tuple(v["receivers"]))
        for v in data["values"]
        if v["pattern"] == "group"
    }
    assert got == {((0, 1), (2, 3)), ((4,), (6, 7))}


def test_sweep_processes_on_the_command_line(capsys: pytest.CaptureFixture, tmp_path: Path) -> None:
    import json

    code, out, _ = _cli_2(
        capsys,
        "sweep",
        "--backend",
        "sim",
        "--preset",
        "atlas800t-a2",
        "--pairs",
        "0-1",
        "--sizes",
        "1MiB",
        "--samples",
        "2",
        "--processes",
        "--format",
        "json",
        "--out",
        str(tmp_path / "r"),
    )
    assert code == 0
    data = json.loads(out)
    assert {(r["initiator"], r["link"]) for r in data["process_modes"]} == {
        ("dst", "HCCS"),
        ("src", "HCCS"),
    }
    assert all(abs(r["ratio"] - 1) < 0.05 for r in data["process_modes"])
    assert set(Run.load(tmp_path / "r").frame()["process_mode"]) == {"in_process", "ipc"}
    code, out, _ = _cli_2(
        capsys,
        "sweep",
        "--backend",
        "sim",
        "--pairs",
        "0-1",
        "--sizes",
        "1MiB",
        "--samples",
        "2",
        "--processes",
        "--no-progress",
    )
    assert code == 0 and "across processes (IPC) / in one process" in out


@pytest.mark.parametrize(
    "extra",
    [
        ["--direction", "bi"],
        ["--peer", "off"],
        ["--patterns", "local"],
        ["--checkpoint", "ck.json"],
    ],
)
def test_sweep_processes_refuses_options_with_exit_2(
    capsys: pytest.CaptureFixture, extra: list[str]
) -> None:
    code, _, err = _cli_2(
        capsys, "sweep", "--backend", "sim", "--pairs", "0-1", "--processes", *extra
    )
    assert code == 2 and "--processes" in err and len(err.strip().splitlines()) == 1


def test_the_command_resumes_into_its_own_run_and_then_removes_the_checkpoint(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same interrupted sweep rerun with the same --checkpoint and --out is a resume,
    not an overwrite: it says so, saves the whole run and removes the checkpoint; another
    run in --out is still refused without --overwrite."""
    from ascend_p2p_lab.cli import main

    ckpt, out = tmp_path / "sweep.ckpt", tmp_path / "run"
    argv = [
        "sweep",
        "--backend",
        "sim",
        "--pairs",
        "0-1,1-0,2-3",
        "--sizes",
        "4KiB,64KiB",
        "--samples",
        "1",
        "--no-progress",
        "--out",
        str(out),
        "--checkpoint",
        str(ckpt),
    ]
    _count_blocks(monkeypatch, stop_after=1)  # Ctrl-C as the second block starts
    assert main(argv) == 130
    first_id = json.loads((out / "run.json").read_text())["run_id"]
    capsys.readouterr()
    monkeypatch.undo()
    code = main(argv)
    stdout, err = capsys.readouterr()
    assert code == 0, err
    assert "resumed 1 of 3 blocks from the checkpoint" in stdout
    saved = Run.load(out).frame()
    assert len(saved) == 3 * 2 and first_id in set(saved["run_id"])
    assert not ckpt.exists()
    other = [a if a != str(ckpt) else str(tmp_path / "other.ckpt") for a in argv]
    assert main(other) == 2  # a fresh checkpoint does not continue the run in --out
    assert "holds a run already" in capsys.readouterr().err


def test_group_values_in_json_and_table_one_per_group_pair(capsys):
    """Issue 20 item 1: sweep --groups shows each group pair's value (JSON and table)."""
    args = [
        "sweep",
        "--preset",
        "atlas800t-a3",
        "--groups",
        "0,1:2,3;4,5:6,7",
        "--sizes",
        "16MiB",
        "--samples",
        "2",
        "--no-progress",
    ]
    assert main([*args, "--format", "json"]) == 0
    values = json.loads(capsys.readouterr().out)["values"]
    assert [(v["pattern"], v["what"]) for v in values] == [
        ("group", "0,1->2,3"),
        ("group", "4,5->6,7"),
    ]
    assert all(v["median_GBps"] > 100 and v["nominal_GBps"] == 329.0 for v in values)  # card budget
    assert main(args) == 0
    table = capsys.readouterr().out
    assert "0,1->2,3" in table and "4,5->6,7" in table


# ------------------------------------------------------------------ command line
def test_cli_sweep_measures_groups_and_prints_the_card_matrix(capsys) -> None:
    code = main(
        [
            "sweep",
            "--preset",
            A3,
            "--devices",
            "0-3",
            "--patterns",
            "card",
            "--sizes",
            "16MiB",
            "--samples",
            "1",
            "--no-progress",
            "--format",
            "json",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    (m,) = out["matrices"]
    assert m["pattern"] == "card" and m["cards"] == [[0, 1], [2, 3]]
    assert m["matrix"][0][1] > 0 and m["matrix"][1][0] > 0 and m["matrix"][0][0] is None
    code = main(
        [
            "sweep",
            "--preset",
            A2,
            "--groups",
            "0,1:2,3",
            "--sizes",
            "16MiB",
            "--samples",
            "1",
            "--no-progress",
        ]
    )
    text = capsys.readouterr().out
    assert code == 0 and "group" in text and "112.0" in text  # 4 HCCS links' nominal


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--groups", "0,1:1,2"], "share device 1"),
        (["--patterns", "group"], "needs groups"),
        (["--groups", "0:1", "--patterns", "pair"], "add group to patterns"),
    ],
)
def test_cli_refuses_bad_groups_with_status_2(argv: list[str], message: str, capsys) -> None:
    code = main(["sweep", "--preset", A2, "--sizes", "1MiB", "--no-progress", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err
    assert len([line for line in err.splitlines() if line.startswith("error")]) <= 1


def test_the_cli_passes_host_patterns_through(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    status = main(
        [
            "sweep",
            "--preset",
            PRESET,
            "--patterns",
            "h2d,d2h",
            "--devices",
            "1",
            "--sizes",
            "1MiB",
            "--samples",
            "2",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert status == 0, capsys.readouterr()
    run = Run.load(out).frame()
    assert set(run["pattern"]) == {"h2d", "d2h"}
    assert set(run["dst"].dropna()) == {1} and set(run["src"].dropna()) == {1}


# ------------------------------------------------------------------ the A3's die links
SIM_A3 = ("--backend", "sim", "--preset", "atlas800t-a3")


def test_sweep_die_link_both_keeps_each_split_apart(tmp_path, capsys) -> None:
    out = tmp_path / "dual"
    code = main(
        [
            "sweep", *SIM_A3, "--pairs", "7-6", "--die-link", "both", "--die-split", "0.5,0.6",
            "--sizes", "256MiB", "--samples", "1", "--no-progress", "--out", str(out),
        ]
    )  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0
    assert "over die link both, SIO's share 0.5" in text and "SIO's share 0.6" in text
    rows = Run.load(out).frame()
    assert sorted(rows["die_split"]) == [0.5, 0.6] and set(rows["die_link"]) == {"both"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--preset", "atlas800t-a2", "--die-link", "hccs"), "server atlas800t-a2 has no choice"),
        (("--preset", "atlas800t-a3", "--pairs", "6-8", "--die-link", "sio"), "pair 6-8 is not"),
        (("--preset", "atlas800t-a3", "--die-link", "sio", "--direction", "bi"), "one way"),
        (("--preset", "atlas800t-a3", "--die-link", "both", "--die-split", "1.2"), "(0, 1)"),
        (("--preset", "atlas800t-a3", "--die-link", "hccs", "--processes"), "--processes"),
    ],
)
def test_sweep_die_link_refusals_are_one_line_exit_2(argv, message, capsys) -> None:
    code = main(["sweep", "--backend", "sim", *argv, "--sizes", "1MiB", "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and message in err[-1] and "Traceback" not in "\n".join(err)
