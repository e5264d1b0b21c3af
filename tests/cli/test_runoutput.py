"""What the commands that measure do around their run (``cli/runoutput.py``): output
paths checked before any device work (a folder holding a run is refused unless
``--overwrite``, and bad input then loses nothing), the run kept when a sweep fails
part-way, and the JSON's failures, exit status and points not reached agreeing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import (
    CLI_QUICK,
    run_cli,
)

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.measure import (
    execute,
)
from ascend_p2p_lab.run import Run
from ascend_p2p_lab.sim import LIVE


def cells(run, direction="uni", value="bandwidth_GBps"):
    part = run[
        (run["direction"] == direction)
        & run[value].notna()
        & run["src"].notna()
        & run["dst"].notna()
    ]
    return {(int(s), int(d)): float(v) for s, d, v in zip(part["src"], part["dst"], part[value])}


def test_json_failures_and_exit_status_agree(capsys, tmp_path: Path) -> None:
    faults = tmp_path / "faulty.toml"
    src = Path(__file__).resolve().parents[2] / "ascend_p2p_lab/topology/presets"
    text = (src / "atlas800t-a2.toml").read_text()
    faults.write_text(
        text + '\n[[fault]]\nkind = "error"\ncall = "rt.memcpy_async"\n'
        "link = [2, 3]\ncode = 507013\n"
    )
    code, out, _ = run_cli(
        capsys,
        "sweep",
        "--backend",
        "sim",
        "--topology",
        str(faults),
        "--pairs",
        "2-3,3-2",
        "--sizes",
        "1MiB",
        "--samples",
        "1",
        "--no-progress",
        "--format",
        "json",
    )
    data = json.loads(out)
    assert code == 1 == data["exit_status"]
    assert data["failures"][0]["code"] == 507013 and data["failures"][0]["kind"] == "runtime"
    cells = data["matrices"][0]
    assert cells["matrix"][2][3] is None and cells["reasons"][2][3].startswith("runtime")
    assert cells["matrix"][3][2] > 0


def test_a_run_that_stops_early_counts_the_points_it_never_reached(
    capsys, tmp_path, monkeypatch
) -> None:
    """3 blocks x 2 sizes; the second block stops the sweep (an error no row can carry):
    2 points measured, 4 never reached, and the summary and the JSON say so."""

    started: list[str] = []

    def stopping(ctx, test, fn=execute.measure_test):
        started.append(test.key)
        if len(started) == 2:
            raise RuntimeError("the peer state could not be restored")
        return fn(ctx, test)

    monkeypatch.setattr(execute, "measure_test", stopping)
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
        str(tmp_path / "run"),
    ]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "4 of 6 points not reached" in out
    meta = Run.load(tmp_path / "run").frame().attrs["run"]
    assert (meta["points"], meta["points_not_reached"]) == (6, 4)
    started.clear()
    assert main([*argv[:-2], "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["points_not_reached"] == 4


# --------------------------------------------------------------------- run folders
def test_sweep_refuses_a_folder_holding_a_run_unless_overwrite(
    capsys, tmp_path, planned_report
) -> None:
    """The report's figures (planned, written empty) go with the run --overwrite replaces."""
    out = tmp_path / "r"
    base = ["sweep", "--backend", "sim", "--pairs", "0-1", *CLI_QUICK, "--out", str(out)]
    assert run_cli(capsys, *base)[0] == 0
    assert run_cli(capsys, "report", str(out))[0] == 0
    figures = sorted(p.name for p in out.glob("*.png"))
    assert figures and (out / "summary.csv").is_file()
    first_id = json.loads((out / "run.json").read_text())["run_id"]
    code, _, err = run_cli(capsys, *base)
    assert code == 2 and "holds a run already; pass --overwrite" in err
    assert json.loads((out / "run.json").read_text())["run_id"] == first_id  # untouched
    (out / "notes.txt").write_text("mine")
    assert run_cli(capsys, *base, "--overwrite")[0] == 0
    assert json.loads((out / "run.json").read_text())["run_id"] != first_id
    assert not list(out.glob("*.png")) and not (out / "summary.csv").exists()
    assert (out / "notes.txt").read_text() == "mine"  # not ours: kept


def test_overwrite_with_bad_input_loses_nothing(capsys, tmp_path) -> None:
    out = tmp_path / "r"
    assert (
        run_cli(
            capsys, "sweep", "--backend", "sim", "--pairs", "0-1", *CLI_QUICK, "--out", str(out)
        )[0]
        == 0
    )
    before = (out / "run.json").read_text()
    code, _, err = run_cli(
        capsys, "sweep", "--backend", "sim", "--sizes", "512GiB", "--out", str(out), "--overwrite"
    )
    assert code == 2 and "needs" in err and (out / "run.json").read_text() == before


@pytest.mark.keeps_ledger
def test_the_command_line_reports_a_failed_sweep_and_keeps_its_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:

    topo = tmp_path / "a2x4.toml"
    from ascend_p2p_lab.topology.presets import read_packaged

    preset_text = read_packaged("atlas800t-a2.toml")
    topo.write_text(
        preset_text + '\n[[fault]]\nkind = "error"\n'
        'call = "rt.device_disable_peer_access"\ncode = 207006\n'
    )
    before = list(LIVE)  # strong references: no id of theirs can be reused meanwhile
    code = main(
        [
            "sweep",
            "--backend",
            "sim",
            "--topology",
            str(topo),
            "--pairs",
            "0-1,2-3",
            "--sizes",
            "4KiB",
            "--samples",
            "1",
            "--no-progress",
            "--out",
            str(tmp_path / "run"),
        ]
    )
    captured = capsys.readouterr()
    out, err = captured.out, captured.err.strip().splitlines()
    assert code == 1 and "Traceback" not in "".join(err)
    # the rows measured before the failure are summarized and saved, then teardown is told
    assert (
        "FAILED: the run stopped early: PeerRestoreError: cannot restore peer access "
        "after the test: acl.rt.device_disable_peer_access(" in out
    )
    assert f"saved to {tmp_path / 'run'}" in out
    assert len(err) == 1 and err[0].startswith(
        "ascend-p2p-lab: teardown failed after the results above: "
        "acl.rt.device_disable_peer_access("
    )
    assert len(Run.load(tmp_path / "run").frame()) == 1
    made = [sim for sim in LIVE if not any(sim is old for old in before)]
    ledgers = [sim.simulator.ledger() for sim in made]
    # the command's runtime was reset and finalized
    assert made and all(not led["initialized"] and not led["devices_set"] for led in ledgers)


def test_finish_saves_emits_and_appends_the_run(tmp_path: Path) -> None:
    """finish: the run saved into --out, handed to ``emit`` with the output of --format and
    the folder, its points appended to the history under the command; emit's status back."""
    import argparse

    from ascend_p2p_lab.cli.runoutput import finish
    from ascend_p2p_lab.history import HistoryStore, run_records
    from ascend_p2p_lab.measure import sweep
    from ascend_p2p_lab.runtime import open_runtime

    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(rt, pairs="0-1", sizes="1MiB", samples=1, progress=False)
    args = argparse.Namespace(out=tmp_path / "r", format="json")
    store = HistoryStore(tmp_path / "h.db")
    emitted = []

    def emit(r, out, saved) -> int:
        emitted.append((r, out, saved))
        return 7

    assert finish(run, args, store, "run", emit) == 7
    assert emitted == [(run, "json", args.out)]
    assert Run.load(args.out).equals(run)
    history = store.read()
    assert len(history) == len(run_records(run)) and set(history["command"]) == {"run"}
