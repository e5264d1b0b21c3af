"""Choosing the module underneath: CANN's pyACL or the simulator. Only here.

Precedence: an explicit argument, then ``ASCEND_P2P_LAB_BACKEND`` /
``ASCEND_P2P_LAB_PRESET`` / ``ASCEND_P2P_LAB_SEED``, then ``auto``. ``auto`` takes real
pyACL when it imports and reports at least one device, else the simulator with a
one-line notice on stderr.

Example:
    >>> acl, info = load_acl("sim", preset="atlas800t-a3")
    >>> info.backend, info.preset
    ('sim', 'atlas800t-a3')
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..topology import TopologyError
from .errors import BackendUnavailable

ENV_BACKEND = "ASCEND_P2P_LAB_BACKEND"
ENV_PRESET = "ASCEND_P2P_LAB_PRESET"
ENV_SEED = "ASCEND_P2P_LAB_SEED"
BACKENDS = ("auto", "acl", "sim")

INSTALL_HINT = (
    "pyACL (`import acl`) is not available. On an Atlas server, install the CANN toolkit and "
    "run `source /usr/local/Ascend/ascend-toolkit/set_env.sh` (or your install's set_env.sh) "
    "before starting Python; or use --backend sim."
)


@dataclass(frozen=True)
class BackendInfo:
    """Which backend made a runtime, and why."""

    backend: str
    preset: str | None
    seed: int | None
    notice: str | None = None


def is_simulated(module: Any) -> bool:
    """True for the simulator, also when it was imported as ``acl`` from the shim."""
    return bool(getattr(module, "__simulated__", False))


def _import_real_acl() -> Any:
    try:
        module = importlib.import_module("acl")
    except ImportError as exc:
        raise BackendUnavailable(f"{INSTALL_HINT} ({exc})") from exc
    return module


def _real_device_count(module: Any) -> int:
    """Devices pyACL reports; finalizes only an ACL session this call initialized."""
    ret = module.init()
    if ret not in (0, 100002):
        return 0
    try:
        count, count_ret = module.rt.get_device_count()
    finally:
        if ret == 0:
            module.finalize()
    return int(count) if count_ret == 0 else 0


def load_acl(
    backend: str | None = None,
    preset: str | None = None,
    *,
    seed: int | None = None,
    faults: Iterable[Mapping[str, object] | Any] | None = None,
    api_level: str = "new",
    topology: Any = None,
    announce: bool = True,
) -> tuple[Any, BackendInfo]:
    """Return (module with pyACL's interface, BackendInfo).

    A fallback to the simulator is announced with one line on stderr (``announce=False``:
    only in ``BackendInfo.notice``, for a caller that shows it itself, as the dashboard
    does: on the simulator it is information, not an error)."""
    choice = (backend or os.environ.get(ENV_BACKEND) or "auto").strip().lower()
    if choice not in BACKENDS:
        raise ValueError(f"unknown backend {choice!r}; choose one of {', '.join(BACKENDS)}")
    env_seed = os.environ.get(ENV_SEED)
    if seed is None and env_seed:
        try:
            seed = int(env_seed)
        except ValueError:
            raise ValueError(f"{ENV_SEED}={env_seed!r} is not an integer") from None
    notice = None
    if choice in ("auto", "acl"):
        try:
            module = _import_real_acl()
        except BackendUnavailable:
            if choice == "acl":
                raise
            module = None
            notice = "ascend_p2p_lab: pyACL not found; using the simulated CANN runtime"
        if module is not None and is_simulated(module):  # the shim on PYTHONPATH
            extras = module.simulator  # the simulator's documented extras
            return module, BackendInfo("sim", getattr(extras.topology, "name", None), extras.seed)
        if module is not None:
            count = _real_device_count(module) if choice == "auto" else 1
            if count >= 1:
                return module, BackendInfo("acl", None, None)
            notice = "ascend_p2p_lab: pyACL reports no NPU; using the simulated CANN runtime"
    from ..sim import DEFAULT_PRESET, simulated_acl

    name = preset or os.environ.get(ENV_PRESET) or DEFAULT_PRESET
    source = topology if topology is not None else name
    from_env = topology is None and not preset and name != DEFAULT_PRESET
    try:
        module = simulated_acl(source, seed=seed or 0, faults=faults, api_level=api_level)
    except TopologyError as exc:  # a preset nobody typed here: say where it came from
        if from_env and str(exc).startswith("unknown preset"):
            raise TopologyError(
                f"{exc} (the preset came from the environment: {ENV_PRESET}={name!r})"
            ) from None
        raise
    if notice and announce:
        print(notice, file=sys.stderr)
    label = getattr(topology, "name", None) if topology is not None else name
    return module, BackendInfo("sim", label, seed or 0, notice)
