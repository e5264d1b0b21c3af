"""The importers (imports.import_dmi, imports.import_hccl_test) on captures written in the
tools' formats (tests/data/vendor, README there).

- DMI text matrices: rows are sources and columns destinations, each row keeps its source
  line, the bidirectional matrix gives totals only, Chinese titles and headers read like
  the English ones (with the size the capture states or ``size=``), and a ``-m card``
  matrix gives card pairs (no device count).
- DMI text tables: step and fixed mode keep sizes, copies, times and the tool's version;
  a table under ``-d`` takes the named device, its ID column a row number; one-pair tables
  sit under the matrix titles.
- DMI JSON: units, copy windows, ends and source lines of bandwidths and latency;
  diagnosis values and thresholds as rows (JSON and text); an error object is the tool's
  error with its code (the command exits 1 and writes nothing).
- hccl_test: the measure columns of collective rows, busbw from algbw by each operation's
  factor, the doc's spelling, failed ranks, ranks from mpirun (not the test's iterations),
  NULL checks, and options that win over the capture. The collective figure draws algbw
  and busbw of the rows and marks a failed check.

Fixtures are asymmetric (2->5 lowered, 5->2 not; every row of a matrix different), so a
parser that swaps rows and columns, drops a unit or reads by position fails here."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from helpers import MIB

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.collectives.rows import ROW_COLUMNS
from ascend_p2p_lab.imports import (
    ToolReportedError,
    import_dmi,
    import_hccl_test,
)


def test_the_hccl_test_import_has_the_same_measure_columns(tmp_path) -> None:
    capture = tmp_path / "all_gather_8p.txt"
    capture.write_text(
        "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | "
        "check_result:\n1048576 | 100.00 | 10.48576 | success\n"
    )
    imported = import_hccl_test([capture])
    shared = ["operation", "ranks", "size_bytes", "time_us", "algbw_GBps", "busbw_GBps"]
    assert set(shared) <= set(imported.columns) and set(shared) <= set(ROW_COLUMNS)


DATA = Path(__file__).resolve().parents[1] / "data" / "vendor"


def test_a_named_device_keeps_the_id_column_a_row_number():
    """Step mode with -d 0: ID counts the rows (0..24), the device is the one named."""
    from ascend_p2p_lab.imports import import_dmi

    run = import_dmi([DATA / "dmi-a2-h2d-step.txt"])
    assert set(run["dst"]) == {0} and len(run) == 25


def cells(run, direction="uni", value="bandwidth_GBps"):
    part = run[
        (run["direction"] == direction)
        & run[value].notna()
        & run["src"].notna()
        & run["dst"].notna()
    ]
    return {(int(s), int(d)): float(v) for s, d, v in zip(part["src"], part["dst"], part[value])}


# ---------------------------------------------------------------- DMI text: matrices
def test_matrix_rows_are_sources_columns_destinations():
    run = import_dmi([DATA / "dmi-a2-p2p-lowered-2to5.txt"], size=256 * MIB)
    uni = cells(run)
    assert len(uni) == 56 and uni[(2, 5)] == 18.4 and uni[(5, 2)] == 26.3
    assert uni[(0, 6)] == 25.9 and uni[(6, 0)] == 26.0  # row 0 column 6 vs row 6 column 0
    bi = cells(run, "bi", "bidir_total_GBps")
    assert len(bi) == 56 and bi[(7, 6)] == 50.8
    assert run.loc[run["direction"] == "bi", "bandwidth_GBps"].isna().all()  # not invented
    row = run[(run["src"] == 2) & (run["dst"] == 5) & (run["direction"] == "uni")].iloc[0]
    lines = (DATA / "dmi-a2-p2p-lowered-2to5.txt").read_text().splitlines()
    assert lines[int(row["source_line"]) - 1].split()[0] == "2"  # the line of source 2
    assert set(run["pattern"]) == {"pair"} and set(run["size_bytes"]) == {256 * MIB}
    assert run["initiator"].isna().all() and run["elapsed_us"].isna().all()
    assert run.attrs["run"]["hostname"] == "a2-server"


def test_chinese_titles_headers_and_a_stated_size():
    run = import_dmi([DATA / "dmi-zh-p2p-h2d.txt"], size=128 * MIB)
    uni, bi = run[run["direction"] == "uni"], run[run["direction"] == "bi"]
    assert set(uni.loc[uni["pattern"] == "pair", "size_bytes"]) == {128 * MIB}  # --size
    assert set(bi["size_bytes"]) == {268435456}  # the "数据大小" line above the bi matrix
    assert cells(run)[(1, 0)] == 26.2 and cells(run)[(0, 1)] == 26.1
    h2d = run[run["pattern"] == "h2d"].iloc[0]
    assert (int(h2d["dst"]), h2d["bandwidth_GBps"], int(h2d["copies"])) == (0, 24.8, 40)


def test_card_matrix_rows_are_card_pairs():
    run = import_dmi([DATA / "dmi-a3-p2p-card.txt"], size=256 * MIB)
    assert set(run["pattern"]) == {"card"}
    uni = run[run["direction"] == "uni"]
    assert (
        len(uni) == 56
        and uni["group"].eq(uni["src"].astype(str) + "->" + uni["dst"].astype(str)).all()
    )
    assert uni["bandwidth_GBps"].between(328.98, 329.63).all()
    assert run.loc[run["direction"] == "bi", "bidir_total_GBps"].between(539.95, 545.03).all()
    assert run.attrs["run"]["device_count"] is None  # card ids are not device ids


# ---------------------------------------------------------------- DMI text: tables
def test_step_mode_table_keeps_sizes_times_and_version():
    run = import_dmi([DATA / "dmi-a2-h2d-step.txt"])
    assert run.attrs["run"]["backend"] == "ascend-dmi 6.0.0"
    assert list(run["size_bytes"]) == [2 << k for k in range(25)]
    assert set(run["pattern"]) == {"h2d"} and set(run["dst"]) == {0}
    assert run["src"].isna().all() and set(run["path"]) == {"host"}
    big = run.iloc[-1]
    assert big["bandwidth_GBps"] == pytest.approx(24.6271) and int(big["copies"]) == 5
    # the time is the window of all 5 copies: 9.5 us each plus the bytes at 24.8 GB/s
    assert big["elapsed_us"] / big["copies"] == pytest.approx(9.5 + (32 * MIB) / 24.8e3, rel=1e-3)


def test_fixed_mode_tab_table_with_its_device():
    run = import_dmi([DATA / "dmi-a2-d2h-fixed.txt"])
    row = run.iloc[0]
    assert (row["pattern"], int(row["src"]), int(row["size_bytes"]), int(row["copies"])) == (
        "d2h",
        3,
        536870912,
        40,
    )
    assert pd_isna(row["dst"]) and row["bandwidth_GBps"] == 27.6


def pd_isna(v) -> bool:

    return bool(pd.isna(v))


def test_one_pair_tables_under_the_titles():
    run = import_dmi([DATA / "dmi-a2-p2p-pair-step.txt"])
    uni = run[run["direction"] == "uni"]
    assert set(zip(uni["src"], uni["dst"])) == {(7, 6)} and set(uni["pattern"]) == {"pair"}
    assert list(uni["size_bytes"]) == [2, 2097152, 33554432]
    assert list(uni["copies"]) == [5, 5, 5] and uni["elapsed_us"].iloc[-1] == 6403.5
    bi = run[run["direction"] == "bi"].iloc[0]
    assert (int(bi["src"]), int(bi["dst"]), bi["bidir_total_GBps"]) == (7, 6, 50.8)
    assert pd_isna(bi["bandwidth_GBps"])


# ---------------------------------------------------------------- DMI JSON
def test_json_bandwidths_units_windows_and_ends():
    run = import_dmi([DATA / "dmi-json-bandwidths.json"])
    uni = run[(run["pattern"] == "pair") & (run["direction"] == "uni")]
    assert list(uni["size_bytes"]) == [2, 2097152, 33554432]
    assert set(zip(uni["src"], uni["dst"])) == {(7, 6)}
    # elapsed_time here is one copy's (size / time = the printed rate): copies = 1
    assert list(uni["copies"]) == [1, 1, 1] and list(uni["elapsed_us"]) == [4.8, 80.3, 1280.7]
    bi = run[run["direction"] == "bi"].iloc[0]
    assert bi["bidir_total_GBps"] == 50.8 and pd_isna(bi["bandwidth_GBps"])
    h2d = run[run["pattern"] == "h2d"].iloc[0]
    assert (int(h2d["dst"]), int(h2d["copies"]), h2d["elapsed_us"]) == (0, 5, 6765.2)
    lines = (DATA / "dmi-json-bandwidths.json").read_text().splitlines()
    for r in run.itertuples():
        assert f'"{r.size_bytes} Bytes"' in lines[r.source_line - 1]


def test_json_latency_units():
    run = import_dmi([DATA / "dmi-json-latency.json"])
    assert cells(run, value="latency_us") == {(0, 1): 4.8, (1, 0): 5.1}  # 4800 ns; 5.1 us
    assert set(run["pattern"]) == {"latency"} and set(run["size_bytes"]) == {512}


def test_diagnosis_values_and_thresholds_as_rows():
    run = import_dmi([DATA / "dmi-dg.json"])
    values = run[run["threshold_GBps"].notna()]
    got = {
        (r.operation, r.src, r.dst): (r.bandwidth_GBps, r.threshold_GBps, r.check_result)
        for r in values.itertuples()
    }
    assert got[("p2p", 0, 1)] == (18.42, 20.0, "failed")
    assert got[("p2p", 1, 0)] == (26.21, 20.0, "success")
    assert values["pattern"].isna().all()  # no copy size: no point of a pattern
    items = run[run["operation"].str.startswith("diagnosis:")]
    assert dict(zip(items["operation"], items["check_result"])) == {
        "diagnosis:bandwidth": "FAIL",
        "diagnosis:hbm": "PASS",
    }


def test_diagnosis_lines_in_text_output():
    run = import_dmi([DATA / "dmi-dg.txt"])
    pairs = run[run["operation"] == "p2p"]
    got = {
        (int(r.src), int(r.dst)): (
            r.bandwidth_GBps,
            r.threshold_GBps,
            r.check_result,
            r.source_line,
        )
        for r in pairs.itertuples()
    }
    assert got == {(2, 5): (18.4, 20.0, "failed", 4), (5, 2): (26.3, 20.0, "success", 5)}
    d2h = run[run["operation"] == "d2h"].iloc[0]
    assert int(d2h["src"]) == 3 and pd_isna(d2h["dst"]) and d2h["bandwidth_GBps"] == 27.6
    assert run["pattern"].isna().all()


def test_json_error_object_is_the_tools_error_with_its_code(tmp_path, capsys):
    with pytest.raises(ToolReportedError) as err:
        import_dmi([DATA / "dmi-json-error.json"])
    assert err.value.code == 2
    out = tmp_path / "run"
    assert main(["import", "dmi", str(DATA / "dmi-json-error.json"), "--out", str(out)]) == 1
    msg = capsys.readouterr().err
    assert "dmi-json-error.json:2" in msg and "error 2" in msg and "device 9" in msg
    assert not out.exists()


# ---------------------------------------------------------------- hccl_test
def test_all_reduce_busbw_is_algbw_times_2_7_8_at_every_size():
    run = import_hccl_test([DATA / "hccl-all_reduce-8p.txt"])  # ranks from mpirun -n 8
    assert set(run["ranks"]) == {8} and set(run["operation"]) == {"all_reduce"}
    assert len(run) == 14 and list(run["size_bytes"]) == [8192 << k for k in range(14)]
    for alg, bus in zip(run["algbw_GBps"], run["busbw_GBps"]):
        assert bus == pytest.approx(alg * 2 * 7 / 8, rel=1e-12)
    assert set(run["check_result"]) == {"success"} and run["error_kind"].isna().all()
    assert run["time_us"].iloc[0] == 28.12 and run["algbw_GBps"].iloc[0] == 0.29132


def test_doc_spelling_failed_ranks_and_name_settings():
    run = import_hccl_test([DATA / "hccl-allgather_4ranks_doc-spelling.log"])
    assert set(run["operation"]) == {"all_gather"} and set(run["ranks"]) == {4}
    assert len(run) == 6  # the per-rank lines are not rows
    bad = run[run["check_result"] == "failed"]
    assert list(bad["size_bytes"]) == [32768]
    assert bad["error_kind"].iloc[0] == "verification"
    assert bad["error"].iloc[0] == "check failed on ranks 1,3"
    for alg, bus in zip(run["algbw_GBps"], run["busbw_GBps"]):
        assert bus == pytest.approx(alg * 3 / 4)


def test_mpirun_ranks_not_the_tests_iterations_and_null_checks():
    run = import_hccl_test([DATA / "hccl-broadcast-nocheck.txt"])
    assert set(run["ranks"]) == {16}  # mpirun -n 16, not the test's -n 3 (iterations)
    assert set(run["check_result"]) == {"NULL"}
    assert (run["busbw_GBps"] == run["algbw_GBps"]).all()


def test_options_win_over_the_capture():
    run = import_hccl_test([DATA / "hccl-all_reduce-8p.txt"], ranks=4, op="reduce_scatter")
    assert set(run["ranks"]) == {4} and set(run["operation"]) == {"reduce_scatter"}
    assert (run["busbw_GBps"] / run["algbw_GBps"]).round(12).eq(0.75).all()


def test_collective_figure_draws_algbw_and_busbw_of_the_rows():
    from ascend_p2p_lab.plots import collective_bandwidth

    run = import_hccl_test(
        [DATA / "hccl-all_reduce-8p.txt", DATA / "hccl-allgather_4ranks_doc-spelling.log"]
    )
    fig = collective_bandwidth(run)
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    alg, bus = lines["all_reduce, 8 ranks: algbw"], lines["all_reduce, 8 ranks: busbw"]
    ar = run[run["operation"] == "all_reduce"]
    assert list(alg.get_xdata()) == list(ar["size_bytes"])
    assert list(alg.get_ydata()) == pytest.approx(list(ar["algbw_GBps"]))
    assert list(bus.get_ydata()) == pytest.approx(list(ar["busbw_GBps"]))
    assert bus.get_linestyle() == "--"
    failed = lines["check failed"]
    assert list(failed.get_xdata()) == [32768]
    assert "hccl_test" in fig.axes[0].get_title()
