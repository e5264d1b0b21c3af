"""``ascend-dmi --dg`` bandwidth lines, in JSON item info or in text output, as rows.

The MindCluster ToolBox guide's diagnosis pages word them "p2p unidirectional bandwidth
diagnosis failed from device 0 to device 1 with bandwidth 26.21 / 50": the measured value
and the threshold (GB/s unless a unit is printed). A row keeps both (``bandwidth_GBps`` or,
bidirectional, ``bidir_total_GBps``; ``threshold_GBps``) and the verdict in
``check_result``. It has no pattern: a diagnosis gives no copy size (``size_bytes`` 0), so
it is no point of the toolkit's patterns, and figures and compare leave it out.

Example:
    >>> m = DIAG_LINE.search("p2p unidirectional bandwidth diagnosis failed from device 0 "
    ...                      "to device 1 with bandwidth 26.21 / 50")
    >>> row = diagnosis_row(m, "dg.txt:3", 3)
    >>> row["src"], row["dst"], row["bandwidth_GBps"], row["threshold_GBps"], row["check_result"]
    (0, 1, 26.21, 50.0, 'failed')
"""

from __future__ import annotations

import re
from typing import Any

from ..schema import DEVICE_TO_HOST, HOST_TO_DEVICE
from .common import quantity

#: A bandwidth line of a diagnosis (its item info, or a line of text output).
DIAG_LINE = re.compile(
    r"(?i)(?P<kind>p2p|h2d|d2h|d2d)\s+(?:(?P<dir>unidirectional|bidirectional)\s+)?bandwidth"
    r"\s+diagnosis\s+(?P<verdict>failed|passed|succeeded|success|pass|fail)\w*"
    r"(?:\s+from\s+device\s+(?P<src>\d+)\s+to\s+device\s+(?P<dst>\d+)|"
    r"\s+(?:on|of)\s+device\s+(?P<dev>\d+))?"
    r"\s+with\s+bandwidth\s+(?P<value>[\d.]+)\s*(?P<unit>[a-zA-Z/]*)\s*/\s*(?P<threshold>[\d.]+)"
)


def device_ends(kind: str, dev: int) -> dict[str, Any]:
    """The columns naming one device's end of a host copy (or its memory, d2d)."""
    # the tool's words -> ours; a host copy is no peer access (peer "off", as a sweep's)
    return {
        "h2d": {"pattern": HOST_TO_DEVICE, "path": "host", "peer": "off", "dst": dev},
        "d2h": {"pattern": DEVICE_TO_HOST, "path": "host", "peer": "off", "src": dev},
        "d2d": {"src": dev, "dst": dev},
    }[kind]


def diagnosis_row(m: re.Match[str], where: str, line: int | None) -> dict[str, Any]:
    """The row of one matched bandwidth line (``where`` names it in errors)."""
    unit = m["unit"] or "GB/s"
    bi = (m["dir"] or "").lower().startswith("bi")
    row: dict[str, Any] = {
        "operation": m["kind"].lower(),
        "direction": "bi" if bi else "uni",
        "size_bytes": 0,
        "bidir_total_GBps" if bi else "bandwidth_GBps": quantity(
            m["value"], "bandwidth", where=where, default_unit=unit
        ),
        "threshold_GBps": quantity(m["threshold"], "bandwidth", where=where, default_unit=unit),
        "check_result": "failed" if m["verdict"].lower().startswith("fail") else "success",
        "sample": 0,
        "source_line": line,
    }
    if m["src"] is not None:
        row.update(src=int(m["src"]), dst=int(m["dst"]))
    elif m["dev"] is not None:
        ends = device_ends(row["operation"], int(m["dev"]))
        row.update({k: v for k, v in ends.items() if k in ("src", "dst")})
    return row
