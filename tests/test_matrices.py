"""The run's N x N matrices (matrices.py): run_matrices, matrices_json and aggregate_values.

Checked by value on asymmetric runs, so that a swapped row and column, a wrong size or a
lost reason cannot pass: on atlas800t-a2 0 -> 1 runs at half speed and 2 -> 3 fails
(1 -> 0 and 3 -> 2 are healthy); on atlas800t-a3 only card 2,3 -> card 0,1 is slowed.

- Rows are sources (sending cards for the card pattern), columns destinations, at the
  largest size; a bidirectional run adds the total of both directions; a sweep of some
  devices shows only them; group pattern rows are drawn as no matrix.
- ``--format json`` (matrices_json) gives numbers, null for an empty cell and the reason.
  A cell's reason and kind come from its first failed row; a failed value keeps the kind
  its row gives.
- An imported Ascend DMI card capture gives its bidirectional totals as values.
- Runs saved by an older release load and draw the same (tests/data/run_v1: saved by
  the release before tests-as-data, run schema 1, group labels and no device lists).
- run_matrices reads only MATRIX_COLUMNS and gives what every column gives."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from helpers import SIZE, SMALL, _as_before, asymmetric_a2_run, columns_given

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.matrices import matrices_json, run_matrices
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.run import Run
from ascend_p2p_lab.run.folder import load

A2, A3 = "atlas800t-a2", "atlas800t-a3"


def _run(preset: str, faults: list | None = None, **kwargs) -> pd.DataFrame:
    spec = {"sizes": [SIZE], "samples": 2, "progress": False, **kwargs}
    with open_runtime("sim", preset, faults=faults) as rt:
        run = sweep(rt, **spec)
        assert rt.peer_refs() == {}  # every enable the groups needed was put back
    return run


# ------------------------------------------------------------------ card matrices
def test_card_matrix_rows_are_sending_cards() -> None:
    slow = [{"kind": "degrade", "link": [2, 0], "factor": 0.1}]  # card 2,3 -> card 0,1
    run = _run(A3, slow, patterns="card", devices="0-5", samples=1)
    (m,) = [m for m in run_matrices(run) if m.pattern == "card"]
    assert m.labels == ["0,1", "2,3", "4,5"] and m.cards == [[0, 1], [2, 3], [4, 5]]
    assert m.devices == [0, 1, 2, 3, 4, 5]
    f = m.frame
    assert f.loc["2,3", "0,1"] < 0.5 * f.loc["0,1", "2,3"]
    assert f.loc["2,3", "0,1"] < 0.5 * f.loc["4,5", "0,1"]
    assert m.kinds[0][0] == "not_measured" and m.kinds[1][0] is None
    assert "source card -> column = destination card" in m.title
    j = m.to_json()
    assert j["cards"] == [[0, 1], [2, 3], [4, 5]]
    assert j["matrix"][1][0] == pytest.approx(f.loc["2,3", "0,1"], abs=1e-3)


def test_group_pattern_rows_are_not_drawn_as_matrices() -> None:
    run = _run(A2, groups="0,1:2,3", samples=1)
    assert run_matrices(run) == []


DATA = Path(__file__).parent / "data" / "vendor"


def imported(tmp_path: Path, name: str, *argv: str) -> Path:
    out = tmp_path / name
    assert main(["import", *argv, "--out", str(out)]) == 0
    return out


# ---------------------------------------------------------------- item 7: report of an import
def _report(tmp_path: Path, run: Path, capsys) -> tuple[str, list[str]]:
    capsys.readouterr()
    assert main(["report", str(run)]) == 0
    out = capsys.readouterr().out
    return out, json.loads((run / "report.json").read_text())["files"]


def test_the_values_of_a_card_import_give_its_bi_totals(tmp_path, capsys, planned_report):
    from ascend_p2p_lab.matrices import aggregate_values

    run = imported(tmp_path, "card", "dmi", str(DATA / "dmi-a3-p2p-card.txt"), "--size", "256MiB")
    values = aggregate_values(load(run))
    bi = values[values["direction"] == "bi"]
    assert len(bi) == 56 and bi["reason"].isna().all() and bi["kind"].isna().all()
    one = bi[bi["what"] == "0->1"].iloc[0]
    assert one["total_GBps"] == 542.11 and one["samples"] == 1
    out, _ = _report(tmp_path, run, capsys)
    assert "not measured" not in out.split("Card x card")[0]


@pytest.fixture(scope="module")
def run():
    """0->1 at half speed, 2->3 failing, at two sizes; 1->0 and 3->2 healthy."""
    return asymmetric_a2_run(pairs="0-1,1-0,2-3,3-2", sizes=[SMALL, SIZE])


def _by_title(run, words):
    found = [m for m in run_matrices(run) if all(w in m.title for w in words)]
    assert len(found) == 1, [m.title for m in run_matrices(run)]
    return found[0]


def test_rows_are_sources_and_the_size_is_the_largest(run) -> None:
    m = _by_title(run, ["one direction at a time"])
    assert m.size_bytes == SIZE and "16 MiB" in m.title and "row = source" in m.title
    f = m.frame
    assert f.shape == (8, 8) and f.index.name == "src" and f.columns.name == "dst"
    nominal = 28.0  # the A2 HCCS rate a healthy direction gets close to (preset: 28 GB/s)
    assert 0.8 * nominal < f.loc[1, 0] < nominal
    assert f.loc[0, 1] == pytest.approx(f.loc[1, 0] / 2, rel=0.05)  # degraded 0 -> 1 only
    uni = run.samples[(run.samples["direction"] == "uni") & (run.samples["size_bytes"] == SIZE)]
    expected = uni[(uni["src"] == 1) & (uni["dst"] == 0)]["bandwidth_GBps"].median()
    assert f.loc[1, 0] == pytest.approx(expected)


def test_bidirectional_runs_add_the_total_of_both_directions(run) -> None:
    each = _by_title(run, ["each direction while both run"]).frame
    total = _by_title(run, ["both directions together"]).frame
    assert total.loc[0, 1] == pytest.approx(total.loc[1, 0])
    assert total.loc[0, 1] == pytest.approx(each.loc[0, 1] + each.loc[1, 0], rel=0.05)
    assert each.loc[0, 1] < 0.75 * each.loc[1, 0]


def test_json_is_numbers_with_null_and_reasons(run) -> None:
    data = json.loads(json.dumps(matrices_json(run)))
    assert data["device_count"] == 8 and data["run_id"] == run.meta.run_id
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
        "reasons",
    } <= set(first)
    assert first["unit"] == "GB/s" and first["size_bytes"] == SIZE
    assert first["matrix"][2][3] is None and first["reasons"][2][3].startswith("runtime")
    assert first["matrix"][0][1] < first["matrix"][1][0]


def test_a_sweep_of_some_devices_shows_only_them() -> None:
    faults = [{"kind": "degrade", "link": [3, 6], "factor": 0.5}]
    with open_runtime("sim", preset="atlas800t-a2", faults=faults) as rt:
        run = sweep(rt, devices="1,3,6", sizes=[SIZE], samples=1, progress=False)
    m = run_matrices(run)[0]
    assert m.devices == [1, 3, 6] and list(m.frame.columns) == [1, 3, 6]
    assert m.frame.loc[3, 6] < 0.6 * m.frame.loc[6, 3]  # the degraded direction, by id
    assert m.reasons[1][2] is None and m.kinds[0][0] == "same_device"
    assert matrices_json(run)["matrices"][0]["devices"] == [1, 3, 6]


V1 = Path(__file__).parent / "data" / "run_v1"


def _expected() -> dict:
    return json.loads((V1 / "expected.json").read_text())


def test_a_version_1_run_draws_the_same():
    from ascend_p2p_lab.plots.aggregates import aggregate_stats

    run = Run.load(V1).frame()
    expected = _expected()
    assert [_as_before(m.to_json()) for m in run_matrices(run)] == expected["matrices"]
    stats = json.loads(aggregate_stats(run).to_json(orient="records"))
    assert stats == expected["aggregates"]


def test_a_failed_value_keeps_the_kind_its_row_gives() -> None:
    """2->3 fails with an ACL code: its value says so, not 'not measured'."""
    from ascend_p2p_lab.matrices import NOT_MEASURED_KIND, aggregate_values
    from ascend_p2p_lab.patterns.testfile import read_tests_text

    text = (
        'schema_version = 1\n[[test]]\nname = "t"\nsizes = ["1MiB"]\ntransfers = ["0->1", "2->3"]\n'
    )
    fault = [{"kind": "error", "call": "rt.memcpy_async", "link": [2, 3], "code": 507013}]
    with open_runtime("sim", preset="atlas800t-a2", faults=fault) as rt:
        tests = read_tests_text(text, rt.device_count)
        run = sweep(rt, tests=tests, samples=1, warmup=0, progress=False)
    values = aggregate_values(run).set_index(["test", "what"])
    bad = values.loc[("t", "2->3")]
    assert bad["kind"] not in (None, NOT_MEASURED_KIND) and "507013" in str(bad["reason"])


def test_why_a_cell_is_empty_says_its_first_failed_row() -> None:
    """A cell's reason comes from its first failed row (kept in the rows' order), each cell
    its own; rows without both ends are no cell's (the reasons taken all at once)."""
    from ascend_p2p_lab.emptycells import explain
    from ascend_p2p_lab.matrices import _why

    nan = float("nan")
    rows = pd.DataFrame(
        {
            "src": [0.0, 0.0, 1.0, nan, 0.0],
            "dst": [1.0, 1.0, 0.0, 0.0, 2.0],
            "senders": [(0, 1), (0, 1), (2, 3), None, (0, 1)],
            "receivers": [(2, 3), (2, 3), (0, 1), (0, 1), (4, 5)],
            "error_kind": ["unreachable", "runtime", "runtime", "refused", None],
            "error_code": [nan, 507013.0, 507011.0, 1.0, nan],
            "error_call": [None, "acl.rt.memcpy_async", "acl.rt.malloc", "x", None],
        }
    )
    frame = pd.DataFrame(nan, index=pd.RangeIndex(3, name="src"), columns=pd.RangeIndex(3))
    frame.iloc[0, 2] = 5.0
    got = _why(rows, frame)
    assert got["kinds"] == [
        ["same_device", "unreachable", None],
        ["runtime", "same_device", "not_measured"],
        ["not_measured", "not_measured", "same_device"],
    ]
    assert got["reasons"][1][0] == explain("runtime", 507011, "acl.rt.malloc")
    labels = ["0,1", "2,3", "4,5"]
    cards = pd.DataFrame(nan, index=pd.Index(labels), columns=pd.Index(labels))
    got = _why(rows, cards, by_group=True)
    assert got["kinds"] == [
        ["not_measured", "unreachable", "not_measured"],
        ["runtime", "not_measured", "not_measured"],
        ["not_measured", "not_measured", "not_measured"],
    ]


def test_matrices_read_only_their_columns(run, monkeypatch) -> None:
    """run_matrices selects the pair rows with MATRIX_COLUMNS only (a selection of ~60
    columns costs ~5 ms, of 20 ~1.5 ms): results.matrix is given no other column, and the
    matrices, reasons and kinds are those made from every column."""
    from ascend_p2p_lab import matrices, results

    narrowed = matrices_json(run)
    given = columns_given(monkeypatch, results, "matrix")
    matrices_json(run)
    assert given and all(set(cols) <= set(matrices.MATRIX_COLUMNS) for cols in given)
    monkeypatch.setattr(matrices, "MATRIX_COLUMNS", tuple(Run.of(run).samples.columns))
    assert matrices_json(run) == narrowed
