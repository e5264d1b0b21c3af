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


def test_samples_that_disagree_between_a_budget_and_a_link_say_varies() -> None:
    """Issue 38 item 1: one sample naming a card budget (no link: NA src/dst in nullable
    columns) and others a link crashed the summary (``NA == 7``); now the point says
    ``varies`` and lists what the samples named, most named first."""
    from ascend_p2p_lab.collectives.table import summary, table_text

    rows = pd.DataFrame(
        {
            "operation": "all_reduce",
            "ranks": 16,
            "size_bytes": [256, 256, 256, 8, 8],
            "time_us": 10.0,
            "algbw_GBps": 1.0,
            "busbw_GBps": 1.875,
            "predicted_busbw_GBps": 2.0,
            "check_result": "success",
            "bottleneck_src": pd.array([None, 7, 7, 3, 3], dtype="Int64"),
            "bottleneck_dst": pd.array([None, 8, 8, 4, 4], dtype="Int64"),
            "bottleneck_budget": pd.array(["card[0,1]:both", None, None, None, None], "string"),
        }
    )
    table = summary(rows)
    big, small = (table[table["size_bytes"] == s].iloc[0] for s in (256, 8))
    assert big["bottleneck_candidates"] == "7->8;card[0,1]:both"
    assert (big["bottleneck_src"], big["bottleneck_dst"], big["bottleneck_samples"]) == (7, 8, 2)
    assert small["bottleneck_candidates"] == "" and small["bottleneck_samples"] == 2
    lines = table_text(table).splitlines()
    assert lines[2].rstrip().endswith("3->4") and lines[3].rstrip().endswith("varies")
