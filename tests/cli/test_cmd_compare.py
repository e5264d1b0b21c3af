"""compare: run-vs-run bandwidth ratios, the points below a threshold, the verdict.

The degraded run halves one direction only (0 -> 1; 1 -> 0 stays clean), so a
comparison, a terminal matrix or a heatmap that swaps source and destination cannot pass.

Imported runs are ordinary runs: report, compare and calibrate work on them.

The A2 capture has one cell lowered (2->5 only, not 5->2): compare must name exactly that
cell, against the preset and against the toolkit's own sweep; a twin calibrated from the
capture alone (its matrices and the topology capture) must reproduce the imported numbers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from helpers import (
    GOOD,
    PRESET,
    saved_compare_runs,
)

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.comparison import (
    compare,
)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[pd.DataFrame, Path]]:
    """clean, clean2, degraded, failing, corrupt, other, wider (helpers.saved_compare_runs)."""
    return saved_compare_runs(tmp_path_factory.mktemp("runs"))


def test_against_preset_ratios_are_1_point_by_point(runs, capsys) -> None:
    from ascend_p2p_lab.cli.cmd_compare import _predict

    predicted, _ = _predict(runs["clean"][0], runs["clean"][1], PRESET)
    assert predicted.meta.params == runs["clean"][0].meta.params
    cmp = compare(predicted, runs["clean"][0])
    assert cmp.points["ratio"].to_numpy() == pytest.approx([1.0, 1.0], abs=0.02)


DATA = Path(__file__).resolve().parents[1] / "data" / "vendor"


def test_against_the_preset_bi_cells_are_compared_on_the_total(tmp_path, capsys):
    """The imported run's params plan both directions; a bi cell (a total) lowered in one
    direction only (3 -> 6, not 6 -> 3) is the one bi point below, compared on totals."""
    text = (DATA / "dmi-a2-p2p.txt").read_text()
    head, bi = text.split("Bidirectional Peer to Peer Test")
    rows = bi.splitlines()
    cells = rows[5].split()  # the row of source 3
    assert cells[0] == "3" and cells[7] == "51.0"
    cells[7] = "30.0"  # 3 -> 6 only; 6 -> 3 keeps its 51.0
    rows[5] = "".join(c.ljust(8) for c in cells)
    low = tmp_path / "dmi-bi-3to6.txt"
    low.write_text(head + "Bidirectional Peer to Peer Test" + "\n".join(rows) + "\n")
    assert (
        main(["import", "dmi", str(low), "--size", "256MiB", "--out", str(tmp_path / "run")]) == 0
    )
    plans = json.loads((tmp_path / "run" / "run.json").read_text())["params"]["plans"]
    assert [p["directions"] for p in plans] == [["uni"], ["bi"]]
    capsys.readouterr()
    code = main(
        ["compare", "--against-preset", "atlas800t-a2", "--format", "json", str(tmp_path / "run")]
    )
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert code == 1 and data["points_compared"] == 112 and data["unmatched"] == []
    below = [(p["src"], p["dst"], p["direction"], p["value"]) for p in data["below"]]
    assert below == [(3, 6, "bi", "bidir_total_GBps")]
    assert data["below"][0]["run_GBps"] == 30.0 and data["below"][0]["baseline_GBps"] > 45
    assert "(seed 0, the simulator's: the run has none)" in captured.err


# ------------------------------------------------------------------ issue 30 (its last items)
_NOTE = "every ratio is 1 by construction"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cmp") / "base"
    assert (
        main(
            [
                "sweep",
                "--backend",
                "sim",
                "--pairs",
                "0-1,1-0",
                "--sizes",
                "1MiB",
                "--samples",
                "2",
                "--no-progress",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    return out


def test_one_folder_twice_is_said_to_be_one_run(base, capsys) -> None:
    capsys.readouterr()
    assert main(["compare", str(base), str(base)]) == 0
    err = capsys.readouterr().err
    assert "BASELINE and RUN are one run (the folder" in err and _NOTE in err


def test_a_copy_of_the_folder_is_the_same_run_by_its_id(base, tmp_path, capsys) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(base, copy)
    capsys.readouterr()
    assert main(["compare", str(base), str(copy), "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert "run id" in captured.err and _NOTE in captured.err
    assert _NOTE not in captured.out  # the JSON stays JSON


def test_two_runs_are_compared_without_the_note(base, tmp_path, capsys) -> None:
    other = tmp_path / "other"
    assert (
        main(
            [
                "sweep",
                "--backend",
                "sim",
                "--pairs",
                "0-1,1-0",
                "--sizes",
                "1MiB",
                "--samples",
                "2",
                "--no-progress",
                "--seed",
                "5",
                "--out",
                str(other),
            ]
        )
        == 0
    )
    capsys.readouterr()
    main(["compare", str(base), str(other)])
    assert _NOTE not in capsys.readouterr().err


def _cli(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ----------------------------------------------------------------------- the command
def test_cli_exits_1_naming_exactly_the_degraded_direction(runs, capsys) -> None:
    code, out, _ = _cli(capsys, "compare", runs["clean"][1], runs["degraded"][1])
    assert code == 1
    listed = [line.split() for line in out.splitlines() if " -> " in line and "GB/s" in line]
    assert [(w[0], w[2]) for w in listed] == [("0", "1")]
    assert "BELOW: 1 of 2 points below 0.9 x baseline" in out
    grid = {
        line.split()[0]: line.split()[1:]
        for line in out.splitlines()
        if line[:1].isdigit() and len(line.split()) == 9
    }
    assert grid["0"][1].endswith("*") and not grid["1"][0].endswith("*")
    assert float(grid["0"][1][:-1]) == pytest.approx(0.5, abs=0.05)
    assert float(grid["1"][0]) == pytest.approx(1.0, abs=0.05)


def test_cli_exits_0_for_clean_against_clean(runs, capsys) -> None:
    code, out, _ = _cli(capsys, "compare", runs["clean"][1], runs["clean2"][1])
    assert code == 0
    assert "OK: all 2 points at or above 0.9 x baseline" in out


def test_cli_json_parses_and_names_the_link(runs, capsys) -> None:
    code, out, _ = _cli(
        capsys, "compare", runs["clean"][1], runs["degraded"][1], "--format", "json"
    )
    assert code == 1
    data = json.loads(out)
    assert [(p["src"], p["dst"], p["direction"], p["peer"]) for p in data["below"]] == [
        (0, 1, "uni", "on")
    ]
    assert data["pairs_compared"] == 2 and data["threshold"] == 0.9


def test_cli_lost_point_exits_1(runs, capsys) -> None:
    code, out, _ = _cli(capsys, "compare", runs["clean"][1], runs["failing"][1])
    assert code == 1
    assert "0 -> 1  uni  peer on (p2p)  16 MiB  lost (runtime)" in out


@pytest.mark.parametrize("threshold", ["0", "-1", "2", "nan", "inf", "abc"])
def test_cli_bad_threshold_exits_2(runs, capsys, threshold) -> None:
    code, out, err = _cli(
        capsys, "compare", runs["clean"][1], runs["degraded"][1], f"--threshold={threshold}"
    )
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "threshold" in err


def test_cli_bad_input_exits_2(runs, capsys, tmp_path) -> None:
    clean, other = runs["clean"][1], runs["other"][1]
    assert _cli(capsys, "compare", clean, tmp_path / "nope")[0] == 2
    code, _, err = _cli(capsys, "compare", clean, other)
    assert code == 2 and "no measured point in common" in err
    assert _cli(capsys, "compare", clean)[0] == 2
    assert _cli(capsys, "compare", clean, clean, "--against-preset", PRESET)[0] == 2
    (tmp_path / "file").write_text("x")
    assert _cli(capsys, "compare", clean, clean, "--out", tmp_path / "file")[0] == 2


def test_cli_checks_its_output_folder_and_preset_before_any_work(runs, capsys, tmp_path) -> None:
    (tmp_path / "file").write_text("x")  # a folder inside a file can never be written
    code, out, err = _cli(
        capsys,
        "compare",
        runs["clean"][1],
        runs["degraded"][1],
        "--out",
        tmp_path / "file" / "figs",
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--out" in err and "cannot write there" in err
    code, out, err = _cli(capsys, "compare", "--against-preset", "nosuch", runs["clean"][1])
    assert code == 2 and out == "" and err.count("\n") == 1  # no "simulating ..." first
    assert "--against-preset nosuch: no such preset" in err


def test_cli_writes_the_ratio_heatmap(runs, capsys, tmp_path) -> None:
    pytest.importorskip("matplotlib")
    code, out, _ = _cli(
        capsys, "compare", runs["clean"][1], runs["degraded"][1], "--out", tmp_path / "figs"
    )
    assert code == 1
    png = tmp_path / "figs" / "ratio_uni_on_p2p.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and str(png) in out


def test_cli_against_the_same_preset_gives_ratios_near_1(runs, capsys) -> None:
    code, out, err = _cli(
        capsys, "compare", "--against-preset", PRESET, runs["clean"][1], "--format", "json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["run_id"] == runs["clean"][0].meta.run_id
    assert data["baseline_source"] == f"simulated {PRESET}"
    assert data["points_compared"] == 2 and data["below"] == []
    # the prediction measured the run's plan: below lists the degraded direction only
    code, out, _ = _cli(
        capsys, "compare", "--against-preset", PRESET, runs["degraded"][1], "--format", "json"
    )
    data = json.loads(out)
    assert code == 1 and [(p["src"], p["dst"]) for p in data["below"]] == [(0, 1)]
    assert data["below"][0]["ratio"] == pytest.approx(0.5, abs=0.05)


def test_cli_lists_points_one_run_lacks(runs, capsys) -> None:
    code, out, _ = _cli(capsys, "compare", runs["clean"][1], runs["wider"][1])
    assert code == 0
    assert "2 -> 3  uni  peer on (p2p)  16 MiB  the baseline did not plan this point" in out
    assert "(1 points not compared, above)" in out


def test_compare_against_a_preset_reruns_a_test_file(tmp_path, capsys):
    """compare --against-preset re-runs a run's tests from its run.json params."""
    path = tmp_path / "t.toml"
    path.write_text(GOOD)
    out = tmp_path / "run"
    assert (
        main(
            [
                "run",
                str(path),
                "--preset",
                "atlas800t-a2",
                "--samples",
                "2",
                "--sizes",
                "4MiB",
                "--no-progress",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["compare", "--against-preset", "atlas800t-a2", str(out)]) == 0
    text = capsys.readouterr().out
    assert "4 points compared" in text, text  # three transfers and the aggregate


def test_compare_names_its_server_and_what_it_judges_against(runs, capsys) -> None:
    """The table's first line and the JSON's ``server`` and ``criteria_source`` (issue 37)."""
    base, run = runs["clean"][1], runs["degraded"][1]
    main(["compare", str(base), str(run), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert data["server"] == f"{PRESET} (preset)"
    assert data["criteria_source"] == f"baseline {base} x threshold 0.9"
    main(["compare", str(base), str(run), "--threshold", "0.5"])
    first = capsys.readouterr().out.splitlines()[0]
    assert first == f"server {PRESET} (preset); criteria: baseline {base} x threshold 0.5"
    main(["compare", "--against-preset", PRESET, str(run), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert data["server"] == f"{PRESET} (preset)"
    assert data["criteria_source"].startswith(f"RUN's plan simulated on preset {PRESET} (seed ")


def test_card_pairs_are_counted_by_their_groups(tmp_path, capsys) -> None:
    """A -m card import's rows have no src/dst (their ends are card groups): 56 card pairs
    compared, not 1, in the table and the JSON (issue 37)."""
    card = tmp_path / "card"
    capture = str(DATA / "dmi-a3-p2p-card.txt")
    argv = ["import", "dmi", capture, "--size", "256MiB", "--preset", "atlas800t-a3"]
    assert main([*argv, "--out", str(card)]) == 0
    capsys.readouterr()
    assert main(["compare", str(card), str(card)]) == 0
    assert "112 points compared on 56 pairs" in capsys.readouterr().out
    main(["compare", str(card), str(card), "--format", "json"])
    assert json.loads(capsys.readouterr().out)["pairs_compared"] == 56
