"""``ascend-p2p-lab dashboard``: the sweep dashboard as a web app with a live kernel.

Voilà serves ``widgets/dashboard_app.ipynb`` (one :class:`~ascend_p2p_lab.widgets.SweepDashboard`)
on 127.0.0.1 only; each browser tab gets its own kernel, and the kernel picks its runtime
from ``ASCEND_P2P_LAB_BACKEND`` / ``ASCEND_P2P_LAB_PRESET`` / ``ASCEND_P2P_LAB_SEED``, which
this command sets from its options. Ctrl-C stops the server (exit 130), and so does
SIGTERM (exit 143): the server and its kernels go down with this process. A port
already in use is bad input (exit 2, one line) before anything starts.

Example:
    $ ascend-p2p-lab dashboard --preset atlas800t-a3 --port 8866
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from ..vocab import EXIT_INTERRUPTED
from .exitstatus import UsageError
from .options import add_backend, subcommand

#: The command this module adds and runs.
NAME = "dashboard"

#: The notebook Voilà serves.
APP_NOTEBOOK = Path(__file__).resolve().parent.parent / "widgets" / "dashboard_app.ipynb"
#: The folder on JUPYTER_PATH holding the page's Voila template (voila/templates/TEMPLATE):
#: Voila's lab page without the stylesheets it asks a CDN for.
TEMPLATES = APP_NOTEBOOK.parent
#: The template's name.
TEMPLATE = "ascend"
#: Only this machine can reach the server.
HOST = "127.0.0.1"
#: Seconds Voilà waits for a kernel to start (a busy 2-core machine needs more than 60).
KERNEL_STARTUP_S = 180
#: Seconds the server gets to stop after Ctrl-C before it is killed.
STOP_GRACE_S = 10
MAX_PORT = 65535
#: The exit status after SIGTERM (128 + 15, as a shell reports a process it ended).
EXIT_TERMINATED = 128 + signal.SIGTERM


def free_port(host: str = HOST) -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def voila_command(port: int, python: str = sys.executable) -> list[str]:
    """The Voilà command line serving the dashboard app on HOST:port."""
    return [
        python,
        "-m",
        "voila",
        str(APP_NOTEBOOK),
        "--no-browser",
        f"--template={TEMPLATE}",
        f"--Voila.ip={HOST}",
        f"--Voila.port={port}",
        "--Voila.port_retries=0",
        "--VoilaConfiguration.show_tracebacks=True",
        f"--VoilaExecutor.startup_timeout={KERNEL_STARTUP_S}",
    ]


def server_env(
    backend: str | None, preset: str | None, seed: int | None, base: dict[str, str] | None = None
) -> dict[str, str]:
    """The server's environment (the kernels inherit it): the runtime choice, and this
    package first on PYTHONPATH unless it is installed in site-packages, so that the
    kernel imports the same ascend_p2p_lab as this command."""
    env = dict(os.environ if base is None else base)
    for name, value in (
        ("ASCEND_P2P_LAB_BACKEND", backend),
        ("ASCEND_P2P_LAB_PRESET", preset),
        ("ASCEND_P2P_LAB_SEED", None if seed is None else str(seed)),
    ):
        if value is not None:
            env[name] = value
    paths = [str(TEMPLATES), *(p for p in env.get("JUPYTER_PATH", "").split(os.pathsep) if p)]
    env["JUPYTER_PATH"] = os.pathsep.join(paths)  # the page's template: nothing from a CDN
    root = APP_NOTEBOOK.parent.parent.parent
    if root.name not in ("site-packages", "dist-packages"):
        parts = [str(root), *(p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)]
        env["PYTHONPATH"] = os.pathsep.join(parts)
    return env


def check_args(args: argparse.Namespace) -> int:
    """Bad input as UsageError (exit 2) before anything starts; returns the port."""
    from ..topology import list_presets

    if importlib.util.find_spec("voila") is None:
        raise UsageError(
            "the dashboard app needs Voilà, which is not installed: "
            "pip install 'ascend-p2p-lab[app]'"
        )
    if args.preset is not None and args.backend != "acl" and args.preset not in list_presets():
        raise UsageError(f"unknown preset {args.preset!r}; choose from {', '.join(list_presets())}")
    if not 0 <= args.port <= MAX_PORT:
        raise UsageError(f"--port must be between 0 and {MAX_PORT}, got {args.port}")
    if args.port and not port_is_free(args.port):
        raise UsageError(
            f"--port {args.port}: already in use on {HOST}; choose another "
            "port, or --port 0 for a free one"
        )
    return args.port or free_port()


def port_is_free(port: int, host: str = HOST) -> bool:
    """Whether a server could listen on host:port now (nobody else holds it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


class _Stop(Exception):
    """SIGTERM arrived: stop the server as after Ctrl-C."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise _Stop


def run(args: argparse.Namespace) -> int:
    """Serve the dashboard until Ctrl-C or SIGTERM; the exit status is Voilà's (130 after
    Ctrl-C, 143 after SIGTERM). The server runs in its own session, so a terminal's
    Ctrl-C reaches this process only, which then stops Voilà (and Voilà its kernels)."""
    port = check_args(args)
    env = server_env(args.backend, args.preset, args.seed)
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        proc = subprocess.Popen(voila_command(port), env=env, start_new_session=True)
        print(
            f"ascend-p2p-lab: serving the dashboard at http://{HOST}:{port}/ (Ctrl-C stops it)",
            flush=True,
        )
        try:
            return proc.wait()
        except KeyboardInterrupt:
            _stop(proc)
            return EXIT_INTERRUPTED
        except _Stop:
            _stop(proc)
            return EXIT_TERMINATED
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Ask the server to stop (it shuts its kernels down), then kill its whole session
    (the server and any kernel left) if it does not within STOP_GRACE_S; a second
    Ctrl-C or SIGTERM meanwhile does not stop the teardown."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):  # the server's group: its kernels too
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    finally:
        signal.signal(signal.SIGINT, previous)


def add(sub: Any) -> None:
    """``dashboard``: the sweep dashboard as a web app (this module)."""
    p = subcommand(
        sub, NAME, "serve the sweep dashboard as a web app (Voilà, live kernel) on 127.0.0.1"
    )
    add_backend(
        p,
        backend="the kernel's runtime: auto (default; also ASCEND_P2P_LAB_BACKEND), acl or sim",
        preset="simulated server (default atlas800t-a2; also ASCEND_P2P_LAB_PRESET)",
        topology=None,
        seed="simulator jitter seed (default 0)",
    )
    p.add_argument(
        "--port", type=int, default=0, help="TCP port on 127.0.0.1 (default 0: a free one)"
    )
