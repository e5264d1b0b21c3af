"""The terminal output (terminal.py): print_matrices, print_summary and run_status.

- Matrices print rows = sources, an empty cell as an E code explained under the matrix;
  a cell's kind comes from its rows' error_kind column, so a refused cell among measured
  ones prints as refused. The diagonal is said to hold local copies only when it does.
- The summary gives the total of both directions of a bidirectional pair, keeps the h2d
  and d2h rows the matrices skip, says which figures rest on a preset's inferred
  behaviours, prints a collectives run's table, and imports no collectives for a run
  without them. It reads only SUMMARY_COLUMNS and prints what every column gives.
- Two runs joined (Run.concat, the second interrupted) are one run that saves, loads,
  reports and prints, with exit status 130.
- A run saved by an older release (tests/data/run_v2, run schema 2) reports and prints as
  the release before did.

The pair run is asymmetric (0 -> 1 at half speed, 2 -> 3 failing), so a transposed matrix
cannot pass. The host run is on atlas800t-a2 with its host link made lopsided (h2d
10 GB/s, d2h 40 GB/s), devices 0 and 2."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd
import pytest
from helpers import DEVICES, LARGE, SIZE, SMALL, _as_before, asymmetric_a2_run, columns_given

from ascend_p2p_lab import open_runtime, results
from ascend_p2p_lab.emptycells import explain
from ascend_p2p_lab.matrices import matrices_json, run_matrices
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.results import (
    inferred_notes,
)
from ascend_p2p_lab.run import Run
from ascend_p2p_lab.run import folder as run_folder
from ascend_p2p_lab.terminal import LOCAL_DIAGONAL, print_matrices, print_summary, run_status
from ascend_p2p_lab.topology import load_preset

PRESET = "atlas800t-a2"


def _lopsided():
    """atlas800t-a2 with a host link four times faster device -> host than host ->
    device (the preset's own figures are 24.8 and 27.6: too close to tell apart)."""
    topo = load_preset(PRESET)
    host = dataclasses.replace(topo.host, h2d_GBps=10.0, d2h_GBps=40.0)
    return dataclasses.replace(topo, host=host)


@pytest.fixture(scope="module")
def lab() -> tuple[pd.DataFrame, object]:
    """h2d and d2h of devices 0 and 2, and the pair 0 -> 2 staged (peer off)."""
    topo = _lopsided()
    with open_runtime("sim", topology=topo) as rt:
        run = sweep(
            rt,
            pairs="0-2",
            patterns=("h2d", "d2h", "pair"),
            devices=DEVICES,
            peer="off",
            sizes=[SMALL, LARGE],
            samples=2,
            progress=False,
        )
    return run, topo


def test_matrices_skip_host_rows_and_summaries_keep_them(lab, capsys) -> None:
    from ascend_p2p_lab.terminal import print_summary

    run, _ = lab
    assert all(m.pattern not in ("h2d", "d2h") for m in run_matrices(run))
    summ = results.summarize(run)
    assert set(summ.loc[summ["pattern"] == "h2d", "dst"]) == set(DEVICES)
    assert set(summ.loc[summ["pattern"] == "d2h", "src"]) == set(DEVICES)
    print_summary(run, matrices=True)
    lines = capsys.readouterr().out.splitlines()
    for pattern in ("h2d", "d2h"):
        assert any(line.split()[:1] == [pattern] and "host" in line for line in lines)


@pytest.fixture(scope="module")
def run():
    """0->1 at half speed, 2->3 failing, at two sizes; 1->0 and 3->2 healthy."""
    return asymmetric_a2_run(pairs="0-1,1-0,2-3,3-2", sizes=[SMALL, SIZE])


def _by_title(run, words):
    found = [m for m in run_matrices(run) if all(w in m.title for w in words)]
    assert len(found) == 1, [m.title for m in run_matrices(run)]
    return found[0]


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


def test_the_summary_gives_the_total_of_both_directions(run, capsys) -> None:
    from ascend_p2p_lab.terminal import print_summary

    print_summary(run)
    lines = capsys.readouterr().out.splitlines()
    header = next(ln.split() for ln in lines if ln.split()[:1] == ["pattern"])
    bi = next(ln.split() for ln in lines if ln.split()[:2] == ["pair", "bi"])
    both = float(bi[header.index("both_dirs_GBps")])
    each = _by_title(run, ["each direction while both run"]).frame
    assert both == pytest.approx(each.loc[0, 1] + each.loc[1, 0], abs=0.15)


def test_a_refused_cell_among_measured_ones_prints_as_refused(run, capsys) -> None:
    """The cell's kind comes from the rows' error_kind column, not from its text."""
    uni = run.frame()[run.samples["direction"] == "uni"].copy()  # with its metadata
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


A3 = "atlas800t-a3"


# ------------------------------------------------------------------ inferred, said with the numbers
def test_runs_on_the_simulator_carry_the_presets_inferred_behaviours(capsys) -> None:
    with open_runtime("sim", A3) as rt:
        off = sweep(rt, pairs="0-2", sizes="1MiB", peer="off", samples=1, progress=False)
        on = sweep(rt, pairs="0-2", sizes="1MiB", samples=1, progress=False)
    assert "peer_off_copy" in off.meta.inferred
    assert set(inferred_notes(off)) == {"peer_off_copy", "peer_off_error"}
    assert inferred_notes(on) == {}  # peer on, read: rests on nothing inferred
    print_summary(off)
    text = capsys.readouterr().out
    assert "no source states" in text and "peer_off_copy: A3 is absent" in text
    print_summary(on)
    assert "no source states" not in capsys.readouterr().out


QUICK = {"samples": 2, "warmup": 1, "progress": False}


@pytest.fixture(scope="module")
def two_sweeps() -> tuple[Run, Run]:
    """Two sweeps of one server: pairs, then host copies and local copies."""
    with open_runtime("sim", "atlas800t-a2") as rt:
        pairs = sweep(rt, pairs="0-1,1-0,2-3", sizes="1MiB,16MiB", **QUICK)
        host = sweep(rt, devices="0-3", patterns=("h2d", "local"), sizes="1MiB,16MiB", **QUICK)
    return pairs, host


def test_two_runs_joined_are_one_run_that_reports(two_sweeps, tmp_path: Path, capsys) -> None:
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab import plots

    pairs, host = two_sweeps
    interrupted = host.replace(interrupted=True, points_not_reached=3)
    both = Run.concat([pairs, interrupted])
    assert len(both) == len(pairs) + len(host)
    assert both.run_ids == [pairs.meta.run_id, host.meta.run_id]
    meta = both.meta
    assert meta.device_count == 8 and meta.interrupted and meta.preset == "atlas800t-a2"
    assert meta.points == pairs.meta.points + host.meta.points
    assert meta.points_not_reached == 3 and meta.blocks == pairs.meta.blocks + host.meta.blocks
    assert [p["params"]["patterns"] for p in meta.parts] == [["pair"], ["h2d", "local"]]
    assert meta.params["sizes"] == [1 << 20, 16 << 20]  # what both share
    assert "patterns" not in meta.params  # what they do not: in parts
    assert run_status(both) == 130
    folder = Run.of(both).save(tmp_path / "joined")  # saved and loaded whole
    back = run_folder.load(folder)
    assert back.meta == meta and back.run_ids == both.run_ids
    paths = plots.report(back, tmp_path / "joined")
    names = {p.name for p in paths}
    assert "heatmap_uni_on_p2p.png" in names and "host_bandwidth_vs_size.png" in names
    print_summary(back, folder, matrices=True)
    out = capsys.readouterr().out
    assert out.startswith(f"run {meta.run_id}: 2 runs joined, {len(both)} rows\n")
    assert f"  {pairs.meta.run_id} on 8 x Ascend910B3 (simulated atlas800t-a2)" in out
    assert "h2d" in out and "pair" in out and "interrupted" in out


ADDED_VALUE_KEYS = ("senders", "receivers", "total_GBps")


def _report_as_before(report: dict) -> dict:
    report["matrices"] = [_as_before(m) for m in report["matrices"]]
    for value in report["values"]:
        for key in ADDED_VALUE_KEYS:
            value.pop(key)
    return report


# ---- run schema 2, saved by the release before the run became a value (3732bd0) ----
V2 = Path(__file__).parent / "data" / "run_v2"


def _v2_expected() -> dict:
    return json.loads((V2 / "expected.json").read_text())


def test_a_version_2_run_reports_as_the_release_before_did(capsys):
    from ascend_p2p_lab.terminal import print_summary, run_status

    run = Run.load(V2).frame()
    expected = _v2_expected()
    assert _report_as_before(matrices_json(run)) == expected["report"]
    assert run_status(run) == expected["exit_status"] == 0
    print_summary(run, None, matrices=True, read_from=Path("run_v2"))
    assert capsys.readouterr().out.splitlines() == expected["summary_text"]


# ------------------------------------------------------------------ issue 30 (its last items)
def _printed(patterns: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> str:
    with open_runtime("sim", preset="atlas800t-a2", announce=False) as rt:
        run = sweep(
            rt,
            pairs="0-1,2-3",
            sizes=["1MiB"],
            samples=2,
            patterns=patterns,
            devices=(0, 1, 2, 3),
            progress=False,
        )
    capsys.readouterr()
    print_matrices(run)
    return capsys.readouterr().out


def test_the_terminal_says_what_its_diagonal_holds(capsys) -> None:
    out = _printed(("pair", "local"), capsys)
    assert out.count(LOCAL_DIAGONAL) == 1 and "a copy within each device" in out
    grid = out.split(LOCAL_DIAGONAL)[0]
    assert "P2P bandwidth" in grid  # said under the matrix that shows them


def test_a_matrix_without_local_copies_says_nothing_of_its_diagonal(capsys) -> None:
    out = _printed(("pair",), capsys)
    assert "P2P bandwidth" in out and LOCAL_DIAGONAL not in out


def test_the_summary_of_a_collectives_run_prints_its_table(capsys) -> None:
    from ascend_p2p_lab.imports import import_hccl_test

    vendor = Path(__file__).resolve().parent / "data" / "vendor"
    print_summary(import_hccl_test([vendor / "hccl-all_reduce-8p.txt"]))
    out = capsys.readouterr().out
    assert "\ncollectives:\n" in out and "busbw" in out


def test_the_summary_reads_only_its_columns(run, capsys, monkeypatch) -> None:
    """print_summary selects the measured rows with SUMMARY_COLUMNS only: summarize and
    the fits are given no other column, and it prints what it prints from every column."""
    from ascend_p2p_lab import terminal

    print_summary(run, matrices=True)
    narrowed = capsys.readouterr().out
    given = columns_given(monkeypatch, results, "summarize")
    print_summary(run, matrices=True)
    assert capsys.readouterr().out == narrowed
    assert given and all(set(cols) <= set(terminal.SUMMARY_COLUMNS) for cols in given)
    monkeypatch.setattr(terminal, "SUMMARY_COLUMNS", tuple(Run.of(run).samples.columns))
    print_summary(run, matrices=True)
    assert capsys.readouterr().out == narrowed


def test_a_run_without_ops_prints_no_collectives_without_importing_them(
    run, capsys, monkeypatch
) -> None:
    """A P2P run's summary does not import the collectives (~30 ms of every ``report``):
    with them unimportable it still prints; a run with an op does need them."""
    import sys

    from ascend_p2p_lab import terminal

    monkeypatch.setitem(sys.modules, "ascend_p2p_lab.collectives.table", None)
    terminal._print_collectives(run.samples)  # its operation column is empty
    assert "collectives:" not in capsys.readouterr().out
    with pytest.raises(ImportError):
        terminal._print_collectives(pd.DataFrame({"operation": ["all_gather"]}))
