"""``acl.app_log`` (sim/applog.py): lines written where CANN writes its host logs, at the
level asked, or printed when ASCEND_LOG_PRINT_TO_STDOUT asks for it."""

from __future__ import annotations

import os

import pytest

from ascend_p2p_lab.sim import simulated_acl


# ------------------------------------------------------------------------- app_log
def test_app_log_writes_cann_plog_lines_at_the_level_asked(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_PROCESS_LOG_PATH", str(tmp_path))
    monkeypatch.delenv("ASCEND_GLOBAL_LOG_LEVEL", raising=False)
    acl = simulated_acl("atlas800t-a2")
    assert acl.app_log(1, "info: below the default ERROR level") is None
    assert acl.simulator.app_log_path is None
    acl.app_log(3, "[acllite_utils.py:42 copy]Copy failed")
    monkeypatch.setenv("ASCEND_GLOBAL_LOG_LEVEL", "1")
    acl.app_log(1, "now kept")
    path = acl.simulator.app_log_path
    assert path.parent == tmp_path / "debug" / "plog" and path.name.startswith(
        f"plog-{os.getpid()}_"
    )
    lines = path.read_text().splitlines()
    assert len(lines) == 2 and lines[0].startswith(f"[ERROR] APP({os.getpid()},")
    assert lines[0].endswith("Copy failed") and lines[1].startswith("[INFO]")
    with pytest.raises(TypeError):
        acl.app_log("3", "the level is an int")  # WrapAclAppLog: "is"


def test_app_log_prints_when_asked_to(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("ASCEND_LOG_PRINT_TO_STDOUT", "1")
    monkeypatch.setenv("ASCEND_PROCESS_LOG_PATH", str(tmp_path))
    acl = simulated_acl("atlas800t-a2")
    acl.app_log(3, "to the terminal")
    assert "to the terminal" in capsys.readouterr().out and not list(tmp_path.iterdir())
