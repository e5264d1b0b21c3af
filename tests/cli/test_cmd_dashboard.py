"""``ascend-p2p-lab dashboard`` without a browser: bad input, a missing Voilà, the server's
command line and environment, and the app notebook it serves (tests/test_browser.py
drives the served app itself).
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
from pathlib import Path
from typing import Any

import nbformat
import pytest

from ascend_p2p_lab.cli import cmd_dashboard as D
from ascend_p2p_lab.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


def test_without_voila_the_command_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "voila" else real(name, *a)
    )
    started: list[Any] = []
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: started.append(a))
    code, err = _run(capsys, "dashboard")
    assert code == 2 and not started
    assert err == (
        "ascend-p2p-lab: error: the dashboard app needs Voilà, which is not "
        "installed: pip install 'ascend-p2p-lab[app]'\n"
    )


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--preset", "atlas9000"], "unknown preset 'atlas9000'; choose from atlas300i-310"),
        (["--port", "70000"], "--port must be between 0 and 65535, got 70000"),
        (["--port", "-1"], "--port must be between 0 and 65535, got -1"),
    ],
)
def test_bad_input_exits_2_before_starting_anything(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str], says: str
) -> None:
    if importlib.util.find_spec("voila") is None:
        pytest.skip("voila is not installed (its absence is checked first)")
    started: list[Any] = []
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: started.append(a))
    code, err = _run(capsys, "dashboard", *argv)
    assert code == 2 and not started
    assert err.startswith(f"ascend-p2p-lab: error: {says}") and err.count("\n") == 1


def test_the_server_listens_on_localhost_only_on_the_port_asked() -> None:
    cmd = D.voila_command(8123, python="/venv/bin/python")
    assert cmd[:4] == ["/venv/bin/python", "-m", "voila", str(D.APP_NOTEBOOK)]
    assert {
        "--Voila.ip=127.0.0.1",
        "--Voila.port=8123",
        "--Voila.port_retries=0",
        "--no-browser",
    } <= set(cmd)
    assert f"--VoilaExecutor.startup_timeout={D.KERNEL_STARTUP_S}" in cmd


def test_a_free_port_is_free() -> None:
    port = D.free_port()
    with socket.socket() as s:
        s.bind((D.HOST, port))  # nobody holds it


def test_the_kernel_gets_the_runtime_choice_and_this_package_first() -> None:
    env = D.server_env(
        "sim", "atlas800t-a3", 7, base={"PYTHONPATH": "/elsewhere", "ASCEND_P2P_LAB_PRESET": "x"}
    )
    assert (
        env["ASCEND_P2P_LAB_BACKEND"],
        env["ASCEND_P2P_LAB_PRESET"],
        env["ASCEND_P2P_LAB_SEED"],
    ) == ("sim", "atlas800t-a3", "7")
    root = D.APP_NOTEBOOK.parent.parent.parent
    assert env["PYTHONPATH"].split(os.pathsep) == [str(root), "/elsewhere"]
    kept = D.server_env(None, None, None, base={"ASCEND_P2P_LAB_PRESET": "atlas300i-duo"})
    assert kept["ASCEND_P2P_LAB_PRESET"] == "atlas300i-duo"
    assert "ASCEND_P2P_LAB_BACKEND" not in kept and "ASCEND_P2P_LAB_SEED" not in kept


def test_the_app_notebook_builds_one_dashboard_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The served notebook's code, run here: the dashboard of the preset the environment
    names (what `dashboard --preset` sets), shown as the cell's value."""
    nb = nbformat.read(D.APP_NOTEBOOK, as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert len(code) == 1 and code[0].splitlines()[-1] == "dashboard"
    monkeypatch.setenv("ASCEND_P2P_LAB_BACKEND", "sim")
    monkeypatch.setenv("ASCEND_P2P_LAB_PRESET", "atlas300i-duo")
    scope: dict[str, Any] = {}
    exec(code[0], scope)
    dash = scope["dashboard"]
    try:
        assert repr(dash) == "SweepDashboard(sim atlas300i-duo, 8 devices, idle, no run yet)"
        assert "application/vnd.jupyter.widget-view+json" in dash._repr_mimebundle_()
    finally:
        dash.close()


def test_the_app_notebook_ships_with_the_package() -> None:
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert (
        '"ascend_p2p_lab.widgets" = ["dashboard_app.ipynb", "voila/templates/ascend/*"]'
        in pyproject
    )
    assert D.APP_NOTEBOOK.is_file()


def test_a_port_in_use_exits_2_before_serving(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if importlib.util.find_spec("voila") is None:
        pytest.skip("voila is not installed (its absence is checked first)")
    started: list[Any] = []
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: started.append(a))
    with socket.socket() as holder:
        holder.bind((D.HOST, 0))
        holder.listen()
        port = holder.getsockname()[1]
        code = main(["dashboard", "--port", str(port)])
    out, err = capsys.readouterr()
    assert code == 2 and not started and "serving" not in out
    assert err == (
        f"ascend-p2p-lab: error: --port {port}: already in use on 127.0.0.1; "
        "choose another port, or --port 0 for a free one\n"
    )


def _external(html: str) -> list[str]:
    """The stylesheets and scripts a page's HTML asks from another host, and the module
    imports of its inline scripts."""
    import re

    links = re.findall(r'<(?:link|script)[^>]*(?:href|src)="(https?://[^"]+)"', html)
    return links + re.findall(r'import\(\s*"(https?://[^"]+)"', html)


def test_the_page_is_served_with_its_own_template_and_no_cdn() -> None:
    """The page's template (widgets/voila/templates/ascend) is on the server's JUPYTER_PATH
    and named on Voila's command line; it asks no CDN for Font Awesome or mermaid."""
    env = D.server_env(None, None, None, base={"JUPYTER_PATH": "/elsewhere"})
    first = Path(env["JUPYTER_PATH"].split(os.pathsep)[0])
    assert env["JUPYTER_PATH"].endswith(os.pathsep + "/elsewhere")
    page = first / "voila" / "templates" / D.TEMPLATE / "index.html.j2"
    assert page.is_file()
    assert f"--template={D.TEMPLATE}" in D.voila_command(8123)
    text = page.read_text()
    assert "{{ super.super() }}" in text and "http" not in text.split("-#}")[1]
    assert "{%- block html_head_js_mermaidjs -%}" in text


def _listening(port: int) -> bool:
    try:
        socket.create_connection((D.HOST, port), timeout=1).close()
    except OSError:
        return False
    return True


@pytest.mark.parametrize(
    ("signame", "status", "open_page"), [("SIGTERM", 143, True), ("SIGINT", 130, False)]
)
def test_the_server_and_its_kernels_go_down_with_the_command(
    signame: str, status: int, open_page: bool
) -> None:
    """The real command and the real Voilà: a signal to the command's process stops the
    server and every kernel it started; nothing is left listening or running."""
    import signal
    import sys
    import time
    import urllib.request

    psutil = pytest.importorskip("psutil")
    if importlib.util.find_spec("voila") is None:
        pytest.skip("voila is not installed")
    port = D.free_port()
    root = Path(D.__file__).resolve().parents[2]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "ascend_p2p_lab.cli", "dashboard", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    spawned: list[Any] = []
    try:
        deadline = time.monotonic() + D.KERNEL_STARTUP_S
        while not _listening(port):
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)
        if open_page:  # a kernel starts for the page
            with urllib.request.urlopen(f"http://{D.HOST}:{port}/", timeout=120) as page:
                assert page.status == 200
                head = page.read().decode().split("</head>")[0]
            # nothing fetched from outside (issue 37): no stylesheet or script from a CDN
            assert _external(head) == [], _external(head)
        spawned = psutil.Process(proc.pid).children(recursive=True)
        assert len(spawned) >= (2 if open_page else 1)  # Voilà (and a kernel)
        proc.send_signal(getattr(signal, signame))
        assert proc.wait(timeout=D.STOP_GRACE_S + 30) == status
        _, alive = psutil.wait_procs(spawned, timeout=15)
        assert alive == [] and not _listening(port)
    finally:  # a failed check leaves nothing behind either
        for started in [psutil.Process(proc.pid), *spawned] if proc.poll() is None else spawned:
            if started.is_running():
                started.kill()
