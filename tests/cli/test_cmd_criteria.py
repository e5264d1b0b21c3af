"""``ascend-p2p-lab criteria`` (``cli/cmd_criteria.py``): criteria written, then read back
by ``check``.
"""

from __future__ import annotations

from ascend_p2p_lab.check import load_criteria
from ascend_p2p_lab.cli import main


def test_cli_criteria_then_check_round_trip(tmp_path, capsys):
    out = tmp_path / "a2.toml"
    assert (
        main(["criteria", "--preset", "atlas800t-a2", "--fraction", "0.8", "--out", str(out)]) == 0
    )
    c = load_criteria(out)
    assert c.fraction == 0.8 and "x 0.8" in c.table["basis"].iloc[0]
    assert main(["criteria", "--preset", "atlas800t-a2", "--out", str(out)]) == 2  # exists
    assert (
        main(
            [
                "criteria",
                "--preset",
                "atlas800t-a2",
                "--fraction",
                "1.5",
                "--out",
                str(tmp_path / "x.toml"),
            ]
        )
        == 2
    )
