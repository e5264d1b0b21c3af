"""The command line's contract across commands (``cli/__init__.py``: ``main``): bad
arguments and damaged run folders give one line and exit 2 for every command that reads
them, output paths are checked before any device work, the console script, and an
unexpected exception is one line and a traceback file; and the command line starts at
once (issue 42): the parser and every command's ``--help`` import no pandas, numpy,
matplotlib, simulator, runtime or measurement code, and a Ctrl-C at any moment of a long
command exits 130 without a traceback.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from helpers import run_cli

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.cli.parser import COMMANDS
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.run import Run


# ---------------------------------------------------------------- item 21: a device outside
def _damaged(tmp_path: Path, column: str, value: int) -> Path:
    """An 8-device A2 run whose one row names ``column`` = ``value``."""
    import pandas as pd

    from ascend_p2p_lab import open_runtime
    from ascend_p2p_lab.run.folder import save

    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(rt, pairs="0-1,1-0", sizes=["1MiB", "16MiB"], samples=2, progress=False)
    folder = tmp_path / f"run-{column}"
    save(run, folder)
    for name in ("samples.parquet", "samples.csv"):
        path = folder / name
        rows = pd.read_parquet(path) if name.endswith("parquet") else pd.read_csv(path)
        rows.loc[0, column] = value
        rows.to_parquet(path) if name.endswith("parquet") else rows.to_csv(path, index=False)
    return folder


# ------------------------------------------------------------------ damaged run folders
@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory):

    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(rt, pairs="0-1,1-0", sizes="4KiB,64KiB", samples=1, progress=False)
    return Run.of(run).save(tmp_path_factory.mktemp("runs") / "run")


def _meta(**change):
    def damage(folder):
        meta = json.loads((folder / "run.json").read_text())
        meta.update(change)
        for key in [k for k, v in change.items() if v is DROP]:
            del meta[key]
        (folder / "run.json").write_text(json.dumps(meta))

    return damage


def _text_bandwidth(folder) -> None:
    frame = pd.read_parquet(folder / "samples.parquet")
    frame["bandwidth_GBps"] = frame["bandwidth_GBps"].map(lambda v: f"{v:.3f}")
    frame.to_parquet(folder / "samples.parquet", index=False)


DROP = object()


@pytest.fixture
def no_device(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if a command opens a runtime (bad input must be caught before)."""
    import ascend_p2p_lab.runtime as runtime

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a runtime was opened for bad input")

    monkeypatch.setattr(runtime, "open_runtime", refuse)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["sweep", "--sizes", "0"], "must be positive"),
        (["sweep", "--sizes", "4KiB:3KiB"], "powers of two"),
        (["sweep", "--pairs", "0-0"], "same device"),
        (["sweep", "--pairs", "0-99"], "out of range"),
        (["sweep", "--samples", "0"], "samples"),
        (["sweep", "--samples", "x"], "invalid int"),
        (["sweep", "--direction", "up"], "invalid choice"),
        (["probe", "--preset", "atlas9999"], "unknown preset"),
        (["probe", "--topology", "/nonexistent/topo.txt"], "no such file"),
        (["topo", "/nonexistent/topo.txt"], "no such file"),
        (["report", "/nonexistent/run"], "not a run folder"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_arguments_give_one_line_and_exit_2(capsys, argv, message) -> None:
    code, _out, err = run_cli(capsys, *argv)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err


def test_console_script_exits_2_without_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ascend_p2p_lab.cli", "sweep", "--sizes", "-1"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


@pytest.mark.parametrize("column,value", [("src", 99), ("dst", -1)])
@pytest.mark.parametrize(
    "command",
    [
        ["report"],
        ["calibrate", "--out", "{tmp}/t.toml"],
        ["check", "--run"],
        ["compare", "--against-preset", "atlas800t-a2"],
    ],
)
def test_a_row_naming_a_device_outside_the_run_is_damage(tmp_path, capsys, column, value, command):
    folder = _damaged(tmp_path, column, value)
    argv = [a.format(tmp=tmp_path) for a in command]
    capsys.readouterr()
    assert (
        main(
            [*argv, str(folder)] if command[0] != "calibrate" else [argv[0], str(folder), *argv[1:]]
        )
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{column}" in err and str(value) in err, err
    assert "8 devices" in err and not (tmp_path / "t.toml").exists()


@pytest.mark.parametrize(
    "damage, named",
    [
        (_meta(params="pairs=0-1"), "run.json:1: field 'params': expected an object"),
        (_meta(device_count="eight"), "run.json:1: field 'device_count': expected an integer"),
        (_meta(schema_version=DROP), "run.json:1: field 'schema_version': missing"),
        (_meta(params=DROP), "run.json:1: field 'params': missing"),
        (_meta(rows="4"), "run.json:1: field 'rows': expected an integer"),
        (_meta(interrupted="no"), "run.json:1: field 'interrupted': expected true or false"),
        (_text_bandwidth, "samples.parquet: column bandwidth_GBps holds text, not numbers"),
    ],
)
def test_every_reader_refuses_a_damaged_run_with_one_line_naming_the_field(
    saved, tmp_path, capsys, damage, named
) -> None:
    import shutil

    from ascend_p2p_lab.cli import main

    folder = tmp_path / "run"
    shutil.copytree(saved, folder)
    damage(folder)
    commands = [
        ["report", str(folder), "--out", str(tmp_path / "rep")],
        ["compare", str(saved), str(folder)],
        ["compare", str(folder), str(saved)],
        ["calibrate", str(folder), "--out", str(tmp_path / "twin.toml")],
    ]
    for argv in commands:
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 2, (argv, err)
        assert err.count("\n") == 1 and named in err, (argv, err)
    assert not (tmp_path / "rep").exists() and not (tmp_path / "twin.toml").exists()


@pytest.mark.parametrize("error", [ZeroDivisionError, ValueError, TypeError])
def test_an_unexpected_exception_is_one_line_and_a_traceback_file(
    capsys, monkeypatch, error
) -> None:
    """Also a ValueError or TypeError once the input was accepted: a bug, exit 1, not 2."""
    import ascend_p2p_lab.measure as measure

    def broken(rt: Any) -> Any:
        raise error("planted")

    monkeypatch.setattr(measure, "probe", broken)
    code, _, err = run_cli(capsys, "probe", "--backend", "sim")
    lines = err.strip().splitlines()
    name = error.__name__
    assert code == 1 and len(lines) == 1 and "Traceback" not in err
    assert lines[0].startswith(f"ascend-p2p-lab: internal error: {name}: planted")
    where = lines[0].split("(traceback in ")[1].rstrip(")")
    assert f"{name}: planted" in Path(where).read_text()
    Path(where).unlink()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["demo", "--out", "{file}"], "exists and is not a folder"),
        (["sweep", "--out", "{file}"], "exists and is not a folder"),
        (["sweep", "--checkpoint", "{dir}"], "is a folder"),
        (["report", "{run}", "--out", "{file}"], "exists and is not a folder"),
        (["demo", "--out", "{run}"], "holds a run already"),
    ],
)
def test_output_paths_are_checked_before_any_device_work(
    capsys, tmp_path, no_device, argv, message
) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"run_id": "x", "command": "sweep"}))
    (tmp_path / "file").write_text("")
    names = {"file": str(tmp_path / "file"), "dir": str(tmp_path), "run": str(run)}
    code, _, err = run_cli(capsys, *(a.format(**names) for a in argv))
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


# ---------------------------------------------------------------- issue 42: the start
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
    assert len(got["codes"]) == len(COMMANDS) + 1  # the top level and every command
    assert all(code == 0 and size > 200 for code, size in got["codes"].values())


def _interrupted(tmp_path, delay_s: float) -> tuple[int, str]:
    """The demo interrupted delay_s after its start: (exit status, stderr)."""
    demo = ["demo", "--out", str(tmp_path / "d"), "--no-progress", "--overwrite"]
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
    return proc.returncode, err


@pytest.mark.parametrize("delay_s", [0.1, 0.5, 1.0, 2.0])
def test_ctrl_c_at_any_moment_exits_130_without_traceback(tmp_path, delay_s) -> None:
    """SIGINT to the demo's process group (what Ctrl-C in a terminal sends): in its
    imports (0.1 s), its probe, its sweep's workers: exit 130 and no traceback. A test of
    real time: the signal must arrive while the command runs (about 5 s in all). On a
    loaded machine a signal at 0.1 s may land in Python's start-up (site, runpy, the two
    import lines before :func:`main`), before main's handler: that try is made again (at
    most twice); a traceback through main is a failure at once."""
    for _ in range(3):
        status, err = _interrupted(tmp_path, delay_s)
        if status == 130 or ", in main" in err:
            break
    assert status == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


#: The demo with two idle cores whatever the machine's load: two sweep workers, two
#: drawing workers.
TWO_IDLE_CORES = """
import sys
from ascend_p2p_lab import forking
forking.busy_cores = lambda window_s=0.0: 0.0
forking.os.sched_getaffinity = lambda pid: {0, 1}
from ascend_p2p_lab.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _wait_for_children(pid: int, n: int, timeout_s: float = 60.0) -> None:
    """Until process pid has at least n child processes."""
    deadline = time.monotonic() + timeout_s
    import psutil  # comes with ipykernel

    while len(psutil.Process(pid).children()) < n:
        assert time.monotonic() < deadline, f"{pid} never had {n} child processes"
        time.sleep(0.005)


@pytest.mark.parametrize("after", ["3. sweep", "saved to"])
def test_ctrl_c_while_workers_run_exits_130_without_a_workers_traceback(tmp_path, after):
    """SIGINT to the process group as the demo's sweep (2 workers) or report (2 drawing
    workers) starts: the workers ignore it, the demo stops them and exits 130, and no
    worker prints its KeyboardInterrupt."""
    demo = ["demo", "--out", str(tmp_path / "d"), "--no-progress", "--sizes", "4KiB,64MiB"]
    proc = subprocess.Popen(
        [sys.executable, "-c", TWO_IDLE_CORES, *demo],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if line.startswith(after):
            _wait_for_children(proc.pid, 2)
            os.killpg(proc.pid, signal.SIGINT)
            break
    try:  # a worker left behind holds the pipes open: communicate never returns
        out, err = proc.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):  # what is left of the group
            os.killpg(proc.pid, signal.SIGKILL)
    assert seen[-1].startswith(after), "".join(seen)
    assert after != "3. sweep" or "in 2 processes" in seen[-1], seen[-1]
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "wrote" not in out  # the report was stopped, not finished


def test_a_failed_pyacl_call_is_its_one_line_and_exit_1(capsys, tmp_path, monkeypatch) -> None:
    """The runtime's errors (a failed call, a call pyACL lacks) are failures, exit 1 with
    their own line, never an internal error with a saved traceback."""
    import tempfile

    from ascend_p2p_lab import cli
    from ascend_p2p_lab.runtime.errors import AclError, MissingCall

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where a traceback would go
    failed = AclError("acl.rt.memcpy", (0, 1), 507056, "link down")
    assert cli._exit_for(failed) == 1
    assert capsys.readouterr().err == f"ascend-p2p-lab: {failed}\n"
    assert cli._exit_for(MissingCall("acl.rt.ipc_memory_get")) == 1
    assert capsys.readouterr().err.startswith("ascend-p2p-lab: ")
    assert list(tmp_path.iterdir()) == []  # no traceback saved
