"""IPC memory across processes on the simulator (issue 23): pyACL's documented two-process
flow runs unchanged, each misuse returns its code, sweep --processes matches in-process
bandwidth with verified bytes, and nothing stays exported after a kill or an interrupt.

Every test that starts processes stops them itself, with timeouts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import TIMEOUT_S


def test_a_dead_processs_folder_is_collected_but_not_one_in_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ascend_p2p_lab.sim import ipcstate

    monkeypatch.setattr(ipcstate, "_base_dir", lambda: str(tmp_path))
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    ).stdout.strip()
    stale = tmp_path / f"ascend_p2p_lab_ipc_{dead}_aa"
    busy = tmp_path / f"ascend_p2p_lab_ipc_{dead}_bb"
    for folder, holder in ((stale, int(dead)), (busy, os.getpid())):
        reg = ipcstate.Registry(str(folder))
        reg.add_export("k", pid=holder, device=0, size=1, path="buf", offset=0, flags=1)
        (folder / "buf").write_bytes(b"x")
        reg.close()
        for p in (folder, *folder.iterdir()):
            os.utime(p, (0, 0))
    assert ipcstate.collect_stale() == [str(stale)]
    assert not stale.exists() and busy.exists()  # a live process still exports from busy
    assert ipcstate.collect_stale(min_age_s=1e12) == []
