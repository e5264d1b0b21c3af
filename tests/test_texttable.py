"""The one printer of text tables (``texttable.py``), and every table that goes through
it printed byte for byte as before it (issue 41 item 4): the N x N grid, hccl_test's
layout (``collectives``' table and ``compare`` of collectives against their links),
``check``'s item lines. ``tests/data/golden/tables-0ed824f.json`` holds what the commit
before the printer (0ed824f) printed for the same inputs."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pandas as pd
import pytest

from ascend_p2p_lab.texttable import HCCL_SEP, Column, print_table, row_line, table_lines

GOLDEN = Path(__file__).parent / "data" / "golden" / "tables-0ed824f.json"


# ------------------------------------------------------------------ the printer
def test_a_fitted_column_is_as_wide_as_its_widest_cell_and_gaps_replace_the_separator() -> None:
    cols = [Column("name", fit=True), Column("n", 3, ">"), Column("what", gap=" | ")]
    assert table_lines([["a3-card", 16, "x"], ["a2", 8, "y"]], cols) == [
        "name       n | what",
        "a3-card   16 | x",
        "a2         8 | y",
    ]


def test_strip_trims_the_rows_not_the_heading_and_a_wide_cell_pushes_right() -> None:
    cols = [Column("size", 4, ">"), Column("alg", 6)]
    assert table_lines([[123456, "ring"]], cols, sep=HCCL_SEP, strip=True) == [
        "size | alg   ",
        "123456 | ring",
    ]


def test_a_row_of_the_wrong_length_is_refused() -> None:
    with pytest.raises(ValueError, match="a row of 1 cells in a table of 2 columns"):
        table_lines([["x"]], [Column(), Column()])


def test_print_table_prints_its_title_then_its_lines(capsys) -> None:
    print_table([["a", 1]], [Column(width=2), Column(width=2, align=">")], title="t", header=False)
    assert capsys.readouterr().out == "t\na    1\n"
    assert row_line(["a", 1], [Column(width=2), Column()], sep="") == "a 1"


# ------------------------------------------------- every table as it was printed
def _grid(align: str) -> str:
    """An N x N grid with a label and a cell wider than the rest."""
    from ascend_p2p_lab.terminal import print_grid

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print_grid(
            "title",
            ["0", "1", "NPU10"],
            [["—", "1.5", "122.25"], ["3", "—", "x"], ["4", "5", "—"]],
            align=align,
        )
    return buf.getvalue()


def _hccl(with_prediction: bool, algorithm_only: bool = False) -> str:
    """hccl_test's table: a lost point (its error after the row), two ops."""
    from ascend_p2p_lab.collectives.table import summary, table_text

    rows = pd.DataFrame(
        {
            "operation": ["all_reduce"] * 3 + ["broadcast"] * 2,
            "ranks": [8, 8, 8, 4, 4],
            "devices": ["", "", "", "0,1,2,3", "0,1,2,3"],
            "size_bytes": [1024, 1024, 1 << 30, 8, 4096],
            "time_us": [10.0, 12.0, float("nan"), 3.25, 1234.5],
            "algbw_GBps": [0.1, 0.1, float("nan"), 0.002, 3.3],
            "busbw_GBps": [0.175, 0.175, float("nan"), 0.002, 3.3],
            "check_result": ["success", "success", None, "failed", "success"],
            "error": [None, None, "AclError 507011", None, None],
        }
    )
    if algorithm_only:
        rows = rows.assign(algorithm=["ring", "ring", "ring", "mesh", "mesh"])
    if with_prediction:
        rows = rows.assign(
            predicted_busbw_GBps=[0.2, 0.2, 20.0, 0.004, 3.0],
            algorithm=["ring", "ring", "ring", "mesh", "mesh"],
            bottleneck_src=pd.array([0, 0, None, 2, 2], dtype="Int64"),
            bottleneck_dst=pd.array([1, 1, None, 5, 5], dtype="Int64"),
        )
    return table_text(summary(rows))


def _versus() -> str:
    """Collectives against their links: a point below (its mark), one wider than its column."""
    from ascend_p2p_lab.collectives.versuslinks import compare_text

    t = pd.DataFrame(
        {
            "operation": ["all_reduce", "all_reduce", "broadcast"],
            "ranks": [8, 8, 4],
            "imported": [True, True, False],
            "size_bytes": [1024, 1 << 30, 8],
            "time_us": [10.0, 123456.789, 3.25],
            "busbw_GBps": [0.175, 19.5, 0.002],
            "predicted_busbw_GBps": [0.2, 19.0, 0.00001],
            "ratio": [0.875, 1.026, 200.0],
            "bound_busbw_GBps": [19.7, 19.7, 1.0],
            "of_bound": [0.0089, 0.99, 0.002],
            "algorithm": ["ring", "reduce_bcast", "mesh"],
            "limit": ["0->1", "7 alike (1->0, ...)", ""],
        }
    )
    return compare_text(t, 0.9)


def _items() -> str:
    """Item lines: a reason, a long id, a short and a long host."""
    from ascend_p2p_lab.check.render import item_line

    a = pd.Series(
        {
            "status": "FAIL",
            "id": "bandwidth uni pull 0->1",
            "measured": 12.5,
            "criterion": 23.47,
            "unit": "GB/s",
            "reason": "lost 2 samples",
        }
    )
    b = pd.Series(
        {
            "status": "PASS",
            "id": "x" * 45,
            "measured": 1,
            "criterion": 1,
            "unit": "bool",
            "host": "sim-10",
        }
    )
    c = pd.Series(
        {
            "status": "SKIP",
            "id": "latency 0->1",
            "measured": None,
            "criterion": 9.0,
            "unit": "us",
            "host": "a-very-long-host-name",
        }
    )
    return "\n".join(item_line(x) for x in (a, b, c))


CASES = {
    "grid_right": lambda: _grid(">"),
    "grid_left": lambda: _grid("<"),
    "hccl_plain": lambda: _hccl(False),
    "hccl_predicted": lambda: _hccl(True),
    "hccl_algorithm": lambda: _hccl(False, True),
    "versus": _versus,
    "items": _items,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_table_is_printed_byte_for_byte_as_before_the_printer(case: str) -> None:
    assert CASES[case]() == json.loads(GOLDEN.read_text(encoding="utf-8"))[case]
