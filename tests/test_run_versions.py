"""Runs saved by an older release load and draw the same (tests/data/run_v1: saved by
the release before tests-as-data, run schema 1, group labels and no device lists)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from ascend_p2p_lab.matrices import run_matrices
from ascend_p2p_lab.results import RUN_SCHEMA_VERSION, load_run, save_run

V1 = Path(__file__).parent / "data" / "run_v1"


def _expected() -> dict:
    return json.loads((V1 / "expected.json").read_text())


#: Keys the JSON gained after a fixture's release (issue 30: a matrix kept apart by
#: initiator or process mode says which; a value names its devices and a total): the
#: older release's keys must read the same, and the new ones say nothing of one side.
ADDED_MATRIX_KEYS = {"initiator": None, "process_mode": None}
ADDED_VALUE_KEYS = ("senders", "receivers", "total_GBps")


def _as_before(matrix: dict) -> dict:
    for key, value in ADDED_MATRIX_KEYS.items():
        assert matrix.pop(key) == value
    return matrix


def _report_as_before(report: dict) -> dict:
    report["matrices"] = [_as_before(m) for m in report["matrices"]]
    for value in report["values"]:
        for key in ADDED_VALUE_KEYS:
            value.pop(key)
    return report


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_a_version_1_run_loads_with_its_device_lists(fmt, tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(V1, folder)
    if fmt == "csv":
        (folder / "samples.parquet").unlink()
    run = load_run(folder)
    assert json.loads((V1 / "run.json").read_text()).get("schema_version", 1) == 1
    card = run[run["pattern"] == "card"]
    first = card.iloc[0]
    assert isinstance(first["senders"], tuple) and isinstance(first["receivers"], tuple)
    assert set(card["senders"]) == {(0, 1), (2, 3), (4, 5)}
    group = run[run["pattern"] == "group"]
    assert set(zip(group["senders"], group["receivers"])) >= {((0, 1), (2, 3)), ((4,), (0, 5))}
    assert run.loc[run["pattern"] == "pair", "senders"].isna().all()


def test_a_version_1_run_draws_the_same():
    from ascend_p2p_lab.plots.aggregates import aggregate_stats

    run = load_run(V1)
    expected = _expected()
    assert [_as_before(m.to_json()) for m in run_matrices(run)] == expected["matrices"]
    stats = json.loads(aggregate_stats(run).to_json(orient="records"))
    assert stats == expected["aggregates"]


def test_saved_again_it_is_the_current_version_and_keeps_the_lists(tmp_path):
    run = load_run(V1)
    save_run(run, tmp_path / "again")
    meta = json.loads((tmp_path / "again" / "run.json").read_text())
    assert meta["schema_version"] == RUN_SCHEMA_VERSION == 3
    again = load_run(tmp_path / "again")
    pd.testing.assert_series_equal(again["senders"], run["senders"])
    (tmp_path / "again" / "samples.parquet").unlink()  # the CSV's JSON lists
    from_csv = load_run(tmp_path / "again")
    assert list(from_csv["receivers"]) == list(run["receivers"])
    csv = (tmp_path / "again" / "samples.csv").read_text()
    assert '"[0, 1]"' in csv  # device lists as JSON, not a label to split


# ---- run schema 2, saved by the release before the run became a value (3732bd0) ----
V2 = Path(__file__).parent / "data" / "run_v2"


def _v2_expected() -> dict:
    return json.loads((V2 / "expected.json").read_text())


def _as_stored(frame: pd.DataFrame) -> dict:
    """frame as expected.json stores it (orient split, 15 significant digits)."""
    return json.loads(frame.to_json(orient="split", index=False, double_precision=15))


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_a_version_2_run_loads_and_gives_the_same_numbers(fmt, tmp_path):
    from ascend_p2p_lab.results import fit_latency_bandwidth, summarize

    folder = tmp_path / "run"
    shutil.copytree(V2, folder)
    if fmt == "csv":
        (folder / "samples.parquet").unlink()
    assert json.loads((V2 / "run.json").read_text())["schema_version"] == 2
    run = load_run(folder)
    expected = _v2_expected()
    summary = summarize(run)[expected["summary"]["columns"]]
    assert _as_stored(summary) == expected["summary"]
    fits = fit_latency_bandwidth(run)[expected["fits"]["columns"]]
    assert _as_stored(fits) == expected["fits"]


def test_a_version_2_run_reports_as_the_release_before_did(capsys):
    from ascend_p2p_lab.matrices import matrices_json
    from ascend_p2p_lab.terminal import print_summary, run_status

    run = load_run(V2)
    expected = _v2_expected()
    assert _report_as_before(matrices_json(run)) == expected["report"]
    assert run_status(run) == expected["exit_status"] == 0
    print_summary(run, None, matrices=True, read_from=Path("run_v2"))
    assert capsys.readouterr().out.splitlines() == expected["summary_text"]


def test_parquet_and_csv_of_the_version_2_run_are_the_same_rows(tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(V2, folder)
    from_parquet = load_run(folder)
    (folder / "samples.parquet").unlink()
    pd.testing.assert_frame_equal(load_run(folder), from_parquet)


@pytest.mark.parametrize("fixture", [V1, V2], ids=["run_v1", "run_v2"])
def test_the_report_command_reads_every_older_run(fixture, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab.cli import main
    from ascend_p2p_lab.run import folder as run_folder

    folder = tmp_path / "run"
    shutil.copytree(fixture, folder)
    assert main(["report", str(folder)]) == 0
    out = capsys.readouterr().out
    assert f"run {json.loads((fixture / 'run.json').read_text())['run_id']} on " in out
    manifest = json.loads((folder / "report.json").read_text())
    assert any(name.endswith(".png") for name in manifest["files"])
    run = run_folder.load(folder)  # the folder's run is untouched by its report
    assert run.meta.schema_version == json.loads((fixture / "run.json").read_text()).get(
        "schema_version", 1)
    assert len(run) == json.loads((fixture / "run.json").read_text())["rows"]
