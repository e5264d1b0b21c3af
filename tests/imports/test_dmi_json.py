"""ascend_p2p_lab.imports.dmi_json: ascend-dmi's JSON output, on the captures of
tests/data/vendor (README there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_p2p_lab.imports import dmi_json
from ascend_p2p_lab.imports.common import ToolReportedError, read_capture

VENDOR = Path(__file__).resolve().parents[1] / "data" / "vendor"


def test_json_is_told_from_a_shell_prompt() -> None:
    assert dmi_json.looks_like_json('{"Latency": []}')
    assert dmi_json.looks_like_json('[{"a": 1}]') and dmi_json.looks_like_json("[\n")
    assert not dmi_json.looks_like_json("[root@a2 ~]# ascend-dmi --bw")
    assert not dmi_json.looks_like_json("Bandwidth test ...")


def test_bandwidth_rows_carry_their_pair_size_and_line() -> None:
    parsed = dmi_json.parse(read_capture(VENDOR / "dmi-json-bandwidths.json"))
    assert len(parsed.rows) == 5
    row = parsed.rows[0]
    assert (row["src"], row["dst"], row["size_bytes"]) == (7, 6, 2)
    assert row["bandwidth_GBps"] == pytest.approx(0.0004)
    assert row["elapsed_us"] == pytest.approx(4.8)
    assert (row["pattern"], row["direction"], row["path"], row["source_line"]) == (
        "pair",
        "uni",
        "p2p",
        9,
    )


def test_a_latency_row_gives_the_bandwidth_of_its_size() -> None:
    parsed = dmi_json.parse(read_capture(VENDOR / "dmi-json-latency.json"))
    row = parsed.rows[0]
    assert row["pattern"] == "latency" and (row["src"], row["dst"]) == (0, 1)
    assert row["latency_us"] == pytest.approx(4.8)
    # 512 bytes in 4.8 us, in decimal GB/s
    assert row["bandwidth_GBps"] == pytest.approx(512 / 4.8 / 1e3)


def test_an_error_the_tool_reports_names_its_line() -> None:
    with pytest.raises(ToolReportedError, match=r"dmi-json-error\.json:2: .*device 9"):
        dmi_json.parse(read_capture(VENDOR / "dmi-json-error.json"))
