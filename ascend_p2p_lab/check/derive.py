"""Where criteria come from: a known-good run's medians times a fraction.

Two sources share this code:

- ``criteria --from RUN``: a golden run of the user's own server (DCGM's golden values);
- ``criteria --preset NAME``: the preset's *model*, obtained by running the check's own
  measurements on the simulator with the preset's jitter set to 0. The simulator is the
  one place the model lives (latency plus size over rate, push/pull efficiencies, shared
  ports and card budgets for aggregates); re-deriving those numbers from the preset's
  figures here would be a second copy of the model that drifts from the first.

Bandwidth criteria are per link class: the median over the class's pairs of each pair's
median, times the fraction; latency criteria are that median *divided* by the fraction (a
ceiling); host copies and fan-outs are per device, cards per card pair; spread criteria
(a preset's) per link class from the preset's jitter (:mod:`.spread`). The link matrix
and the expected peer access come from the peer table (a run: from its rows).

Example:
    >>> from ascend_p2p_lab.check.derive import criteria_from_preset
    >>> c = criteria_from_preset("atlas800t-a2", fraction=0.9, devices=(0, 1, 2))
    >>> row = c.table.query("kind == 'bandwidth' and direction == 'uni' and initiator == 'dst'")
    >>> round(float(row["value"].iloc[0]), 1)
    23.5
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from ..patterns.cards import group_name
from ..results import card_keys, failures
from ..run import Run
from ..schema import (
    CARD_PATTERNS,
    FANOUT_PATTERNS,
    HOST_PATTERNS,
    HOST_TO_DEVICE,
    LATENCY_PATTERN,
    PAIR_PATTERN,
    PAIR_PATTERNS,
    PULL_FANOUT,
)
from ..topology.model import DIE_LINKS
from ..units import format_size
from ..vocab import BI, CARD_LINKS, HOST_ITEM, PAIR, PAIR_INITIATORS, UNREACHABLE
from . import collective, spread
from .criteria import (
    DEFAULT_FRACTION,
    DEFAULT_LATENCY_SIZE_BYTES,
    DEFAULT_SAMPLES,
    DEFAULT_SIZE_BYTES,
    Criteria,
    make_table,
)
from .dieitems import die_records, die_rows
from .plan import Needs, measurements
from .run import Measured, run_measurements

CARD = CARD_PATTERNS[0]  # the card x card aggregate


def _good(rows: pd.DataFrame, pattern: str | tuple[str, ...], size: int) -> pd.DataFrame:
    pats = (pattern,) if isinstance(pattern, str) else pattern
    r = rows[rows["pattern"].isin(pats) & (rows["size_bytes"] == size)]
    return r[r["error_kind"].isna()]


def check_fraction(fraction: float) -> float:
    """A fraction in (0, 1] (ValueError otherwise)."""
    if (
        isinstance(fraction, bool)
        or not isinstance(fraction, (int, float))
        or not math.isfinite(fraction)
        or not 0 < fraction <= 1
    ):
        raise ValueError(f"fraction must be a number in (0, 1], got {fraction!r}")
    return float(fraction)


def _pair_records(
    rows: pd.DataFrame, links: pd.DataFrame, size: int, lat_size: int, fraction: float, origin: str
) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    bw = _good(rows, PAIR_PATTERN, size).merge(links, on=["src", "dst"], suffixes=("_row", ""))
    per_pair = bw.groupby(["link", "direction", "initiator", "src", "dst"], observed=True)[
        "bandwidth_GBps"
    ].median()
    for (cls, direction, initiator), s in per_pair.groupby(level=[0, 1, 2], observed=True):
        med = float(s.median())
        out.append(
            {
                "kind": "bandwidth",
                "link": cls,
                "direction": direction,
                "initiator": initiator,
                "bound": "min",
                "unit": "GB/s",
                "value": round(med * fraction, 3),
                "basis": f"{origin}: median over {len(s)} {cls} pairs of each pair's "
                f"median, {med:.3f} GB/s at {format_size(size)}, x {fraction:g}",
            }
        )
    lat = _good(rows, LATENCY_PATTERN, lat_size).merge(
        links, on=["src", "dst"], suffixes=("_row", "")
    )
    per_pair = lat.groupby(["link", "src", "dst"], observed=True)["latency_us"].median()
    for cls, s in per_pair.groupby(level=0, observed=True):
        med = float(s.median())
        out.append(
            {
                "kind": "latency",
                "link": cls,
                "bound": "max",
                "unit": "us",
                "value": round(med / fraction, 3),
                "basis": f"{origin}: median over {len(s)} {cls} pairs of each pair's "
                f"median, {med:.3f} us per {lat_size}-byte copy, / {fraction:g}",
            }
        )
    return out


def _device_records(
    rows: pd.DataFrame, size: int, fraction: float, origin: str
) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    r = _good(rows, (*HOST_PATTERNS, *FANOUT_PATTERNS), size)
    device = r["dst"].where(r["pattern"].isin((HOST_TO_DEVICE, PULL_FANOUT)), r["src"])
    med = (
        r.assign(device=device)
        .groupby(["pattern", "device"], observed=True)["bandwidth_GBps"]
        .median()
    )
    for (pattern, device), value in med.items():
        kind = "host" if pattern in HOST_PATTERNS else "aggregate"
        rec = {
            "kind": kind,
            "device": int(device),
            "bound": "min",
            "unit": "GB/s",
            "value": round(float(value) * fraction, 3),
            "basis": f"{origin}: median {value:.3f} GB/s at {format_size(size)} "
            f"on device {device}, x {fraction:g}",
        }
        rec["direction" if kind == HOST_ITEM else "pattern"] = pattern
        out.append(rec)
    cards = card_keys(_good(rows, CARD_PATTERNS, size))
    for (senders, receivers), s in cards.groupby(["senders", "receivers"])["bandwidth_GBps"]:
        value, group = float(s.median()), group_name(senders, receivers)
        out.append(
            {
                "kind": "aggregate",
                "pattern": CARD,
                "senders": senders,
                "receivers": receivers,
                "group": group,
                "bound": "min",
                "unit": "GB/s",
                "value": round(value * fraction, 3),
                "basis": f"{origin}: median {value:.3f} GB/s at {format_size(size)} "
                f"for cards {group}, x {fraction:g}",
            }
        )
    return out


def link_matrices(
    peer: pd.DataFrame, n: int
) -> tuple[tuple[tuple[str, ...], ...], tuple[tuple[bool, ...], ...]]:
    """The N x N link classes ("X" where unknown) and peer access of a peer frame."""
    links = [["X"] * n for _ in range(n)]
    access = [[False] * n for _ in range(n)]
    for src, dst, link, ok in zip(peer["src"], peer["dst"], peer["link"], peer["peer_ok"]):
        links[int(src)][int(dst)] = str(link)
        access[int(src)][int(dst)] = bool(ok)
    missing = [(a, b) for a in range(n) for b in range(n) if a != b and links[a][b] == "X"]
    if missing:
        raise ValueError(
            f"the link class of {len(missing)} ordered pairs is unknown (first "
            f"{missing[0][0]}->{missing[0][1]}): measure every ordered pair"
        )
    return tuple(map(tuple, links)), tuple(map(tuple, access))


def criteria_from_measured(
    measured: Measured,
    *,
    n: int,
    fraction: float,
    origin: str,
    size: int,
    latency_size: int = DEFAULT_LATENCY_SIZE_BYTES,
    samples: int = DEFAULT_SAMPLES,
    name: str = "",
    topology_basis: str | None = None,
    jitter: float = 0.0,
) -> Criteria:
    """Criteria from what a known-good server measured (see the module docstring);
    ``jitter``: the model's, from which spread criteria are derived (:mod:`.spread`)."""
    fraction = check_fraction(fraction)
    links, access = link_matrices(measured.peer, n)
    link_of = measured.peer[["src", "dst", "link"]].astype({"src": "Int64", "dst": "Int64"})
    rows = measured.rows
    chosen = die_rows(rows)  # the A3's die links: criteria of their own (check.dieitems)
    records = [
        *die_records(rows[chosen], size, fraction, origin),
        *_pair_records(rows[~chosen], link_of, size, latency_size, fraction, origin),
        *_device_records(rows, size, fraction, origin),
        *collective.from_rows(rows, fraction, origin),
        *spread.from_rows(
            rows[~chosen], link_of, size=size, samples=samples, jitter=jitter, origin=origin
        ),
    ]
    return Criteria(
        links=links,
        peer_access=access,
        table=make_table(records),
        topology_basis=topology_basis or f"{origin}: link classes and peer access measured",
        name=name,
        source=origin,
        size_bytes=size,
        latency_size_bytes=latency_size,
        samples=samples,
        fraction=fraction,
        verification_basis="every copy's bytes must arrive intact (no tolerance)",
    )


def criteria_from_preset(
    preset: str,
    *,
    fraction: float = DEFAULT_FRACTION,
    size: int = DEFAULT_SIZE_BYTES,
    samples: int = DEFAULT_SAMPLES,
    devices: Sequence[int] | None = None,
    topology: object = None,
) -> Criteria:
    """The preset's model x fraction: the check's measurements run on the simulated
    preset (or ``topology``) with jitter 0."""
    import dataclasses

    from ..topology import load_preset

    fraction = check_fraction(fraction)
    topo = topology if topology is not None else load_preset(preset)
    jitter = float(topo.jitter)  # type: ignore[attr-defined]
    topo = dataclasses.replace(topo, jitter=0.0, faults=())  # type: ignore[type-var]
    cards = any(cls in CARD_LINKS for cls in topo.classes_present())  # type: ignore[attr-defined]
    needs = Needs.everything(cards=cards, size_bytes=size, samples=samples)
    if devices is not None:  # fan-outs over some devices are not the server's
        needs = dataclasses.replace(needs, aggregates=needs.aggregates & set(CARD_PATTERNS))
    name = topo.name  # type: ignore[attr-defined]
    devs = tuple(range(topo.device_count)) if devices is None else tuple(devices)  # type: ignore[attr-defined]
    if getattr(topo, "die_hccs", None) is not None:  # the A3: each die link of twin dies
        twins = any(topo.twin_dies(a, b) for a in devs for b in devs)  # type: ignore[attr-defined]
        links = (
            frozenset((k, i) for k in DIE_LINKS for i in PAIR_INITIATORS) if twins else frozenset()
        )
        needs = dataclasses.replace(needs, die_links=links)
    measured = _model(topo, needs, devs)
    what = "preset" if topology is None else "topology"
    origin = f"model of {what} {name} (simulator, jitter 0)"
    if devices is not None:  # the matrices need every pair: fill them from the topology
        measured.peer = topology_peer(topo)
    return criteria_from_measured(
        measured,
        n=topo.device_count,
        fraction=fraction,
        origin=origin,  # type: ignore[attr-defined]
        size=size,
        samples=samples,
        name=f"{name} x {fraction:g}",
        topology_basis=f"{what} {name}: its link matrix, and peer access where "
        "aclrtDeviceCanAccessPeer says 1",
        jitter=jitter,
    )


#: The models measured in this process, by what they were measured on (at most
#: MODELS_KEPT): the simulator at jitter 0 gives the same rows for the same topology and
#: measurements, so a second check of one preset (a notebook's faults, the dashboard)
#: does not simulate its model again.
_MODELS: dict[str, Measured] = {}
MODELS_KEPT = 8


def _model(topo: object, needs: Needs, devs: tuple[int, ...]) -> Measured:
    """The check's measurements on ``topo`` (jitter 0, no faults) over ``devs``: a copy of
    the one this process measured before, else measured now (and kept only when it is
    whole: not interrupted, no point lost)."""
    import copy

    from ..runtime import open_runtime

    key = repr((topo, needs, devs))  # every field of both is in its repr
    if key in _MODELS:
        return copy.deepcopy(_MODELS[key])
    with open_runtime("sim", topology=topo) as rt:
        measured = run_measurements(rt, measurements(needs, devs), devs)
    if not measured.interrupted and failures(measured.run).empty:
        _MODELS[key] = copy.deepcopy(measured)
        while len(_MODELS) > MODELS_KEPT:
            del _MODELS[next(iter(_MODELS))]
    return measured


def topology_peer(topo: object) -> pd.DataFrame:
    """The peer frame (src, dst, link, peer_ok) a topology describes."""
    n = topo.device_count  # type: ignore[attr-defined]
    recs = [
        {
            "src": a,
            "dst": b,
            "link": topo.link(a, b),  # type: ignore[attr-defined]
            "peer_ok": topo.can_access_peer(a, b),
        }  # type: ignore[attr-defined]
        for a in range(n)
        for b in range(n)
        if a != b
    ]
    return pd.DataFrame(recs)


def peer_from_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """A peer table from a run's pair rows: the ``link`` column per ordered pair, and
    ``peer_ok`` unless every sample of the pair was unreachable (a golden run is one whose
    peer enables worked)."""
    r = rows[rows["pattern"].isin(PAIR_PATTERNS) & rows["src"].notna() & rows["dst"].notna()]
    bad = r["error_kind"].astype(object) == UNREACHABLE
    g = r.assign(_bad=bad).groupby(["src", "dst"], observed=True)
    out = g.agg(link=("link", "first"), _bad=("_bad", "all")).reset_index()
    return out.assign(peer_ok=~out["_bad"]).drop(columns="_bad")


#: The initiator an imported p2p copy is taken to have (the tool does not say).
IMPORTED_INITIATOR = "dst"
#: Why: said in every basis and skip reason that depends on it.
IMPORTED_NOTE = (
    "ascend-dmi does not say which device initiates its copies: taken as reads "
    "(dst pulls), as the presets take its figures"
)


def judgeable(rows: pd.DataFrame) -> pd.DataFrame:
    """Pair rows the check can judge: a missing initiator taken as ``dst``, a
    bidirectional total with no per-direction figure split in half (a copy)."""
    out = rows.copy()
    pair = out["pattern"].astype(object).eq(PAIR)
    if "initiator" in out:
        none = pair & out["initiator"].isna()
        out["initiator"] = out["initiator"].astype(object).where(~none, IMPORTED_INITIATOR)
    if "bidir_total_GBps" in out:
        half = (
            pair
            & out["direction"].astype(object).eq(BI)
            & out["bandwidth_GBps"].isna()
            & out["bidir_total_GBps"].notna()
        )
        out.loc[half, "bandwidth_GBps"] = out.loc[half, "bidir_total_GBps"] / 2
    return out


def criteria_from_run(
    rows: Run,
    *,
    fraction: float = DEFAULT_FRACTION,
    origin: str | None = None,
    topology: object = None,
) -> Criteria:
    """A golden run's medians x fraction (``criteria --from RUN``): bandwidth at the
    largest size the run's pair pattern measured, latency at the latency pattern's
    smallest size; every ordered pair must be in the run (for the link matrix). An
    imported run is read through :func:`judgeable`; link classes it does not name come
    from ``topology``."""
    run = Run.of(rows)
    meta, rows = run.meta, run.samples
    pairs = rows[rows["pattern"] == PAIR_PATTERN]
    # an import that names no server: the topology's count, else the devices of its pairs
    ends = pd.concat([pairs["src"], pairs["dst"]]).dropna()
    n = (
        meta.device_count
        or getattr(topology, "device_count", 0)
        or (int(ends.max()) + 1 if len(ends) else 0)
    )
    if not n or not len(pairs):
        raise ValueError(
            "the run has no pair-pattern rows (or no device_count): "
            "criteria need a sweep of every ordered pair"
        )
    lat = rows.loc[rows["pattern"] == LATENCY_PATTERN, "size_bytes"]
    origin = origin or (
        f"golden run {meta.run_id or '?'} on "
        f"{meta.hostname or '?'} ({meta.backend or '?'}"
        + ("; " + IMPORTED_NOTE + "; bi: half the pair's total" if meta.imported else "")
        + ")"
    )
    peer = peer_from_rows(rows)
    if peer["link"].isna().any():
        if topology is None:
            raise ValueError(
                "the run does not name every pair's link class (an import "
                "without a topology capture): give the server's topology"
            )
        named = topology_peer(topology)[["src", "dst", "link"]]
        peer = peer.drop(columns="link").merge(named, on=["src", "dst"], how="left")
    rows = judgeable(rows)
    return criteria_from_measured(
        Measured(peer, rows),
        n=n,
        fraction=fraction,
        origin=origin,
        size=int(pairs["size_bytes"].max()),
        latency_size=int(lat.min()) if len(lat) else DEFAULT_LATENCY_SIZE_BYTES,
        name=f"{origin} x {fraction:g}",
    )
