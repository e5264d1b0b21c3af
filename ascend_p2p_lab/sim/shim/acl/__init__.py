"""``import acl`` that gives the ascend_p2p_lab simulator instead of CANN's pyACL.

Put the parent folder on PYTHONPATH (``ascend-p2p-lab sim-path`` prints it); choose
the server with ``ASCEND_P2P_LAB_PRESET`` (default atlas800t-a2) and the jitter seed
with ``ASCEND_P2P_LAB_SEED`` (default 0). ``acl.__simulated__`` is True; ``acl.simulator``
is the simulator's extras interface (see :mod:`ascend_p2p_lab.sim`). A pyACL name the
simulator does not implement raises ``NotSimulated`` (an AttributeError) naming it.
"""

import os as _os

from ascend_p2p_lab.sim import DEFAULT_PRESET as _DEFAULT
from ascend_p2p_lab.sim import simulated_acl as _simulated_acl
from ascend_p2p_lab.sim.facade import NAMESPACES as _NAMESPACES

__simulator__ = _simulated_acl(
    _os.environ.get("ASCEND_P2P_LAB_PRESET") or _DEFAULT,
    seed=int(_os.environ.get("ASCEND_P2P_LAB_SEED") or 0),
)
__simulated__ = True
simulator = __simulator__.simulator
for _name in (*_NAMESPACES[""], *filter(None, _NAMESPACES)):  # its calls, acl.rt, acl.util ...
    globals()[_name] = getattr(__simulator__, _name)


def __getattr__(name: str):  # a name pyACL has and the simulator does not: one line says so
    return getattr(__simulator__, name)
