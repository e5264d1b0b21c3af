"""sweep --processes runs in the report (the process-mode figure) and in compare (IPC
against in-process), and the table behind the figure."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ascend_p2p_lab.comparison import compare, split_process_modes
from ascend_p2p_lab.measure.processes import sweep_processes
from ascend_p2p_lab.plots.prepare import process_mode_table
from ascend_p2p_lab.results import load_run, save_run
from ascend_p2p_lab.runtime import open_runtime


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> pd.DataFrame:
    out = tmp_path_factory.mktemp("proc") / "run"
    with open_runtime("sim", "atlas800t-a3") as rt:
        save_run(sweep_processes(rt, pairs=[(0, 1), (0, 2)], sizes="1MiB,8MiB", samples=2),
                 out)
    return load_run(out)


def test_the_saved_run_keeps_both_modes(run: pd.DataFrame) -> None:
    assert set(run["process_mode"]) == {"in_process", "ipc"}
    assert not run["process_mode"].isna().any()


def test_the_table_separates_modes_and_initiators() -> None:
    rows = [dict(pattern="pair", direction="uni", src=s, dst=d, initiator=who, link="HCCS",
                 size_bytes=1 << 20, bandwidth_GBps=gbps, process_mode=mode)
            for s, d, who, mode, gbps in [(0, 1, "dst", "in_process", 10.0),
                                         (0, 2, "dst", "in_process", 30.0),
                                         (0, 1, "dst", "ipc", 12.0),
                                         (0, 1, "src", "ipc", 5.0)]]
    table = process_mode_table(pd.DataFrame(rows))
    got = {(r.process_mode, r.initiator): (r.GBps, r.pairs) for r in table.itertuples()}
    assert set(table["link"]) == {"HCCS"}
    assert got == {("in_process", "dst"): (20.0, 2), ("ipc", "dst"): (12.0, 1),
                   ("ipc", "src"): (5.0, 1)}


def test_report_draws_the_process_modes_figure(run: pd.DataFrame, tmp_path: Path) -> None:
    from ascend_p2p_lab.plots import report

    written = report(run, tmp_path)
    assert tmp_path / "process_modes.png" in written
    # the other figures keep to the in-process rows: the same files as without IPC rows
    inside = report(run[run["process_mode"] == "in_process"], tmp_path / "inside")
    assert {p.name for p in written} - {"process_modes.png"} == {p.name for p in inside}


def test_the_figure_has_a_panel_per_link_class(run: pd.DataFrame) -> None:
    from ascend_p2p_lab.plots import process_modes

    fig = process_modes(run)
    assert sorted(ax.get_title().split(" (")[0] for ax in fig.axes) == ["HCCS_SW", "SIO"]
    with pytest.raises(ValueError, match="give link="):
        import matplotlib.pyplot as plt

        _, ax = plt.subplots()
        process_modes(run, ax=ax)
    assert len(process_modes(run, link="SIO").axes) == 1


def test_compare_sets_ipc_against_in_process(run: pd.DataFrame) -> None:
    cmp = compare(*split_process_modes(run))
    # both links of the A3 die pair (SIO) and across cards (HCCS_SW), pulled and pushed
    assert len(cmp) == 2 * 2 * 2
    assert ((cmp["ratio"] - 1).abs() < 0.05).all() and not cmp["below"].any()


def test_a_run_with_one_mode_cannot_be_split(run: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="both process modes"):
        split_process_modes(run[run["process_mode"] == "in_process"])


def _cli(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    from ascend_p2p_lab.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_sweep_processes_on_the_command_line(capsys: pytest.CaptureFixture,
                                             tmp_path: Path) -> None:
    import json

    code, out, _ = _cli(capsys, "sweep", "--backend", "sim", "--preset", "atlas800t-a2",
                        "--pairs", "0-1", "--sizes", "1MiB", "--samples", "2",
                        "--processes", "--format", "json", "--out", str(tmp_path / "r"))
    assert code == 0
    data = json.loads(out)
    assert {(r["initiator"], r["link"]) for r in data["process_modes"]} == {
        ("dst", "HCCS"), ("src", "HCCS")}
    assert all(abs(r["ratio"] - 1) < 0.05 for r in data["process_modes"])
    assert set(load_run(tmp_path / "r")["process_mode"]) == {"in_process", "ipc"}
    code, out, _ = _cli(capsys, "sweep", "--backend", "sim", "--pairs", "0-1", "--sizes",
                        "1MiB", "--samples", "2", "--processes", "--no-progress")
    assert code == 0 and "across processes (IPC) / in one process" in out


@pytest.mark.parametrize("extra", [["--direction", "bi"], ["--peer", "off"],
                                   ["--patterns", "local"], ["--checkpoint", "ck.json"]])
def test_sweep_processes_refuses_options_with_exit_2(capsys: pytest.CaptureFixture,
                                                     extra: list[str]) -> None:
    code, _, err = _cli(capsys, "sweep", "--backend", "sim", "--pairs", "0-1", "--processes",
                        *extra)
    assert code == 2 and "--processes" in err and len(err.strip().splitlines()) == 1
