"""Server-wide figures of a run: host copy rates, same-device copies, the host's cost per
enqueued copy, the shared port limit of fan-outs, and the jitter of copy times.

Each function returns ``{key: Fit}`` with only what the run measured; the caller fills
the rest from a topology or the defaults and says so.

Example:
    >>> from ascend_p2p_lab.schema import to_frame
    >>> rows = [{"pattern": "pair", "copies": 10, "host_enqueue_us": 40.0, "size_bytes": 4,
    ...          "elapsed_us": 100.0, "bandwidth_GBps": 0.1}]
    >>> api_cost(to_frame(rows), "run r1")["api_us"].value
    4.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from ..results import fit_latency_bandwidth, summarize
from .model import FAN_PATTERNS, MIN_SAMPLES_FOR_JITTER, Fit


def _ok(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["error_kind"].isna() & frame["bandwidth_GBps"].notna()]


def _fit_pattern(frame: pd.DataFrame, pattern: str) -> tuple[float, float | None, int] | None:
    """Median (over devices) bandwidth and latency of the pattern's fit, and the devices.

    With fewer than two sizes left after the host-bound samples (a fast copy the host
    could not keep busy), the rate at the largest size left, and no latency (None)."""
    rows = _ok(frame)
    rows = rows[(rows["pattern"] == pattern) & (rows["direction"] == "uni")]
    if rows.empty:
        return None
    fit = fit_latency_bandwidth(rows).dropna(subset=["bandwidth_GBps"])
    if len(fit):
        return (float(fit["bandwidth_GBps"].median()),
                max(0.0, float(fit["latency_us"].median())), len(fit))
    s = summarize(rows[~rows["host_bound"].fillna(False).astype(bool)])
    if s.empty:
        return None
    s = s[s["size_bytes"] == s["size_bytes"].max()]
    return float(s["bandwidth_GBps_median"].median()), None, len(s)


def host_copies(frame: pd.DataFrame, origin: str) -> dict[str, Fit]:
    """``h2d_GBps``, ``d2h_GBps`` and the host copy ``latency_us`` from the h2d and d2h
    patterns (t = latency + size/bandwidth per device, median over devices)."""
    out: dict[str, Fit] = {}
    latencies = []
    for pattern in ("h2d", "d2h"):
        got = _fit_pattern(frame, pattern)
        if got is None:
            continue
        bw, lat, n = got
        how = ("t = latency + size/bandwidth" if lat is not None else
               "median rate at the largest size not host-bound (one size: no fit)")
        out[f"{pattern}_GBps"] = Fit(bw, f"fitted from {origin}: {pattern} pattern, {how}, "
                                     f"median over {n} devices")
        if lat is not None:
            latencies.append(lat)
    if latencies:
        out["latency_us"] = Fit(sum(latencies) / len(latencies),
                                f"fitted from {origin}: mean of the h2d/d2h fits' intercepts "
                                "(host-bound samples left out)")
    return out


def local_copies(frame: pd.DataFrame, origin: str) -> dict[str, Fit]:
    """``local_copy_GBps`` and ``local_latency_us`` from the local pattern's fit."""
    got = _fit_pattern(frame, "local")
    if got is None:
        return {}
    bw, lat, n = got
    if lat is None:
        return {"local_copy_GBps": Fit(bw, f"fitted from {origin}: local pattern's median rate "
                                       f"at its largest size not host-bound, over {n} devices "
                                       "(smaller copies were host-bound: no latency fit)"),
                "local_latency_us": Fit(0.0, f"fitted from {origin}: folded into the rate "
                                        "above (one size not host-bound)")}
    how = f"local pattern, t = latency + size/bandwidth, median over {n} devices"
    return {"local_copy_GBps": Fit(bw, f"fitted from {origin}: {how}"),
            "local_latency_us": Fit(lat, f"fitted from {origin}: intercept of the same fit")}


def api_cost(frame: pd.DataFrame, origin: str) -> dict[str, Fit]:
    """``api_us``: the host time per enqueued copy (host_enqueue_us / copies, median)."""
    rows = frame[frame["host_enqueue_us"].notna() & frame["copies"].notna()
                 & (frame["copies"] > 0)]
    if rows.empty:
        return {}
    per = rows["host_enqueue_us"] / rows["copies"].astype("float64")
    return {"api_us": Fit(float(per.median()), f"fitted from {origin}: median host time per "
                          f"enqueued copy (host_enqueue_us / copies over {len(rows)} samples)")}


def port_limit(frame: pd.DataFrame, link_bw: Mapping[tuple[int, int], float], origin: str
               ) -> dict[str, Fit]:
    """``port_GBps`` from fan-outs: the median aggregate at their largest size, when it is
    clearly below the sum of the fitted rates of the links it uses (the limit binds)."""
    rows = _ok(frame)
    rows = rows[rows["pattern"].isin(FAN_PATTERNS)]
    if rows.empty:
        return {}
    s = summarize(rows)
    s = s[s["size_bytes"] == s["size_bytes"].max()]
    bound = []
    for _, r in s.iterrows():
        dev = r["src"] if r["pattern"] == "one_to_all" else r["dst"]
        links = [bw for (a, b), bw in link_bw.items()
                 if (a if r["pattern"] == "one_to_all" else b) == dev]
        if links and r["bandwidth_GBps_median"] < PORT_BINDS * sum(links):
            bound.append(float(r["bandwidth_GBps_median"]))
    if not bound:
        return {}
    value = float(pd.Series(bound).median())
    return {"port_GBps": Fit(value, f"fitted from {origin}: median aggregate of {len(bound)} "
                             "fan-outs at their largest size (below the sum of their links)")}


#: A fan-out whose aggregate is below this share of its links' sum met a shared limit.
PORT_BINDS = 0.9


def jitter(frame: pd.DataFrame, origin: str) -> dict[str, Fit]:
    """Relative spread of one copy's time, from the spread of samples.

    A sample times ``copies`` back-to-back copies; if each copy's time varies
    independently by a relative ``jitter`` (the simulator's model), a sample's time per
    copy varies by ``jitter / sqrt(copies)``. So jitter = the root mean square over points
    of (std/mean of time per copy) x sqrt(copies), points with at least
    MIN_SAMPLES_FOR_JITTER samples and not host-bound."""
    rows = _ok(frame)
    rows = rows[~rows["host_bound"].fillna(False).astype(bool) & rows["copies"].notna()]
    if rows.empty:
        return {}
    copies = rows["copies"].astype("float64")
    per = rows["elapsed_us"] / copies
    keys = [rows[k].astype("string").fillna("-") for k in
            ("pattern", "direction", "src", "dst", "group", "size_bytes")]
    stats = pd.DataFrame({"per": per, "copies": copies}).groupby(keys).agg(
        count=("per", "count"), std=("per", "std"), mean=("per", "mean"),
        copies=("copies", "median"))
    stats = stats[stats["count"] >= MIN_SAMPLES_FOR_JITTER]
    if stats.empty:
        return {}
    rel2 = (stats["std"] / stats["mean"]) ** 2 * stats["copies"]
    value = math.sqrt(float(rel2.mean()))
    if not math.isfinite(value):
        return {}
    return {"jitter": Fit(value, f"fitted from {origin}: root mean square over {len(stats)} "
                          "points of std/mean of time per copy x sqrt(copies per sample) "
                          "(copies taken as varying independently)")}
