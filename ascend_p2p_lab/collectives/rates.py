"""What a move costs on one server: per ordered pair a latency and a rate at a size, the
shared budgets a copy crosses, the device-local rate of a reduction pass, the barrier.

A :class:`LinkModel` comes from a preset (:meth:`LinkModel.from_topology`: each link
class's achievable rate, ``bandwidth_GBps`` = nominal x efficiency, times the class's
push or pull efficiency for a write or a read; the class's ``latency_us``) or from a
run's measured link matrix (:meth:`LinkModel.from_measured`: bandwidth per ordered pair
and size, interpolated log-log in size; latency from the latency pattern's
``latency_us``). Either way the shared budgets are the preset's, the ones the simulator
applies (``sim/routes.py``: a switched class's per-device port ``port_GBps``, both ways;
each ``[[shared]]`` group's egress, ingress and both-ways budgets), and a barrier costs
the preset's ``cross_device_wait_us`` (a stream waiting on another device's event).

Example:
    >>> from ascend_p2p_lab.topology import load_preset
    >>> m = LinkModel.from_topology(load_preset("atlas800t-a3"))
    >>> [b.name for b in m.budgets(0, 2)]
    ['port[0]:egress', 'port[2]:ingress', 'card[0,1]:egress', 'card[2,3]:ingress', \
'card[0,1]:both', 'card[2,3]:both']
    >>> m.budgets(0, 1)
    ()
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cache

import numpy as np
import pandas as pd

from ..topology import Topology
from ..topology.model import SharedLimit
from ..vocab import DST
from .phases import CollectiveError, Move

#: B per us in one GB/s (decimal GB, as units.py and hccl_test count them).
BYTES_PER_US = 1e3

RateFn = Callable[[int, int, int, str], float]


@dataclass(frozen=True)
class Budget:
    """A shared resource concurrent copies split: a device's switch port one way, or a
    group's (a card's) egress, ingress or both-ways budget."""

    name: str
    capacity_GBps: float


def topology_budgets(topo: Topology, src: int, dst: int) -> tuple[Budget, ...]:
    """The budgets a copy src -> dst crosses on ``topo`` (the simulator's resources)."""
    lc = topo.link_class(src, dst)
    if lc is None:
        return ()
    out: list[Budget] = []
    if lc.switched and topo.port_GBps:
        out += [
            Budget(f"port[{src}]:egress", topo.port_GBps),
            Budget(f"port[{dst}]:ingress", topo.port_GBps),
        ]
    for limit in topo.shared:
        if lc.name not in limit.classes:
            continue
        gs, gd = limit.group_of(src), limit.group_of(dst)
        if gs is not None and limit.egress_GBps is not None:
            out.append(Budget(f"{_group(limit, gs)}:egress", limit.egress_GBps))
        if gd is not None and limit.ingress_GBps is not None:
            out.append(Budget(f"{_group(limit, gd)}:ingress", limit.ingress_GBps))
        if limit.both_GBps is not None:
            out += [
                Budget(f"{_group(limit, g)}:both", limit.both_GBps)
                for g in dict.fromkeys((gs, gd))
                if g is not None
            ]
    return tuple(out)


def _group(limit: SharedLimit, g: int) -> str:
    """A group's name in budget names: ``card[2,3]``."""
    return f"{limit.name}[{','.join(map(str, limit.groups[g]))}]"


@dataclass(frozen=True)
class LinkModel:
    """Rates, latencies and budgets of one server for the moves of a collective.

    ``rate(src, dst, nbytes, initiator)`` is the streaming rate of one copy in GB/s (its
    time is ``latency + nbytes / rate``); ``local_GBps`` and ``local_latency_us`` price a
    reduction pass; ``barrier_us`` one wait across the ranks' streams; ``op_us`` a fixed
    cost per op outside its phases (0 for the toolkit's copies; HCCL's own launch cost
    can be given to compare with hccl_test)."""

    devices: int
    rate: RateFn
    latency: Callable[[int, int], float]
    budget_of: Callable[[int, int], tuple[Budget, ...]]
    local_GBps: float
    local_latency_us: float
    barrier_us: float
    op_us: float = 0.0
    source: str = ""

    def budgets(self, src: int, dst: int) -> tuple[Budget, ...]:
        """The shared budgets a copy src -> dst crosses."""
        return self.budget_of(src, dst)

    def cost(self, move: Move) -> tuple[float, float]:
        """(latency, streaming time) of one move on its own, in us."""
        rate = self.rate(move.src, move.dst, move.nbytes, move.initiator)
        if not rate > 0:
            raise CollectiveError(f"{move}: no rate for the pair ({rate!r} GB/s)")
        return self.latency(move.src, move.dst), move.nbytes / (rate * BYTES_PER_US)

    def degraded(self, factors: Mapping[tuple[int, int], float]) -> LinkModel:
        """The same server with the rate of some ordered pairs scaled (a what-if: one
        link at half speed).

        Example:
            >>> from ascend_p2p_lab.topology import load_preset
            >>> m = LinkModel.from_topology(load_preset("atlas800t-a2"))
            >>> m.degraded({(2, 5): 0.5}).rate(2, 5, 1 << 20, "dst"), m.rate(5, 2, 1, "dst")
            (13.1, 26.2)
        """
        base, scale = self.rate, dict(factors)

        def rate(src: int, dst: int, nbytes: int, initiator: str) -> float:
            return base(src, dst, nbytes, initiator) * scale.get((src, dst), 1.0)

        return replace(self, rate=rate, source=f"{self.source}, degraded {sorted(scale)}")

    @classmethod
    def from_topology(cls, topo: Topology) -> LinkModel:
        """Rates and latencies of a preset's link classes (see the module doc)."""

        def rate(src: int, dst: int, nbytes: int, initiator: str) -> float:
            return _class_rate(topo, src, dst, initiator == DST)

        def latency(src: int, dst: int) -> float:
            lc = topo.link_class(src, dst)
            if lc is None:
                raise CollectiveError(f"{src}->{dst}: no link between a device and itself")
            return lc.latency_us

        return cls(
            topo.device_count,
            rate,
            latency,
            _budget_cache(topo),
            topo.local_copy_GBps,
            topo.local_latency_us,
            topo.cross_device_wait_us,
            source=f"preset {topo.name}",
        )

    @classmethod
    def from_measured(
        cls,
        links: pd.DataFrame,
        topo: Topology,
        latency: pd.DataFrame | None = None,
        local_GBps: float | None = None,
    ) -> LinkModel:
        """Rates from a measured link matrix: ``links`` has ``src``, ``dst``,
        ``size_bytes``, ``bandwidth_GBps`` (and optionally ``initiator``, ``dst`` or
        ``src``); ``latency`` has ``src``, ``dst``, ``latency_us`` (the latency
        pattern; without it the preset's class latency). The measured bandwidth at a
        size includes that latency, so a move's streaming time is its measured time
        less the latency (never below 0). Outside the measured sizes the nearest size's
        bandwidth holds."""
        curves = _curves(links)
        lat: dict[tuple[int, int], float] = {}  # (src, dst) -> the median latency
        if latency is not None and not latency.empty:
            if not {"src", "dst", "latency_us"} <= set(latency.columns):
                raise CollectiveError("a latency table needs columns src, dst, latency_us")
            med = latency.dropna(subset=["latency_us"]).groupby(["src", "dst"])["latency_us"]
            lat = {(int(s), int(d)): float(v) for (s, d), v in med.median().items()}
        budgets = _budget_cache(topo)

        def lat_of(src: int, dst: int) -> float:
            if (src, dst) in lat:
                return lat[(src, dst)]
            lc = topo.link_class(src, dst)
            return lc.latency_us if lc is not None else 0.0

        @cache
        def rate(src: int, dst: int, nbytes: int, initiator: str) -> float:
            bw = _measured_bw(curves, src, dst, nbytes, initiator)
            total_us = nbytes / (bw * BYTES_PER_US)
            stream_us = max(total_us - lat_of(src, dst), 0.0)
            return nbytes / (stream_us * BYTES_PER_US) if stream_us > 0 else float("inf")

        return cls(
            topo.device_count,
            rate,
            lat_of,
            budgets,
            topo.local_copy_GBps if local_GBps is None else local_GBps,
            topo.local_latency_us,
            topo.cross_device_wait_us,
            source=f"measured links on {topo.name}",
        )


def _class_rate(topo: Topology, src: int, dst: int, pull: bool) -> float:
    lc = topo.link_class(src, dst)
    if lc is None or not lc.p2p:
        raise CollectiveError(
            f"{src}->{dst}: {topo.link(src, dst)} gives no peer-to-peer copy on {topo.name}"
        )
    return lc.bandwidth_GBps * (lc.pull_efficiency if pull else lc.push_efficiency)


def _budget_cache(topo: Topology) -> Callable[[int, int], tuple[Budget, ...]]:
    @cache
    def budgets(src: int, dst: int) -> tuple[Budget, ...]:
        return topology_budgets(topo, src, dst)

    return budgets


Curves = dict[tuple[int, int, str | None], tuple[np.ndarray, np.ndarray]]


def _curves(links: pd.DataFrame) -> Curves:
    """{(src, dst, initiator or None): (log sizes, log bandwidths)}, medians per size."""
    need = {"src", "dst", "size_bytes", "bandwidth_GBps"}
    if not need <= set(links.columns):
        raise CollectiveError(
            f"a link matrix needs columns {sorted(need)}; it has {sorted(links.columns)}"
        )
    df = links[links["bandwidth_GBps"].notna() & (links["bandwidth_GBps"] > 0)].copy()
    df["initiator"] = df["initiator"] if "initiator" in df.columns else None
    df["initiator"] = df["initiator"].astype(object).where(df["initiator"].notna(), None)
    out: Curves = {}
    keys = ["src", "dst", "initiator", "size_bytes"]
    med = df.groupby(keys, dropna=False)["bandwidth_GBps"].median().reset_index()
    for (s, d, who), g in med.groupby(["src", "dst", "initiator"], dropna=False):
        g = g.sort_values("size_bytes")
        key = (int(s), int(d), None if pd.isna(who) else str(who))
        out[key] = (
            np.log(g["size_bytes"].to_numpy(float)),
            np.log(g["bandwidth_GBps"].to_numpy(float)),
        )
    return out


def _measured_bw(curves: Curves, src: int, dst: int, nbytes: int, initiator: str) -> float:
    curve = curves.get((src, dst, initiator)) or curves.get((src, dst, None))
    if curve is None:
        others = [c for (s, d, _), c in curves.items() if (s, d) == (src, dst)]
        if not others:
            raise CollectiveError(f"the link matrix has no measurement of {src}->{dst}")
        curve = others[0]
    xs, ys = curve
    return float(np.exp(np.interp(np.log(max(nbytes, 1)), xs, ys)))
