"""Imported rows as an ordinary run: a :class:`~ascend_p2p_lab.run.Run` of typed rows and
their metadata (its ``run.json``).

Every row keeps the file and line it came from (``source_file``, ``source_line``); the
run's ``backend`` names the tool (with its version when the capture prints one);
``run.json`` lists each capture with its sha256, and, for p2p pairs, sweep parameters
(``params``) that ``compare --against-preset`` re-runs on the simulator. Columns the
tool does not give stay empty.

Example:
    >>> run = to_run([{"operation": "p2p", "pattern": "pair", "src": 0, "dst": 1,
    ...                "direction": "uni", "peer": "on", "path": "p2p",
    ...                "size_bytes": 1 << 28, "bandwidth_GBps": 26.2, "sample": 0,
    ...                "source_file": "p2p.txt", "source_line": 3}],
    ...              tool="ascend-dmi", sources=[], command="import dmi")
    >>> run.meta.backend, run.meta.imported, run.meta.params["pairs"]
    ('ascend-dmi', True, [[0, 1]])
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from .._version import __version__
from ..run import Run, RunMeta
from ..schema import PAIR_PATTERN, PAIR_PATTERNS, to_frame

#: Sample numbers restart per point: rows of one point from several captures are samples.
_POINT = ("operation", "pattern", "direction", "src", "dst", "size_bytes", "ranks")


def _number_samples(rows: list[dict[str, Any]]) -> None:
    seen: dict[tuple[Any, ...], int] = {}
    for row in rows:
        key = tuple(row.get(k) for k in _POINT)
        row["sample"] = seen.get(key, 0)
        seen[key] = row["sample"] + 1


def _params(frame: pd.DataFrame) -> dict[str, Any] | None:
    """Sweep parameters for the measured pair cells, uni and bi (a bidirectional total),
    so that ``compare --against-preset`` re-runs both directions."""
    value = frame["bandwidth_GBps"].where(frame["direction"] == "uni",
                                          frame["bidir_total_GBps"])
    cells = frame[(frame["pattern"] == PAIR_PATTERN) & value.notna() & (frame["size_bytes"] > 0)
                  & frame["threshold_GBps"].isna()]  # not a diagnosis line
    if cells.empty:
        return None
    pairs = sorted({(int(s), int(d)) for s, d in zip(cells["src"], cells["dst"])})
    present = set(cells["direction"].dropna())
    return {"sizes": sorted(int(s) for s in cells["size_bytes"].unique()),
            "pairs": [list(p) for p in pairs],
            "directions": [d for d in ("uni", "bi") if d in present], "peers": ["on"],
            "patterns": [PAIR_PATTERN], "samples": 1}


def _server(topology: Any, preset: str | None, sources: list[dict[str, Any]]
            ) -> dict[str, Any]:
    """What run.json says of the server: its device count, SoC, topology and where the
    link classes came from, when a topology capture or a preset names it; else nothing
    (a capture of some devices does not say how many the server has)."""
    if topology is None:
        return {}
    captured = [s["path"] for s in sources if s.get("kind") == "topology"]
    return {"device_count": int(topology.device_count), "topology": topology.name,
            "soc_name": topology.soc_name, "preset": preset,
            "link_classes_from": f"preset {preset}" if preset else
            f"topology capture {captured[0] if captured else topology.name}"}


def to_run(rows: Iterable[Mapping[str, Any]], *, tool: str, sources: list[dict[str, Any]],
           command: str, topology: Any = None, host: str | None = None,
           preset: str | None = None) -> Run:
    """The rows as a run: typed rows and their metadata.

    ``tool`` is the backend ("ascend-dmi 26.1"); ``sources`` the captures (path, sha256,
    version, command line); ``topology`` (from an npu-smi / ascend-dmi --topo capture, or
    the preset ``preset``) names the server's device count and the link class of each
    pair row; ``host`` the server a prompt in a capture named. Without a topology the
    device count is unknown (None): the highest device id of a capture of some pairs is
    not the server's."""
    rows = [dict(r) for r in rows]
    _number_samples(rows)
    digest = hashlib.sha256(json.dumps([s.get("sha256") for s in sources]).encode())
    run_id = f"import-{digest.hexdigest()[:12]}"
    for row in rows:
        row.update(run_id=run_id, backend=tool, host=host)
        if topology is not None and row.get("pattern") in PAIR_PATTERNS \
                and row.get("src") is not None and row.get("dst") is not None:
            row["link"] = topology.link(int(row["src"]), int(row["dst"]))
    frame = to_frame(rows)
    meta: dict[str, Any] = {
        "run_id": run_id, "backend": tool, "command": command, "package_version": __version__,
        "timestamp": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "imported": True, "sources": sources, "hostname": host,
        **_server(topology, preset, sources),
    }
    params = _params(frame)
    if params is not None:
        meta["params"] = params
    return Run(frame, RunMeta.from_dict(meta))
