"""The collectives command and what reads its runs: the JSON scripts rely on, bad input
before device work, the run folder, ``report`` (the hccl_test table and figures, for an
import too: issue 30 item 8), ``compare`` of an hccl_test import against a preset or a
P2P run of the server, and predictions from a P2P run's links (``--links``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import (
    SIM,
    _json,
    saved_p2p_slow,
)

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.history import HistoryStore


@pytest.mark.parametrize(
    "args,what",
    [
        (["--ops", "all_gather,allgather"], "unknown operation 'allgather'"),
        (["--sizes", "1 KiB-ish"], "--sizes"),
        (["--algorithm", "ring", "--ops", "all_to_all"], "ring does not build all_to_all"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, args, what) -> None:
    out = tmp_path / "run"
    assert main(["collectives", *SIM, "--out", str(out), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert what in err and len(err.splitlines()) == 1
    assert not out.exists()


def test_a_slow_link_shows_in_the_table(capsys, tmp_path) -> None:
    a2 = Path(__file__).resolve().parents[1] / "data" / "a2-slow-2to5.toml"
    assert (
        main(
            [
                "collectives",
                *SIM,
                "--topology",
                str(a2),
                "--ops",
                "all_gather",
                "--sizes",
                "256MiB",
                "--samples",
                "3",
                "--history",
                str(tmp_path / "h.db"),
            ]
        )
        == 0
    )
    records = HistoryStore(tmp_path / "h.db").read()  # --history: the op's point
    assert records[["command", "pattern", "size_bytes"]].values.tolist() == [
        ["collectives", "collective", 256 << 20]
    ]
    assert "all_gather" in records["item"].iloc[0] and records["value"].iloc[0] > 0
    text = capsys.readouterr().out
    head = next(ln for ln in text.splitlines() if "data_size(Bytes)" in ln)
    assert [c.strip() for c in head.split("|")][:5] == [
        "data_size(Bytes)",
        "aveg_time(us)",
        "alg_bandwidth(GB/s)",
        "bus_bandwidth(GB/s)",
        "check_result",
    ]
    row = next(ln for ln in text.splitlines() if ln.strip().startswith("268435456"))
    assert row.rstrip().endswith("2->5")
    assert float(row.split("|")[6]) < 0.6  # the ratio: half the healthy links' prediction


def test_report_draws_busbw_against_the_links(tmp_path) -> None:
    out = tmp_path / "run"
    assert (
        main(
            [
                "collectives",
                *SIM,
                "--ops",
                "all_gather,reduce_scatter",
                "--sizes",
                "8KiB,8MiB",
                "--samples",
                "1",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert main(["report", str(out)]) == 0
    assert {"collective_bandwidth.png", "collectives_vs_links.png"} <= {
        p.name for p in out.iterdir()
    }


SIM_2 = ["--backend", "sim", "--no-progress"]


@pytest.fixture(scope="module")
def p2p_slow(tmp_path_factory) -> Path:
    """A P2P run of an A2 whose link 2 -> 5 runs at half speed (helpers.saved_p2p_slow)."""
    return saved_p2p_slow(tmp_path_factory.mktemp("p2p") / "run")


def test_links_from_a_p2p_run_predict_the_slow_link(capsys, p2p_slow) -> None:
    """Predicted from a P2P run that saw 2 -> 5 at half speed, the mesh all-gather's
    prediction halves with it, and the prediction matches what the simulator does."""
    a2 = Path(__file__).resolve().parents[1] / "data" / "a2-slow-2to5.toml"
    _, data = _json(
        capsys,
        [
            "collectives",
            *SIM_2,
            "--topology",
            str(a2),
            "--ops",
            "all_gather",
            "--devices",
            "0-5",
            "--sizes",
            "64MiB",
            "--samples",
            "1",
            "--links",
            str(p2p_slow),
            "--format",
            "json",
        ],
    )
    [row] = data["collectives"]
    assert data["predicted_from"].startswith("run ")
    assert row["busbw_GBps"] == pytest.approx(row["predicted_busbw_GBps"], rel=0.1)
    assert row["bottleneck"] == [2, 5]
    assert row["predicted_busbw_GBps"] < 0.6 * 5 * 26.2
