"""Choosing the backend (``runtime/backend.py``): a bad preset from the environment says
it came from there (issue 30 item 18)."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.cli import main


def test_a_bad_preset_from_the_environment_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ASCEND_P2P_LAB_PRESET", "atlas-nope")
    assert main(["probe", "--backend", "sim"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown preset 'atlas-nope'" in err[0], err
    assert "from the environment: ASCEND_P2P_LAB_PRESET='atlas-nope'" in err[0]


def test_a_bad_preset_given_on_the_command_line_names_no_environment(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ASCEND_P2P_LAB_PRESET", "atlas800t-a3")  # a good one, not used
    assert main(["probe", "--backend", "sim", "--preset", "atlas-nope"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown preset 'atlas-nope'" in err[0], err
    assert "environment" not in err[0]
