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

__simulator__ = _simulated_acl(
    _os.environ.get("ASCEND_P2P_LAB_PRESET") or _DEFAULT,
    seed=int(_os.environ.get("ASCEND_P2P_LAB_SEED") or 0),
)
__simulated__ = True
simulator = __simulator__.simulator
rt = __simulator__.rt
util = __simulator__.util
media = __simulator__.media
app_log = __simulator__.app_log
init = __simulator__.init
finalize = __simulator__.finalize
get_soc_name = __simulator__.get_soc_name
get_version = __simulator__.get_version
get_recent_err_msg = __simulator__.get_recent_err_msg


def __getattr__(name: str):  # a name pyACL has and the simulator does not: one line says so
    return getattr(__simulator__, name)
