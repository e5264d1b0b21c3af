"""The command line starts at once (``cli/__init__.py``, ``cli/parser.py``, every
``cli/cmd_*.py``): the parser and every command's ``--help`` import no pandas, numpy,
matplotlib, simulator, runtime or measurement code (each command imports what it needs
when it runs), and a Ctrl-C at any moment of a long command exits 130 without a traceback.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

#: What neither the parser nor any command's --help may import.
HEAVY = (
    "pandas",
    "numpy",
    "matplotlib",
    "ascend_p2p_lab.sim",
    "ascend_p2p_lab.runtime",
    "ascend_p2p_lab.measure",
    "ascend_p2p_lab.results",
)

HELP_CHILD = r"""
import contextlib, io, json, sys
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.cli.parser import COMMANDS
codes = {}
for argv in [["--help"], *[[c.NAME, "--help"] for c in COMMANDS]]:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        try:
            main(argv)
        except SystemExit as exc:
            codes[argv[0]] = (exc.code, len(out.getvalue()))
heavy = json.loads(sys.argv[1])
loaded = sorted(m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heavy))
print(json.dumps({"codes": codes, "loaded": loaded}))
"""


def test_every_help_imports_nothing_heavy() -> None:
    """``--help`` and each command's ``--help`` print their text and exit 0, in a fresh
    interpreter that has then imported none of HEAVY."""
    proc = subprocess.run(
        [sys.executable, "-c", HELP_CHILD, json.dumps(HEAVY)],
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(proc.stdout)
    assert got["loaded"] == []
    assert len(got["codes"]) == 18  # the top level and 17 commands
    assert all(code == 0 and size > 200 for code, size in got["codes"].values())


@pytest.mark.parametrize("delay_s", [0.1, 0.5, 1.0, 2.0])
def test_ctrl_c_at_any_moment_exits_130_without_traceback(tmp_path, delay_s) -> None:
    """SIGINT to the demo's process group (what Ctrl-C in a terminal sends): in its
    imports (0.1 s), its probe, its sweep's workers: exit 130 and no traceback. A test of
    real time: the signal must arrive while the command runs (about 5 s in all)."""
    demo = ["demo", "--out", str(tmp_path / "d"), "--no-progress"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "ascend_p2p_lab.cli", *demo],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    time.sleep(delay_s)
    os.killpg(proc.pid, signal.SIGINT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
