"""Imported runs are ordinary runs: report, compare and calibrate work on them.

The A2 capture has one cell lowered (2->5 only, not 5->2): compare must name exactly that
cell, against the preset and against the toolkit's own sweep; a twin calibrated from the
capture alone (its matrices and the topology capture) must reproduce the imported numbers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.results import load_run, matrix, save_run

DATA = Path(__file__).parent / "data" / "vendor"
TOPO = Path(__file__).parent / "data" / "npu-smi-topo-910b3-8npu.txt"
SIZE = 256 << 20


def imported(tmp_path: Path, capture: str, name: str = "dmi") -> Path:
    out = tmp_path / name
    assert main(["import", "dmi", str(DATA / capture), str(TOPO), "--size", "256MiB",
                 "--out", str(out)]) == 0
    return out


def below(capsys, argv: list[str]) -> tuple[int, list[tuple[int, int]], dict]:
    capsys.readouterr()  # what came before (an import's summary)
    code = main(argv)
    data = json.loads(capsys.readouterr().out)
    return code, [(p["src"], p["dst"]) for p in data["below"]], data


def test_compare_against_the_preset_names_exactly_the_lowered_cell(tmp_path, capsys):
    run = imported(tmp_path, "dmi-a2-p2p-lowered-2to5.txt")
    code, cells, data = below(capsys, ["compare", "--against-preset", "atlas800t-a2",
                                       "--format", "json", str(run)])
    assert code == 1 and cells == [(2, 5)]
    assert data["points_compared"] == 56 * 2 and data["below"][0]["run_GBps"] == 18.4
    assert data["unmatched"] == []  # the 56 bi totals are compared, not left out


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
    assert main(["import", "dmi", str(low), "--size", "256MiB", "--out",
                 str(tmp_path / "run")]) == 0
    plans = json.loads((tmp_path / "run" / "run.json").read_text())["params"]["plans"]
    assert [p["directions"] for p in plans] == [["uni"], ["bi"]]
    capsys.readouterr()
    code = main(["compare", "--against-preset", "atlas800t-a2", "--format", "json",
                 str(tmp_path / "run")])
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert code == 1 and data["points_compared"] == 112 and data["unmatched"] == []
    below = [(p["src"], p["dst"], p["direction"], p["value"]) for p in data["below"]]
    assert below == [(3, 6, "bi", "bidir_total_GBps")]
    assert data["below"][0]["run_GBps"] == 30.0 and data["below"][0]["baseline_GBps"] > 45
    assert "(seed 0, the simulator's: the run has none)" in captured.err


def _bi(src: int, dst: int, gbps: float | None, total: float | None) -> dict:
    return {"src": src, "dst": dst, "pattern": "pair", "direction": "bi", "peer": "on",
            "path": "p2p", "size_bytes": 1 << 28, "bandwidth_GBps": gbps,
            "bidir_total_GBps": total}


def test_a_total_is_compared_only_with_a_total():
    """Run side gives only totals (DMI): with the baseline's totals they are compared (the
    ratio of totals, 0 -> 1 lowered, not 1 -> 0); a baseline without totals leaves them
    unmatched, neither compared with a per-direction figure nor counted lost."""
    from ascend_p2p_lab.comparison import compare, unmatched
    from ascend_p2p_lab.schema import to_frame

    run = to_frame([_bi(0, 1, None, 40.0), _bi(1, 0, None, 50.0)])
    base = to_frame([_bi(0, 1, 25.0, 50.0), _bi(1, 0, 25.0, 50.0)])
    got = compare(base, run)
    assert got[["src", "dst", "ratio", "below", "value"]].values.tolist() == [
        [0, 1, 0.8, True, "bidir_total_GBps"], [1, 0, 1.0, False, "bidir_total_GBps"]]
    assert unmatched(base, run).empty
    per_direction = to_frame([_bi(0, 1, 25.0, None), _bi(1, 0, 25.0, None)])
    assert compare(per_direction, run).empty
    assert set(unmatched(per_direction, run)["reason"]) == {"not_measured_in_run"}


def test_the_unlowered_capture_matches_the_preset(tmp_path, capsys):
    run = imported(tmp_path, "dmi-a2-p2p.txt")
    code, cells, _ = below(capsys, ["compare", "--against-preset", "atlas800t-a2",
                                    "--format", "json", str(run)])
    assert code == 0 and cells == []


def test_compare_with_the_toolkits_own_sweep(tmp_path, capsys):
    with open_runtime("sim", "atlas800t-a2") as rt:
        own = sweep(rt, sizes="256MiB", samples=2, direction="both", progress=False)
    save_run(own, tmp_path / "own")
    run = imported(tmp_path, "dmi-a2-p2p-lowered-2to5.txt")
    code, cells, data = below(capsys, ["compare", "--format", "json", str(tmp_path / "own"),
                                       str(run)])
    assert code == 1 and cells == [(2, 5)]
    # DMI's bi cells are totals: compared on the sweep's totals, none left unmatched
    assert data["points_compared"] == 112 and data["unmatched"] == []
    # the other way round: the imported run as the baseline, the sweep as the run
    code, cells, _ = below(capsys, ["compare", "--format", "json", "--threshold", "0.9",
                                    str(run), str(tmp_path / "own")])
    assert code == 0 and cells == []  # the sweep is above the lowered cell


def _twin_matrix(toml: Path) -> object:
    from ascend_p2p_lab.topology import load_topology_file

    with open_runtime("sim", topology=load_topology_file(toml)) as rt:
        run = sweep(rt, sizes=[SIZE], samples=3, progress=False)
    return matrix(run, SIZE)


@pytest.mark.parametrize("capture,off", [("dmi-a2-p2p.txt", set()),
                                         ("dmi-a2-p2p-lowered-2to5.txt", {(2, 5)})])
def test_calibrate_from_the_capture_round_trips_within_3_percent(tmp_path, capture, off):
    run_dir = imported(tmp_path, capture)
    toml = tmp_path / "twin.toml"
    assert main(["calibrate", str(run_dir), "--out", str(toml)]) == 0
    assert "fitted from run import-" in toml.read_text()
    twin = _twin_matrix(toml)
    mine = matrix(load_run(run_dir), SIZE)
    far = {(i, j) for i in range(8) for j in range(8) if i != j
           and abs(twin.iat[i, j] / mine.iat[i, j] - 1) > 0.03}
    # a twin has one rate per link class (the median): the lowered cell is not in it
    assert far == off


def test_calibrate_needs_link_classes_from_a_topology_capture(tmp_path, capsys):
    out = tmp_path / "alone"
    assert main(["import", "dmi", str(DATA / "dmi-a2-p2p.txt"), "--size", "256MiB",
                 "--out", str(out)]) == 0
    assert main(["calibrate", str(out), "--out", str(tmp_path / "t.toml")]) == 2
    assert "--topology" in capsys.readouterr().err


def test_report_on_imported_runs_writes_their_figures(tmp_path):
    run = imported(tmp_path, "dmi-a2-p2p-lowered-2to5.txt")
    assert main(["report", str(run)]) == 0
    listed = json.loads((run / "report.json").read_text())["files"]
    assert "heatmap_uni_on_p2p.png" in listed and "heatmap_bi_on_p2p_total.png" in listed
    hccl = tmp_path / "hccl"
    assert main(["import", "hccl-test", str(DATA / "hccl-all_reduce-8p.txt"),
                 "--out", str(hccl)]) == 0
    assert main(["report", str(hccl)]) == 0
    assert json.loads((hccl / "report.json").read_text())["files"] == [
        "summary.csv", "collective_bandwidth.png"]
    misc = tmp_path / "misc"
    assert main(["import", "dmi", *(str(DATA / f) for f in (
        "dmi-a2-h2d-step.txt", "dmi-a2-d2h-fixed.txt", "dmi-json-bandwidths.json",
        "dmi-json-latency.json", "dmi-dg.json")), "--out", str(misc)]) == 0
    assert main(["report", str(misc)]) == 0
    assert "host_bandwidth_vs_size.png" in json.loads((misc / "report.json").read_text())[
        "files"]


def test_report_draws_an_imported_card_matrix_with_its_bi_total(tmp_path):
    card = tmp_path / "card"
    assert main(["import", "dmi", str(DATA / "dmi-a3-p2p-card.txt"), "--size", "256MiB",
                 "--out", str(card)]) == 0
    assert main(["report", str(card)]) == 0
    files = json.loads((card / "report.json").read_text())["files"]
    assert "card_uni.png" in files and "card_bi_total.png" in files
    assert "card_bi.png" not in files  # DMI gives no per-direction bi rate
