"""The importers on captures written in the tools' formats (tests/data/vendor, README there).

Fixtures are asymmetric (2->5 lowered, 5->2 not; every row of a matrix different), so a
parser that swaps rows and columns, drops a unit or reads by position fails here."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_p2p_lab.imports import (
    ImportInputError,
)
from ascend_p2p_lab.imports.common import Capture
from ascend_p2p_lab.imports.dmi_text import parse as parse_dmi_text


def capture(text: str, name: str = "cap.txt") -> Capture:
    return Capture(Path(name), text, "")


MATRIX = [[0, 26.1, 24.3], [25.2, 0, 26.8], [23.4, 22.5, 0]]


@pytest.mark.parametrize(
    "sep,eol,label",
    [
        ("  ", "\n", ""),
        ("\t", "\r\n", ""),
        ("      ", "\n", "src\\dst "),
        (" ", "  \n", ""),
    ],
)
def test_matrix_whitespace_variants_read_the_same(sep, eol, label):
    head = label + sep.join(str(j) for j in range(3))
    body = eol.join(sep.join([str(i), *map(str, row)]) for i, row in enumerate(MATRIX))
    text = f"Unidirectional Peer to Peer Test{eol}{head}{eol}{body}{eol}"
    got = {
        (r["src"], r["dst"]): r["bandwidth_GBps"]
        for r in parse_dmi_text(capture(text), size=4096).rows
    }
    assert got == {(i, j): MATRIX[i][j] for i in range(3) for j in range(3) if i != j}


def test_header_order_decides_the_columns_not_the_position():
    text = "Unidirectional Peer to Peer Test\n  1    0\n1  0  11.0\n0  22.0  0\n"
    got = {
        (r["src"], r["dst"]): r["bandwidth_GBps"]
        for r in parse_dmi_text(capture(text), size=4096).rows
    }
    assert got == {(1, 0): 11.0, (0, 1): 22.0}


def test_table_columns_found_by_name_in_any_order():
    text = (
        "h2d device 1\nBandwidth(MB/s)  ID  Elapsed Time(us)  Size(Bytes)  Execute Times\n"
        "1000.0  0  20.0  1000  20\n"
    )
    row = parse_dmi_text(capture(text)).rows[0]
    assert (row["bandwidth_GBps"], row["size_bytes"], row["copies"], row["dst"]) == (
        1.0,
        1000,
        20,
        1,
    )  # MB/s read as MB/s, not GB/s


# ---------------------------------------------------------------- property
@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 9).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(
                st.lists(st.integers(1, 99999), min_size=n, max_size=n), min_size=n, max_size=n
            ),
            st.sampled_from([" ", "  ", "\t", "     "]),
            st.sampled_from(["\n", "\r\n"]),
            st.permutations(list(range(n))),
        )
    )
)
def test_a_matrix_written_in_the_dmi_layout_reads_back_the_same(case):
    n, raw, sep, eol, order = case
    values = [[0.0 if i == j else raw[i][j] / 100 for j in range(n)] for i in range(n)]
    head = sep + sep.join(str(j) for j in order)
    rows = [sep.join([str(i), *(f"{values[i][j]:g}" for j in order)]) for i in order]
    text = eol.join(["Bidirectional Peer to Peer Test", head, *rows]) + eol
    got = {
        (r["src"], r["dst"]): r["bidir_total_GBps"]
        for r in parse_dmi_text(capture(text), size=1 << 20).rows
    }
    assert got == {(i, j): values[i][j] for i in range(n) for j in range(n) if i != j}


def test_import_input_error_is_a_value_error_with_where():
    with pytest.raises(ImportInputError) as err:
        parse_dmi_text(capture("Unidirectional Peer to Peer Test\n"), size=1)
    assert err.value.where == "cap.txt:1"


def test_a_tables_time_is_the_window_of_all_its_copies_or_of_one():
    """1 MiB at 10.49 GB/s: 1000 us is the window of 10 copies, 100 us of one copy."""
    from ascend_p2p_lab.imports.dmi_text import rate_window

    assert rate_window(1 << 20, 10.49, "10.49", 1000.0, 10) == (1000.0, 10)
    assert rate_window(1 << 20, 10.49, "10.49", 100.0, 10) == (100.0, 1)


def test_the_size_a_capture_states_wins_over_the_size_option():
    """A ``size:`` line above the matrix is the copy size; --size only fills a silent one."""
    text = "size: 4096\nUnidirectional Peer to Peer Test\n   0     1\n0  0     26.2\n1  25.9  0\n"
    rows = parse_dmi_text(capture(text), size=1 << 28).rows
    assert {r["size_bytes"] for r in rows} == {4096}
    silent = text.split("\n", 1)[1]
    assert {r["size_bytes"] for r in parse_dmi_text(capture(silent), size=1 << 28).rows} == {
        1 << 28
    }
