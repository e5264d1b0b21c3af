"""Fixtures the plotting tests share: an asymmetric simulated run.

Direction 0 -> 1 runs at half speed and every copy 2 -> 3 fails with
ACL_ERROR_RT_SYS_DMA (507013), while 1 -> 0 and 3 -> 2 are healthy, so a figure that
swaps rows and columns, or a failure that lands on the wrong cell, cannot pass.

Example:
    >>> frame = asymmetric_a2_run(pairs="0-1,1-0", direction="uni")  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep

#: large enough that the copy time is the link's, not the latency
SIZE = 16 << 20
#: 0 -> 1 at half speed; every copy 2 -> 3 fails with ACL_ERROR_RT_SYS_DMA
FAULTS = [
    {"kind": "degrade", "link": [0, 1], "factor": 0.5},
    {"kind": "error", "call": "rt.memcpy_async", "link": [2, 3], "code": 507013},
]


def asymmetric_a2_run(**kwargs: Any) -> pd.DataFrame:
    """A sweep on atlas800t-a2 under :data:`FAULTS`: uni and bi, one size, 2 samples
    (``kwargs`` override, e.g. ``pairs=``)."""
    spec = {"sizes": [SIZE], "direction": "both", "samples": 2, "progress": False, **kwargs}
    with open_runtime("sim", preset="atlas800t-a2", faults=FAULTS) as rt:
        return sweep(rt, **spec)
