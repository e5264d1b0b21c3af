"""Imported rows as an ordinary run: a :class:`~ascend_p2p_lab.run.Run` of typed rows and
their metadata (its ``run.json``).

Every row keeps the file and line it came from (``source_file``, ``source_line``); the
run's ``backend`` names the tool (with its version when the capture prints one);
``run.json`` lists each capture with its sha256, and the plan a re-run needs
(``params["plans"]``: one per family of copies, at its own sizes, which ``compare
--against-preset`` re-runs on the simulator; an hccl_test capture's operation, ranks and
sizes). Columns the
tool does not give stay empty.

Example:
    >>> run = to_run([{"operation": "p2p", "pattern": "pair", "src": 0, "dst": 1,
    ...                "direction": "uni", "peer": "on", "path": "p2p",
    ...                "size_bytes": 1 << 28, "bandwidth_GBps": 26.2, "sample": 0,
    ...                "source_file": "p2p.txt", "source_line": 3}],
    ...              tool="ascend-dmi", sources=[], command="import dmi")
    >>> run.meta.backend, run.meta.imported, run.meta.params["plans"][0]["pairs"]
    ('ascend-dmi', True, [[0, 1]])
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections.abc import Iterable, Mapping
from types import SimpleNamespace
from typing import Any

import pandas as pd

from .._version import __version__
from ..patterns.cards import cards_of
from ..results import place_cards
from ..run import Run, RunMeta
from ..schema import (
    CARD_PATTERNS,
    HOST_PATTERNS,
    HOST_TO_DEVICE,
    LATENCY_PATTERN,
    PAIR_PATTERN,
    PAIR_PATTERNS,
    to_frame,
)
from ..vocab import BI

#: Sample numbers restart per point: rows of one point from several captures are samples.
_POINT = ("operation", "pattern", "direction", "src", "dst", "size_bytes", "ranks")


def _number_samples(rows: list[dict[str, Any]]) -> None:
    seen: dict[tuple[Any, ...], int] = {}
    for row in rows:
        key = tuple(row.get(k) for k in _POINT)
        row["sample"] = seen.get(key, 0)
        seen[key] = row["sample"] + 1


def _values(frame: pd.DataFrame) -> pd.Series:
    """Each row's figure: its bandwidth, a bidirectional total, or a time per copy."""
    value = frame["bandwidth_GBps"].where(frame["direction"] != BI, frame["bidir_total_GBps"])
    return value.where(frame["pattern"] != LATENCY_PATTERN, frame["latency_us"])


def _sizes(rows: pd.DataFrame) -> list[int]:
    return sorted(int(s) for s in rows["size_bytes"].unique())


def _copy_plans(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """One plan per family of copies the rows measured (a pair or latency pattern on its
    pairs, the card pattern, each one way or both ways; each host direction on its
    devices), at that family's own sizes: what ``compare --against-preset`` re-runs on
    the simulator."""
    cells = frame[
        frame["pattern"].notna()
        & _values(frame).notna()
        & (frame["size_bytes"] > 0)
        & frame["threshold_GBps"].isna()
    ]  # not a diagnosis line
    plans: list[dict[str, Any]] = []
    for pattern in (PAIR_PATTERN, LATENCY_PATTERN, CARD_PATTERNS[0]):
        for direction in ("uni", "bi"):
            part = cells[(cells["pattern"] == pattern) & (cells["direction"] == direction)]
            if part.empty:
                continue
            plan: dict[str, Any] = {
                "patterns": [pattern],
                "sizes": _sizes(part),
                "directions": [direction],
                "peers": ["on"],
                "samples": 1,
            }
            if pattern in PAIR_PATTERNS:
                pairs = sorted({(int(s), int(d)) for s, d in zip(part["src"], part["dst"])})
                plan["pairs"] = [list(p) for p in pairs]
            plans.append(plan)
    for pattern in HOST_PATTERNS:
        part = cells[cells["pattern"] == pattern]
        if len(part):
            end = part["dst"] if pattern == HOST_TO_DEVICE else part["src"]
            plans.append(
                {
                    "patterns": [pattern],
                    "sizes": _sizes(part),
                    "devices": sorted({int(d) for d in end.dropna()}),
                    "samples": 1,
                }
            )
    return plans


def _collective_plans(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """One plan per collective and rank count an hccl_test capture ran, at its sizes."""
    rows = frame[frame["algbw_GBps"].notna()]
    return [
        {"operation": str(op), "ranks": int(n), "sizes": _sizes(part)}
        for (op, n), part in rows.groupby(["operation", "ranks"], sort=True)
    ]


def link_names(topology: Any) -> Any:
    """A topology as :func:`~ascend_p2p_lab.patterns.cards.cards_of` reads a server: its
    device count and each pair's link class by name."""
    return SimpleNamespace(device_count=topology.device_count, link_class=topology.link)


def _server(topology: Any, preset: str | None, sources: list[dict[str, Any]]) -> dict[str, Any]:
    """What run.json says of the server: its device count, SoC, topology and where the
    link classes came from, when a topology capture or a preset names it; else nothing
    (a capture of some devices does not say how many the server has)."""
    if topology is None:
        return {}
    captured = [s["path"] for s in sources if s.get("kind") == "topology"]
    return {
        "device_count": int(topology.device_count),
        "topology": topology.name,
        "soc_name": topology.soc_name,
        "preset": preset,
        "link_classes_from": f"preset {preset}"
        if preset
        else f"topology capture {captured[0] if captured else topology.name}",
    }


def to_run(
    rows: Iterable[Mapping[str, Any]],
    *,
    tool: str,
    sources: list[dict[str, Any]],
    command: str,
    topology: Any = None,
    host: str | None = None,
    preset: str | None = None,
    warnings: Iterable[str] = (),
) -> Run:
    """The rows as a run: typed rows and their metadata.

    ``tool`` is the backend ("ascend-dmi 26.1"); ``sources`` the captures (path, sha256,
    version, command line); ``topology`` (from an npu-smi / ascend-dmi --topo capture, or
    the preset ``preset``) names the server's device count and the link class of each
    pair row; ``host`` the server a prompt in a capture named; ``warnings`` what the
    importer found doubtful (kept in run.json). Without a topology the
    device count is unknown (None): the highest device id of a capture of some pairs is
    not the server's."""
    rows = [dict(r) for r in rows]
    _number_samples(rows)
    digest = hashlib.sha256(json.dumps([s.get("sha256") for s in sources]).encode())
    run_id = f"import-{digest.hexdigest()[:12]}"
    for row in rows:
        row.update(run_id=run_id, backend=tool, host=host)
        if (
            topology is not None
            and row.get("pattern") in PAIR_PATTERNS
            and row.get("src") is not None
            and row.get("dst") is not None
        ):
            row["link"] = topology.link(int(row["src"]), int(row["dst"]))
    frame = to_frame(rows)
    if topology is not None:  # a card matrix's ids on the server's cards
        frame = place_cards(frame, cards_of(link_names(topology))).samples
    meta: dict[str, Any] = {
        "run_id": run_id,
        "backend": tool,
        "command": command,
        "package_version": __version__,
        "timestamp": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "imported": True,
        "sources": sources,
        "hostname": host,
        "warnings": list(warnings),
        **_server(topology, preset, sources),
    }
    # the plans a re-run needs, one per family of copies or collectives (none: a diagnosis)
    meta["params"] = {"plans": _copy_plans(frame) + _collective_plans(frame)}
    return Run(frame, RunMeta.from_dict(meta))
