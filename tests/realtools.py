"""The real programs the delivery tests drive (Prometheus, promtool, Slurm, munge,
kubectl): found on PATH, or the test is skipped with the reason, or FAILS when
ASCEND_P2P_REQUIRE_TOOLS=1 or CI=true says they must be there (.ci/run installs them as
root, as it installs Chromium for the browser tests: tests/browserapp.py)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

REQUIRE_ENV = "ASCEND_P2P_REQUIRE_TOOLS"
#: Debian package of each program
PACKAGE = {
    "prometheus": "prometheus",
    "promtool": "prometheus",
    "slurmctld": "slurm-wlm",
    "slurmd": "slurm-wlm",
    "scontrol": "slurm-wlm",
    "sinfo": "slurm-wlm",
    "munged": "munge",
    "kubectl": "kubectl (not in Debian 12; https://kubernetes.io/docs/tasks/tools/)",
}


def required() -> bool:
    """Whether a missing program fails the test instead of skipping it."""
    return os.environ.get(REQUIRE_ENV) == "1" or os.environ.get("CI") == "true"


def missing(reason: str, *, optional: bool = False) -> None:
    """Skip with ``reason``, or fail when the tools are required (``optional``: never)."""
    if required() and not optional:
        pytest.fail(f"{reason}, and {REQUIRE_ENV}=1 or CI=true requires it", pytrace=False)
    pytest.skip(reason)


def programs_or_skip(*names: str, optional: bool = False) -> dict[str, str]:
    """The path of each program, or skip (fail when required) naming what is missing."""
    found = {n: shutil.which(n) for n in names}
    absent = [n for n, p in found.items() if p is None]
    if absent:
        pkgs = sorted({PACKAGE.get(n, n) for n in absent})
        missing(f"needs {', '.join(absent)} (apt-get install {' '.join(pkgs)})", optional=optional)
    return {n: p for n, p in found.items() if p}


def root_or_skip(what: str) -> None:
    """Skip (fail when required) unless this runs as root (slurmd, munged need it)."""
    if os.geteuid() != 0:
        missing(f"{what} needs root (as in CI)")


def free_port() -> int:
    """A TCP port free on the loopback interface now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what: str, ok: Callable[[], object], timeout_s: float = 20.0) -> object:
    """Poll ``ok()`` until it returns something true (returned), or fail after timeout."""
    end = time.monotonic() + timeout_s
    last: object = None
    while time.monotonic() < end:
        try:
            last = ok()
        except Exception as exc:  # not up yet
            last = exc
        if last and not isinstance(last, Exception):
            return last
        time.sleep(0.2)
    pytest.fail(f"{what}: not ready after {timeout_s:g} s (last: {last!r})", pytrace=False)


def http_get(url: str, timeout: float = 2.0) -> bytes:
    """The body of a GET (raises on an error status)."""
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read()


KUBECTL = """#!{python}
import json, os, sys
with open(os.environ["KUBECTL_LOG"], "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\\n")
if os.environ.get("KUBECTL_REFUSE") and sys.argv[1] != "get":
    sys.exit(os.environ["KUBECTL_REFUSE"])
if sys.argv[1:3] == ["get", "node"]:
    print(json.dumps({{"spec": {{"taints": json.loads(os.environ["KUBECTL_TAINTS"])}}}}))
"""


def stand_in_kubectl(tmp_path: Path, monkeypatch, taints: list, refuse: str = "") -> Path:
    """A stand-in ``kubectl`` first on PATH (no cluster here): it logs its arguments to
    the returned file, answers ``get node`` with ``taints``, and with ``refuse`` fails
    every other command with that message. It checks the commands the tool runs, not
    what a cluster does with them."""
    exe = tmp_path / "bin" / "kubectl"
    exe.parent.mkdir(exist_ok=True)
    exe.write_text(KUBECTL.format(python=sys.executable))
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "kubectl.log"
    monkeypatch.setenv("PATH", f"{exe.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("KUBECTL_LOG", str(log))
    monkeypatch.setenv("KUBECTL_TAINTS", json.dumps(taints))
    if refuse:
        monkeypatch.setenv("KUBECTL_REFUSE", refuse)
    return log
