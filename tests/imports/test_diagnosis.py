"""ascend_p2p_lab.imports.diagnosis: ascend-dmi's bandwidth diagnosis lines (``--dg``)
as rows with their threshold and verdict."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.imports.diagnosis import DIAG_LINE, device_ends, diagnosis_row


def _row(line: str) -> dict:
    m = DIAG_LINE.search(line)
    assert m is not None, line
    return diagnosis_row(m, "dg.txt:4", 4)


def test_a_failed_pair_line_keeps_value_threshold_and_ends() -> None:
    row = _row(
        "  p2p unidirectional bandwidth diagnosis failed from device 2 to device 5 "
        "with bandwidth 18.40 / 20"
    )
    assert (row["src"], row["dst"], row["direction"], row["operation"]) == (2, 5, "uni", "p2p")
    assert row["bandwidth_GBps"] == pytest.approx(18.4)
    assert row["threshold_GBps"] == pytest.approx(20.0)
    assert row["check_result"] == "failed" and row["source_line"] == 4


def test_a_passed_host_line_names_its_device_end() -> None:
    row = _row("  d2h bandwidth diagnosis passed on device 3 with bandwidth 27.60 / 20")
    assert row["check_result"] == "success" and row["operation"] == "d2h"
    assert row["src"] == 3 and "dst" not in row
    assert _row("h2d bandwidth diagnosis pass on device 1 with bandwidth 30 / 20")["dst"] == 1


def test_a_bidirectional_line_is_a_total() -> None:
    row = _row(
        "p2p bidirectional bandwidth diagnosis passed from device 0 to device 1 "
        "with bandwidth 50.0 / 40"
    )
    assert row["direction"] == "bi" and row["bidir_total_GBps"] == pytest.approx(50.0)
    assert "bandwidth_GBps" not in row


def test_the_device_ends_of_each_kind() -> None:
    assert device_ends("h2d", 3) == {"pattern": "h2d", "path": "host", "peer": "off", "dst": 3}
    assert device_ends("d2h", 1)["src"] == 1
    assert device_ends("d2d", 2) == {"src": 2, "dst": 2}


def test_other_lines_are_no_diagnosis() -> None:
    assert DIAG_LINE.search("Diagnosis items            Result") is None
