"""Run metadata: what made a result, where and when."""

from __future__ import annotations

import datetime as _dt
import platform
import socket
import uuid
from collections.abc import Mapping
from typing import Any

from .._version import __version__
from ..runtime import Runtime


def new_run_id() -> str:
    """A unique id: UTC timestamp plus 6 random hex digits."""
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{uuid.uuid4().hex[:6]}"


def run_metadata(rt: Runtime, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Package version, backend, SoC, device count, versions, host and time, plus params."""
    info = rt.describe()
    return {
        "package": "ascend-p2p-lab",
        "package_version": __version__,
        **info,
        "hostname": socket.gethostname(),
        "python": platform.python_version(),
        "timestamp": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "params": dict(params or {}),
    }
