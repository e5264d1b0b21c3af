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
from helpers import CORRUPT, FAIL, SEED

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.comparison import (
    compare,
)
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.results import save_run

PRESET = "atlas800t-a2"


SIZE = 16 << 20


PAIRS = "0-1,1-0"


#: 0 -> 1 at half speed; 1 -> 0 untouched
DEGRADE = [{"kind": "degrade", "link": [0, 1], "factor": 0.5}]


def _run(
    faults: list | None = None, pairs: str = PAIRS, sizes: object = (SIZE,), preset: str = PRESET
) -> pd.DataFrame:
    with open_runtime("sim", preset=preset, seed=SEED, faults=faults or []) as rt:
        return sweep(rt, pairs=pairs, sizes=list(sizes), samples=2, progress=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[pd.DataFrame, Path]]:
    """clean, clean2 (another clean run), degraded, failing, corrupt, other (2-3, 3-2),
    wider (0-1, 1-0, 2-3): each frame with its saved folder."""
    root = tmp_path_factory.mktemp("runs")
    frames = {
        "clean": _run(),
        "clean2": _run(),
        "degraded": _run(DEGRADE),
        "failing": _run(FAIL),
        "corrupt": _run(CORRUPT),
        "other": _run(pairs="2-3,3-2"),
        "wider": _run(pairs="0-1,1-0,2-3"),
    }
    return {name: (frame, save_run(frame, root / name)) for name, frame in frames.items()}


def test_against_preset_ratios_are_1_point_by_point(runs, capsys) -> None:
    from ascend_p2p_lab.cli.compare import _predict

    predicted, _ = _predict(runs["clean"][0], runs["clean"][1], PRESET)
    assert predicted.meta.params == runs["clean"][0].attrs["run"]["params"]
    cmp = compare(predicted, runs["clean"][0])
    assert cmp["ratio"].to_numpy() == pytest.approx([1.0, 1.0], abs=0.02)


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
