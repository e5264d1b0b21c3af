"""Run metadata: what made a result, where and when, as a
:class:`~ascend_p2p_lab.run.RunMeta` (checked where it is made)."""

from __future__ import annotations

import datetime as _dt
import platform
import socket
import uuid
from collections.abc import Mapping
from typing import Any

from .._version import __version__
from ..run import RunMeta
from ..runtime import Runtime
from ..topology.npu_smi import guesses


def new_run_id() -> str:
    """A unique id: UTC timestamp plus 6 random hex digits."""
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{uuid.uuid4().hex[:6]}"


def run_metadata(rt: Runtime, params: Mapping[str, Any] | None = None) -> RunMeta:
    """Package version, backend, SoC, device count, versions, host and time, plus params.

    On the simulator, ``inferred`` lists the behaviours of the preset that no source
    states (preset key -> why it was chosen), so that a number made with them says so.

    Example:
        >>> from ascend_p2p_lab.runtime import open_runtime
        >>> with open_runtime("sim", "atlas800t-a3") as rt:
        ...     sorted(run_metadata(rt).inferred)[:3]
        ['die_link_HCCS', 'ingress_GBps', 'peer_off_copy']
    """
    info = rt.describe()
    meta: dict[str, Any] = {
        "package": "ascend-p2p-lab",
        "package_version": __version__,
        **info,
        "hostname": socket.gethostname(),
        "python": platform.python_version(),
        "timestamp": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "params": dict(params or {}),
    }
    if info.get("backend") == "sim" and rt.topology is not None:
        meta["inferred"] = dict(rt.topology.inferred)
    if rt.topology is not None:  # a SoC or link rates guessed from npu-smi text
        meta["guessed"] = guesses(rt.topology, info.get("backend") == "sim")
    return RunMeta.from_dict(meta)
