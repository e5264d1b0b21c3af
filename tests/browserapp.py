"""The dashboard app for the browser tests: ``ascend-p2p-lab dashboard`` started in its own
process group, waited for, and always stopped with everything it started (kernels too).

Example:
    >>> with serve_dashboard(Path("/tmp/voila.log")) as url:   # doctest: +SKIP
    ...     print(url)
    http://127.0.0.1:40213/
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psutil  # comes with ipykernel
import pytest

import ascend_p2p_lab
from ascend_p2p_lab.cli.cmd_dashboard import HOST, free_port

#: Debian's Chromium (`apt-get install chromium`); ASCEND_P2P_LAB_CHROMIUM overrides it.
CHROMIUM = "/usr/bin/chromium"
#: Flags known to work headless as root in a container.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Set by .ci/run: a missing browser stack fails the tests instead of skipping them.
REQUIRE_ENV = "ASCEND_P2P_REQUIRE_BROWSER"
#: Seconds for the server to answer (Voilà imports JupyterLab's server on a 2-core machine).
SERVER_START_S = 120
#: Seconds the server gets to stop on SIGTERM before everything left is killed.
STOP_GRACE_S = 15
#: A path the server answers without starting a kernel.
PROBE_PATH = "voila/files/ready-probe"
ROOT = Path(ascend_p2p_lab.__file__).resolve().parent.parent


def chromium_or_skip() -> str:
    """Chromium's path when Chromium, Playwright and Voilà are all there; otherwise skip
    with the reason, or fail when ASCEND_P2P_REQUIRE_BROWSER=1."""
    chromium = os.environ.get("ASCEND_P2P_LAB_CHROMIUM", CHROMIUM)
    missing = [
        f"Python package {m!r}"
        for m in ("playwright", "voila")
        if importlib.util.find_spec(m) is None
    ]
    if not (os.path.isfile(chromium) and os.access(chromium, os.X_OK)):
        missing.append(f"Chromium at {chromium} (Debian: apt-get install chromium)")
    if missing:
        reason = f"browser tests need {', '.join(missing)}"
        if os.environ.get(REQUIRE_ENV) == "1":
            pytest.fail(f"{reason}, and {REQUIRE_ENV}=1 requires them", pytrace=False)
        pytest.skip(reason)
    return chromium


def _descendants(pid: int) -> list[int]:
    """Every process below pid (the kernels Voilà started run in their own sessions)."""
    with contextlib.suppress(psutil.NoSuchProcess):
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    return []


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the server's process group, then SIGKILL to whatever is left of it and
    of the processes it started."""
    below = _descendants(proc.pid)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    for pid in below:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _wait_until_serving(proc: subprocess.Popen[bytes], url: str, log: Path) -> None:
    """Wait until the server answers HTTP. The probe asks for a file Voilà refuses (403):
    asking for the page itself would start a kernel nobody uses."""
    deadline = time.monotonic() + SERVER_START_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"the dashboard server exited ({proc.returncode}):\n"
                f"{log.read_text(errors='replace')[-3000:]}"
            )
        try:
            with urllib.request.urlopen(f"{url}{PROBE_PATH}", timeout=5):
                return
        except urllib.error.HTTPError:
            return  # an HTTP answer, whatever its status: the server is up
        except (urllib.error.URLError, OSError):
            time.sleep(0.25)
    raise RuntimeError(
        f"the dashboard server did not answer at {url} within "
        f"{SERVER_START_S} s:\n{log.read_text(errors='replace')[-3000:]}"
    )


@contextlib.contextmanager
def serve_dashboard(log: Path, preset: str = "atlas800t-a2") -> Iterator[str]:
    """Run ``ascend-p2p-lab dashboard --backend sim --preset PRESET`` on a free port, with
    this checkout's package first on PYTHONPATH; yields its URL; always stops it. A port
    taken between :func:`free_port` and the server's bind (another test's connection):
    tried again on another, at most twice."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    )
    env.pop("MPLBACKEND", None)  # the kernel keeps the inline backend
    cmd = [
        sys.executable,
        "-m",
        "ascend_p2p_lab.cli",
        "dashboard",
        "--backend",
        "sim",
        "--preset",
        preset,
        "--port",
    ]
    for tries_left in (2, 1, 0):
        port = free_port()
        with open(log, "wb") as out:
            proc = subprocess.Popen(
                [*cmd, str(port)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=ROOT,
                start_new_session=True,
            )
        url = f"http://{HOST}:{port}/"
        try:
            _wait_until_serving(proc, url, log)
        except RuntimeError:
            _stop(proc)
            if tries_left and "already in use" in log.read_text(errors="replace"):
                continue
            raise
        break
    try:
        yield url
    finally:
        _stop(proc)


def screenshot_dir(default: Path) -> Path:
    """Where the screenshots go: ASCEND_P2P_LAB_SCREENSHOTS if set, else ``default`` (the
    test's output folder)."""
    folder = Path(os.environ.get("ASCEND_P2P_LAB_SCREENSHOTS") or default)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
