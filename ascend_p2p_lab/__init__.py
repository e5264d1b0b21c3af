"""ascend_p2p_lab: probe, toggle and measure peer-to-peer copies between Ascend NPUs.

The same code runs on CANN's pyACL and on the bundled simulated CANN runtime.

Example:
    >>> import ascend_p2p_lab as lab
    >>> with lab.open_runtime("sim", preset="atlas800t-a2") as rt:
    ...     rt.can_access_peer(0, 7)
    True
"""

from __future__ import annotations

from typing import Any

from ._version import __version__

__all__ = ["AclError", "Runtime", "__version__", "open_runtime"]
_FROM_RUNTIME = ("AclError", "Runtime", "open_runtime")


def __getattr__(name: str) -> Any:
    """The runtime's names, imported on first use: ``import ascend_p2p_lab.plots`` (or any
    layer that does not need a device) does not load the runtime layer."""
    if name in _FROM_RUNTIME:
        from . import runtime

        return getattr(runtime, name)
    raise AttributeError(f"module 'ascend_p2p_lab' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_FROM_RUNTIME])
