"""The run's N x N matrices (``matrices.run_matrices``), as the terminal prints them and
``--format json`` writes them: checked by value on an asymmetric run, so that a swapped
row and column, a wrong size or a lost reason cannot pass."""

from __future__ import annotations

import json

import pytest
from helpers import SIZE, asymmetric_a2_run

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.emptycells import explain
from ascend_p2p_lab.matrices import matrices_json, run_matrices
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.terminal import print_matrices

SMALL = 64 << 10


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
    uni = run[(run["direction"] == "uni") & (run["size_bytes"] == SIZE)]
    expected = uni[(uni["src"] == 1) & (uni["dst"] == 0)]["bandwidth_GBps"].median()
    assert f.loc[1, 0] == pytest.approx(expected)


def test_empty_cells_say_why(run) -> None:
    m = _by_title(run, ["one direction at a time"])
    assert m.kinds[2][3] == "runtime"  # judged by kind and code, the text is emptycells'
    assert m.reasons[2][3] == explain("runtime", 507013, "acl.rt.memcpy_async")
    assert m.reasons[3][2] is None and m.frame.loc[3, 2] > 0  # the other direction works
    assert m.reasons[0][1] is None and m.kinds[4][5] == "not_measured"
    assert m.kinds[0][0] == "same_device"  # no device-local copy in this run


def test_bidirectional_runs_add_the_total_of_both_directions(run) -> None:
    each = _by_title(run, ["each direction while both run"]).frame
    total = _by_title(run, ["both directions together"]).frame
    assert total.loc[0, 1] == pytest.approx(total.loc[1, 0])
    assert total.loc[0, 1] == pytest.approx(each.loc[0, 1] + each.loc[1, 0], rel=0.05)
    assert each.loc[0, 1] < 0.75 * each.loc[1, 0]


def test_json_is_numbers_with_null_and_reasons(run) -> None:
    data = json.loads(json.dumps(matrices_json(run)))
    assert data["device_count"] == 8 and data["run_id"] == run.attrs["run"]["run_id"]
    first = data["matrices"][0]
    assert {"title", "value", "unit", "pattern", "direction", "peer", "size_bytes",
            "matrix", "reasons"} <= set(first)
    assert first["unit"] == "GB/s" and first["size_bytes"] == SIZE
    assert first["matrix"][2][3] is None and first["reasons"][2][3].startswith("runtime")
    assert first["matrix"][0][1] < first["matrix"][1][0]


def test_terminal_matrix_rows_are_sources(run, capsys) -> None:
    print_matrices(run)
    text = capsys.readouterr().out
    block = text.split("one direction at a time")[1].split("\n\n")[0].splitlines()
    row0 = block[2].split()  # title tail, header, then the row of source 0
    row1 = block[3].split()
    assert row0[0] == "0" and row1[0] == "1"
    assert float(row0[2]) < 0.6 * float(row1[1])  # 0 -> 1 degraded, 1 -> 0 not
    assert block[4].split()[4] == "E1"  # source 2, destination 3
    assert f"E1: {explain('runtime', 507013, 'acl.rt.memcpy_async')} [1 cell]" in text


def test_a_matrix_refused_everywhere_is_one_line() -> None:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(rt, pairs="0-1,1-0", sizes=[SMALL], peer="off", samples=1,
                    progress=False)
    direct = _by_title(run, ["Direct copy"])
    assert all(r is not None and r.startswith("refused") for r in
               (direct.reasons[0][1], direct.reasons[1][0]))
    staged = _by_title(run, ["Host-staged"])
    assert staged.frame.loc[0, 1] > 0 and staged.frame.loc[1, 0] > 0


def test_the_summary_gives_the_total_of_both_directions(run, capsys) -> None:
    from ascend_p2p_lab.terminal import print_summary

    print_summary(run)
    lines = capsys.readouterr().out.splitlines()
    header = next(ln.split() for ln in lines if ln.split()[:1] == ["pattern"])
    bi = next(ln.split() for ln in lines if ln.split()[:2] == ["pair", "bi"])
    both = float(bi[header.index("both_dirs_GBps")])
    each = _by_title(run, ["each direction while both run"]).frame
    assert both == pytest.approx(each.loc[0, 1] + each.loc[1, 0], abs=0.15)


def test_a_sweep_of_some_devices_shows_only_them() -> None:
    faults = [{"kind": "degrade", "link": [3, 6], "factor": 0.5}]
    with open_runtime("sim", preset="atlas800t-a2", faults=faults) as rt:
        run = sweep(rt, devices="1,3,6", sizes=[SIZE], samples=1, progress=False)
    m = run_matrices(run)[0]
    assert m.devices == [1, 3, 6] and list(m.frame.columns) == [1, 3, 6]
    assert m.frame.loc[3, 6] < 0.6 * m.frame.loc[6, 3]  # the degraded direction, by id
    assert m.reasons[1][2] is None and m.kinds[0][0] == "same_device"
    assert matrices_json(run)["matrices"][0]["devices"] == [1, 3, 6]


def test_a_refused_cell_among_measured_ones_prints_as_refused(run, capsys) -> None:
    """The cell's kind comes from the rows' error_kind column, not from its text."""
    uni = run[run["direction"] == "uni"].copy()
    cell = (uni["src"] == 1) & (uni["dst"] == 0)
    uni.loc[cell, ["bandwidth_GBps", "elapsed_us"]] = float("nan")
    uni.loc[cell, "error_kind"] = "refused"
    uni.loc[cell, "error_code"] = 507899
    m = _by_title(uni, ["one direction at a time"])
    assert m.kinds[1][0] == "refused" and m.kinds[2][3] == "runtime"
    assert m.kinds[0][1] is None and m.kinds[4][5] == "not_measured"
    print_matrices(uni)
    block = capsys.readouterr().out.split("one direction at a time")[1].splitlines()
    # two failure keys, one cell each: numbered by key, explained under the matrix
    tags = {block[3].split()[1], block[4].split()[4]}
    assert tags == {"E1", "E2"} and block[3].split()[1] != block[4].split()[4]
