"""``ascend-p2p-lab sim-path`` (``cli/cmd_sim_path.py``): a folder whose ``acl`` package
is the simulator, which a script of its own imports.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.sim import (
    shim_path,
)


def test_sim_path_gives_a_working_acl_package(tmp_path) -> None:
    path = subprocess.run(
        [sys.executable, "-m", "ascend_p2p_lab.cli", "sim-path"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    script = (
        "import acl; print(acl.init(), acl.rt.get_device_count(), acl.get_soc_name(), "
        "acl.__simulated__); acl.finalize()"
    )
    env = {"PYTHONPATH": path, "ASCEND_P2P_LAB_PRESET": "atlas800t-a3", "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert out.strip() == "0 (16, 0) Ascend910_9382 True"


# ------------------------------------------------------------------------------- the shim
def test_sim_path_command_prints_the_shim_folder(capsys: pytest.CaptureFixture[str]) -> None:

    assert main(["sim-path"]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed == str(shim_path())
    assert (shim_path() / "acl" / "__init__.py").is_file()
