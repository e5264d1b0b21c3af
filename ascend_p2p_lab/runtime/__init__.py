"""The runtime layer: the only part of ascend_p2p_lab that calls pyACL.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim") as rt:
    ...     rt.device_count
    8
"""

from .backend import BACKENDS, ENV_BACKEND, ENV_PRESET, ENV_SEED, BackendInfo, load_acl
from .errors import AclError, BackendUnavailable, MissingCall
from .resources import DeviceBuffer, Event, HostBuffer, PeerLinks, Stream
from .runtime import Runtime, open_runtime

__all__ = [
    "BACKENDS",
    "ENV_BACKEND",
    "ENV_PRESET",
    "ENV_SEED",
    "AclError",
    "BackendInfo",
    "BackendUnavailable",
    "DeviceBuffer",
    "Event",
    "HostBuffer",
    "MissingCall",
    "PeerLinks",
    "Runtime",
    "Stream",
    "load_acl",
    "open_runtime",
]
