"""Compatibility names: the simulator used to live in this one module.

It is now split by concern (see :mod:`.facade`); ``SimulatedACL``, ``NEWER_CALLS`` and
``FIRST_SET_DEVICE_US`` are still importable from here.
"""

from __future__ import annotations

from .devices import FIRST_SET_DEVICE_US
from .facade import SimulatedACL
from .formats import NEWER_CALLS

__all__ = ["FIRST_SET_DEVICE_US", "NEWER_CALLS", "SimulatedACL"]
