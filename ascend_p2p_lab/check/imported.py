"""Criteria and checks from what a run folder already holds: a tool's diagnosis thresholds
as criteria, and an existing run (own or imported) judged against criteria without
measuring anything.

An imported ``ascend-dmi`` run says neither which device initiated its copies nor how a
bidirectional figure splits: its p2p copies are taken as reads (``initiator`` dst, as
the presets and ``calibrate`` take DMI's figures), and its bidirectional figure, the
pair's total (``bidir_total_GBps``), counts half per direction, which is what a ``bi``
criterion bounds. :func:`judgeable` says so in the rows it fills.

Example:
    >>> import pandas as pd
    >>> rows = pd.DataFrame({"pattern": ["pair"], "src": [0], "dst": [1], "direction": ["bi"],
    ...                      "initiator": [None], "bandwidth_GBps": [float("nan")],
    ...                      "bidir_total_GBps": [50.8]})
    >>> judgeable(rows)[["initiator", "bandwidth_GBps"]].values.tolist()
    [['dst', 25.4]]
"""

from __future__ import annotations

__all__ = ["check_run", "criteria_from_thresholds", "judgeable", "judged_size", "run_devices"]

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import pandas as pd

from ..patterns.cards import cards_of
from ..results import place_cards
from ..run import Run
from ..schema import CARD_PATTERNS, FANOUT_PATTERNS, HOST_PATTERNS, PAIR_PATTERN
from ..units import format_size
from ..vocab import BANDWIDTH_ITEM, BI, LINK_CLASS_ITEM, SKIP, VERIFICATION_ITEM
from .criteria import DEFAULT_SIZE_BYTES, Criteria, make_table
from .derive import (
    IMPORTED_INITIATOR,
    IMPORTED_NOTE,
    judgeable,
    link_matrices,
    peer_from_rows,
    topology_peer,
)
from .run import Measured
from .verdict import evaluate, points_lost

# ---- ascend-dmi --dg thresholds as criteria ------------------------------------------------


def _threshold_record(row: Any, n: int) -> dict[str, Any] | None:
    """The criterion of one diagnosis line (None for a kind criteria have no item for)."""
    where = f"{row.source_file}:{int(row.source_line)}"
    op, t = str(row.operation), float(row.threshold_GBps)
    ends = [int(v) for v in (row.src, row.dst) if not pd.isna(v)]
    if any(not 0 <= d < n for d in ends):
        raise ValueError(f"{where}: device {max(ends)} is not among the server's {n} devices")
    said = f"ascend-dmi --dg threshold {t:g} GB/s ({where})"
    if op == "p2p" and len(ends) == 2:
        bi = row.direction == BI
        return {
            "kind": "bandwidth",
            "src": ends[0],
            "dst": ends[1],
            "link": None,
            "direction": "bi" if bi else "uni",
            "initiator": IMPORTED_INITIATOR,
            "bound": "min",
            "unit": "GB/s",
            "value": t / 2 if bi else t,
            "_where": where,
            "basis": said
            + (": the pair's total both ways, half per direction" if bi else "")
            + "; "
            + IMPORTED_NOTE,
        }
    if op in ("h2d", "d2h") and ends:
        return {
            "kind": "host",
            "direction": op,
            "device": ends[0],
            "bound": "min",
            "unit": "GB/s",
            "value": t,
            "basis": said,
            "_where": where,
        }
    return None


def criteria_from_thresholds(
    rows: pd.DataFrame,
    topology: Any,
    *,
    size: int = DEFAULT_SIZE_BYTES,
    origin: str = "ascend-dmi --dg",
) -> tuple[Criteria, list[str]]:
    """Criteria whose numbers are a diagnosis's thresholds (``threshold_GBps`` rows of an
    imported ``ascend-dmi --dg`` capture), one per line: p2p per pair, h2d/d2h per
    device; the link classes and peer access are ``topology``'s. Returns the criteria and
    the lines left out (a kind with no criterion, such as d2d). ValueError (``FILE:LINE``)
    for a device the topology lacks or two lines giving one item different thresholds."""
    n = topology.device_count
    diag = rows[rows["threshold_GBps"].notna()] if "threshold_GBps" in rows else rows[:0]
    if diag.empty:
        raise ValueError(
            "no diagnosis thresholds in the capture (ascend-dmi --dg lines such "
            "as 'p2p unidirectional bandwidth diagnosis ... 26.21 / 20')"
        )
    records: dict[tuple[Any, ...], dict[str, Any]] = {}
    left_out = []
    for row in diag.itertuples(index=False):
        rec = _threshold_record(row, n)
        if rec is None:
            left_out.append(
                f"{row.source_file}:{int(row.source_line)} ({row.operation}: no criterion kind)"
            )
            continue
        key = tuple(rec.get(k) for k in ("kind", "src", "dst", "device", "direction"))
        first = records.setdefault(key, rec)
        if first["value"] != rec["value"]:
            raise ValueError(
                f"{rec['_where']}: threshold {rec['value']:g} differs from "
                f"{first['value']:g} at {first['_where']} for the same item"
            )
    recs = [{k: v for k, v in r.items() if k != "_where"} for r in records.values()]
    links, access = link_matrices(topology_peer(topology), n)
    for r in recs:
        if r["kind"] == BANDWIDTH_ITEM:
            r["link"] = links[r["src"]][r["dst"]]
    name = getattr(topology, "name", "?")
    return Criteria(
        links=links,
        peer_access=access,
        table=make_table(recs),
        topology_basis=f"{name}: its link matrix, and peer access where "
        "aclrtDeviceCanAccessPeer says 1",
        name=f"{origin} thresholds on {name}",
        source=origin,
        size_bytes=size,
        description="ascend-dmi's diagnosis prints no copy size: the bandwidth criteria hold "
        f"at {size} bytes, past the saturation point",
    ), left_out


# ---- an existing run judged --------------------------------------------------------------

#: Why an item about a run's link classes or bytes cannot be judged from the run.
NO_LINKS = "the run does not name link classes (an import without a topology capture)"
NOT_VERIFIED = "the run's copies were not verified (an imported tool's figures)"


#: The row patterns each kind of numeric criterion judges at the criteria's size.
_FAMILIES = {
    "bandwidth": (PAIR_PATTERN,),
    "host": HOST_PATTERNS,
    "aggregate": (*FANOUT_PATTERNS, *CARD_PATTERNS),
}


def judged_size(rows: pd.DataFrame) -> int | None:
    """The size ``check --run`` judges a run at without criteria: the largest of its pair
    rows, else of its fan-out or card rows, else of its host copies (None: no such rows).

    Example:
        >>> judged_size(pd.DataFrame({"pattern": ["h2d", "card"], "size_bytes": [8, 4]}))
        4
    """
    for patterns in (_FAMILIES["bandwidth"], _FAMILIES["aggregate"], _FAMILIES["host"]):
        sizes = rows.loc[
            rows["pattern"].isin(patterns).fillna(False).astype(bool), "size_bytes"
        ].dropna()
        if len(sizes):
            return int(sizes.max())
    return None


def _sizes_match(rows: pd.DataFrame, criteria: Criteria) -> None:
    """ValueError when the run has rows of a kind the criteria bound (pair, host, fan-out
    or card copies) but none of them at the criteria's size (every such item would be
    skipped, and the check would pass on nothing)."""
    kinds = set(criteria.table["kind"])
    patterns = [p for kind, pats in _FAMILIES.items() if kind in kinds for p in pats]
    judged = rows[rows["pattern"].isin(patterns).fillna(False).astype(bool)]
    sizes = judged["size_bytes"].dropna()
    if len(sizes) and not sizes.eq(criteria.size_bytes).any():
        have = ", ".join(format_size(int(v)) for v in sorted(sizes.unique()))
        raise ValueError(
            f"the criteria's bandwidth size is {format_size(criteria.size_bytes)}; "
            f"the run's {', '.join(sorted(set(judged['pattern'].astype(str))))} "
            f"rows are at {have}: write criteria for the run's size (criteria "
            "--size, or --from a run at it)"
        )


def run_devices(rows: pd.DataFrame) -> list[int]:
    """The devices a run's rows name (either end, or a group's), in order: what ``check
    --run`` judges unless ``--devices`` says otherwise (a capture of some pairs of a
    server is judged on those pairs).

    Example:
        >>> run_devices(pd.DataFrame({"pattern": ["pair", "h2d"], "src": [2, None],
        ...                           "dst": [3, 5], "senders": [None, None],
        ...                           "receivers": [None, None]}))
        [2, 3, 5]
    """
    own = rows[~rows["pattern"].isin(CARD_PATTERNS).fillna(False).astype(bool)]
    ends = pd.concat([own["src"], own["dst"]]).dropna()  # a card row's ends are card ids
    groups = [d for col in ("senders", "receivers") for g in rows[col].dropna() for d in g]
    return sorted({int(d) for d in ends} | {int(d) for d in groups})


def check_run(rows: Run, criteria: Criteria, devices: Sequence[int] | None = None) -> Any:
    """Judge a run (a Run) against criteria, measuring nothing (``check
    --run``): the run's pair rows give the peer table, imported rows are made judgeable
    (:func:`judgeable`); what the run cannot say (link classes, verified bytes) is SKIP
    with the reason. ``devices`` (default: those the run's rows name) are judged.
    ``measured.run`` is the run as given."""
    from . import CheckResult

    # an import's card ids placed on the cards the criteria's link matrix joins (SIO
    # between a card's dies)
    server = SimpleNamespace(
        device_count=criteria.device_count, link_class=lambda a, b: criteria.links[a][b]
    )
    run = place_cards(Run.of(rows), cards_of(server))
    rows = run.samples
    n = run.meta.device_count
    if n is not None and int(n) != criteria.device_count:
        why = f"the criteria describe {criteria.device_count} devices; the run has {n}"
        raise criteria.misfit(why)
    _sizes_match(rows, criteria)
    rows = judgeable(rows)
    peer = peer_from_rows(rows).assign(reason=None)
    peer["link"] = peer["link"].astype(object).where(peer["link"].notna(), None)
    devs = run_devices(rows) if devices is None else sorted(set(devices))
    outside = [d for d in devs if d >= criteria.device_count]
    if outside:
        raise criteria.misfit(
            f"the run names device {outside[0]}; the criteria describe "
            f"{criteria.device_count} devices"
        )
    items = evaluate(criteria, peer, rows, devs)
    no_link = (
        items["kind"].eq(LINK_CLASS_ITEM) & items["measured"].isna() & items["status"].ne(SKIP)
    )
    items.loc[no_link, ["status", "reason"]] = [SKIP, NO_LINKS]
    items.loc[items["reason"].eq("not measured"), "reason"] = "not in the run"
    if "verified" in rows and rows["verified"].isna().all():
        ver = items["kind"].eq(VERIFICATION_ITEM)
        items.loc[ver, ["status", "reason", "measured"]] = [SKIP, NOT_VERIFIED, None]
    return CheckResult(items, Measured(peer, run), points_lost(rows))
