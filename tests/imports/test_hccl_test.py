"""hccl_test's output (``imports/hccl_test.py``): every row's ``source_line`` is the line
it was read from (issue 30 item 24)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_p2p_lab.imports import import_hccl_test

DATA = Path(__file__).parent.parent / "data" / "vendor"


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.split("|")]


@pytest.mark.parametrize("name", ["hccl-all_reduce-8p.txt",
                                  "hccl-allgather_4ranks_doc-spelling.log",
                                  "hccl-broadcast-nocheck.txt"])
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
        "32768             | 31.50          | 1.04025              | success\n")
    run = import_hccl_test([capture])
    assert list(run["size_bytes"]) == [8192, 16384, 32768]
    assert list(run["source_line"]) == [3, 6, 7]
