"""The collectives command and what reads its runs: the JSON scripts rely on, bad input
before device work, the run folder, ``report`` (the hccl_test table and figures, for an
import too: issue 30 item 8), ``compare`` of an hccl_test import against a preset or a
P2P run of the server, and predictions from a P2P run's links (``--links``)."""

from __future__ import annotations

import pandas as pd


def test_the_table_says_what_the_samples_checks_said() -> None:
    """An op and size is failed when one of its samples failed its check, success when
    every one passed, NULL when none was checked (hccl_test's words)."""
    from ascend_p2p_lab.collectives.table import summary

    rows = pd.DataFrame(
        {
            "operation": "all_gather",
            "ranks": 8,
            "size_bytes": [1, 1, 2, 2, 3, 3],
            "time_us": 10.0,
            "algbw_GBps": 1.0,
            "busbw_GBps": 0.875,
            "check_result": ["success", "failed", "success", "success", None, None],
        }
    )
    assert summary(rows)["check_result"].tolist() == ["failed", "success", "NULL"]
