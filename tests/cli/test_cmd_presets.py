"""``ascend-p2p-lab presets`` (``cli/cmd_presets.py``): every preset, one per line."""

from __future__ import annotations

from helpers import run_cli


def test_presets_lists_every_preset(capsys) -> None:
    code, out, _ = run_cli(capsys, "presets")
    assert code == 0
    for name in (
        "atlas800-9000",
        "atlas800t-a2",
        "atlas800t-a3",
        "atlas800i-a2-pcie",
        "atlas300i-duo",
        "atlas300i-310",
    ):
        assert name in out
