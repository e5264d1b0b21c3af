"""ascend_p2p_lab: probe, toggle and measure peer-to-peer copies between Ascend NPUs.

The same code runs on CANN's pyACL and on the bundled simulated CANN runtime.

Example:
    >>> import ascend_p2p_lab as lab
    >>> with lab.open_runtime("sim", preset="atlas800t-a2") as rt:
    ...     rt.can_access_peer(0, 7)
    True
"""

from ._version import __version__
from .runtime import AclError, Runtime, open_runtime

__all__ = ["AclError", "Runtime", "__version__", "open_runtime"]
