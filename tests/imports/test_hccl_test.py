"""ascend_p2p_lab.imports.hccl_test: hccl_test's tables (data_size | aveg_time |
alg_bandwidth | check_result), on the captures of tests/data/vendor."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_p2p_lab.imports import hccl_test, import_hccl_test
from ascend_p2p_lab.imports.common import Capture, read_capture

VENDOR = Path(__file__).resolve().parents[1] / "data" / "vendor"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("./bin/all_reduce_test", "all_reduce"),
        ("allgather_4ranks.log", "all_gather"),
        ("reducescatter", "reduce_scatter"),
        ("alltoall_test", "all_to_all"),
        ("broadcast_test", "broadcast"),
        ("nothing here", None),
    ],
)
def test_the_operation_is_read_from_a_name(text: str, expected: str | None) -> None:
    assert hccl_test.operation_name(text) == expected


def test_an_all_reduce_table_gives_a_row_per_size_with_its_bus_bandwidth() -> None:
    parsed = hccl_test.parse(read_capture(VENDOR / "hccl-all_reduce-8p.txt"))
    assert parsed.command.startswith("mpirun -n 8 ./bin/all_reduce_test")
    sizes = [r["size_bytes"] for r in parsed.rows]
    assert sizes == [8192 << k for k in range(14)]
    first = parsed.rows[0]
    assert (first["operation"], first["ranks"], first["check_result"]) == (
        "all_reduce",
        8,
        "success",
    )
    assert first["time_us"] == pytest.approx(28.12)
    assert first["algbw_GBps"] == pytest.approx(0.29132)
    # all_reduce moves 2 (n - 1) / n of the data over the bus
    assert first["busbw_GBps"] == pytest.approx(0.29132 * 2 * 7 / 8)
    assert first["source_line"] == 4


def test_failed_ranks_are_kept_by_size() -> None:
    lines = [
        "local rank_id 3, check result failed, 8192 | x",
        "all fine",
        "local rank_id 5 , check result failed , 8192 |",
        "local rank_id 1, check result failed, 16384 |",
    ]
    assert hccl_test.failed_ranks(lines, "cap.txt") == {8192: [3, 5], 16384: [1]}


# ------------------------------------------------------------------ issue 30 (its last items)
DATA = Path(__file__).parent.parent / "data" / "vendor"


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.split("|")]


@pytest.mark.parametrize(
    "name",
    [
        "hccl-all_reduce-8p.txt",
        "hccl-allgather_4ranks_doc-spelling.log",
        "hccl-broadcast-nocheck.txt",
    ],
)
def test_each_row_names_the_line_it_was_read_from(name: str) -> None:
    lines = (DATA / name).read_text().splitlines()
    run = import_hccl_test([DATA / name])
    assert len(run) > 1 and run["source_line"].notna().all()
    for row in run.itertuples():
        cells = _cells(lines[int(row.source_line) - 1])
        assert cells[0] == str(row.size_bytes), (name, row.source_line, cells)
        assert float(cells[1]) == row.time_us and float(cells[2]) == row.algbw_GBps


def test_a_row_after_blank_and_per_rank_lines_keeps_its_own_line(tmp_path: Path) -> None:
    """Lines of different sizes and times, a blank line and per-rank failures inside the
    table: a row one line early or late names another size's line, or no row's."""
    capture = tmp_path / "all_reduce_4ranks.txt"
    capture.write_text(
        "# mpirun -n 4 ./bin/all_reduce_test -b 8K -e 32K -f 2 -d fp32 -o sum -p 4\n"
        "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result:\n"
        "8192              | 28.12          | 0.29132              | success\n"
        "\n"
        "local rank_id 2, check result failed, 16384 | 30.00 | 0.54613 | failed\n"
        "16384             | 30.00          | 0.54613              | failed\n"
        "32768             | 31.50          | 1.04025              | success\n"
    )
    run = import_hccl_test([capture])
    assert list(run["size_bytes"]) == [8192, 16384, 32768]
    assert list(run["source_line"]) == [3, 6, 7]


def test_ranks_are_mpiruns_n_over_the_npus_per_node_and_a_failed_check_is_an_error() -> None:
    """Two nodes of 8 NPUs (``-n 16 ... -p 8``) are 16 ranks; a size some ranks failed
    to check is a verification failure, the others are not."""
    text = (
        "# mpirun -n 16 ./bin/all_reduce_test -b 8K -e 16K -f 2 -d fp32 -o sum -p 8\n"
        "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result:\n"
        "8192              | 28.12          | 0.29132              | success\n"
        "16384             | 28.24          | 0.58015              | failed\n"
        "local rank_id 3, check result failed, 16384 |\n"
    )
    rows = hccl_test.parse(Capture(Path("run.txt"), text, "")).rows
    assert [r["ranks"] for r in rows] == [16, 16]
    assert [r.get("error_kind") for r in rows] == [None, "verification"]
    assert rows[1]["error"] == "check failed on ranks 3"
