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
from collections.abc import Mapping, Sequence

import pandas as pd

from ..results import fit_latency_bandwidth, summarize
from ..schema import (
    DEVICE_TO_HOST,
    FANOUT_PATTERNS,
    HOST_TO_DEVICE,
    LOCAL_PATTERN,
    POINT_KEYS,
    PUSH_FANOUT,
)
from ..vocab import AGGREGATE_ITEM, UNI
from .fits import MIN_SAMPLES_FOR_JITTER, Fit


def _ok(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["error_kind"].isna() & frame["bandwidth_GBps"].notna()]


def _fit_pattern(frame: pd.DataFrame, pattern: str) -> tuple[float, float | None, int] | None:
    """Median (over devices) bandwidth and latency of the pattern's fit, and the devices.

    With fewer than two sizes left after the host-bound samples (a fast copy the host
    could not keep busy), the rate at the largest size left, and no latency (None)."""
    rows = _ok(frame)
    rows = rows[(rows["pattern"] == pattern) & (rows["direction"] == UNI)]
    if rows.empty:
        return None
    fit = fit_latency_bandwidth(rows).dropna(subset=["bandwidth_GBps"])
    if len(fit):
        return (
            float(fit["bandwidth_GBps"].median()),
            max(0.0, float(fit["latency_us"].median())),
            len(fit),
        )
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
    for pattern, key in ((HOST_TO_DEVICE, "h2d_GBps"), (DEVICE_TO_HOST, "d2h_GBps")):
        got = _fit_pattern(frame, pattern)
        if got is None:
            continue
        bw, lat, n = got
        how = (
            "t = latency + size/bandwidth"
            if lat is not None
            else "median rate at the largest size not host-bound (one size: no fit)"
        )
        out[key] = Fit(
            bw, f"fitted from {origin}: {pattern} pattern, {how}, median over {n} devices"
        )
        if lat is not None:
            latencies.append(lat)
    if latencies:
        out["latency_us"] = Fit(
            sum(latencies) / len(latencies),
            f"fitted from {origin}: mean of the h2d/d2h fits' intercepts "
            "(host-bound samples left out)",
        )
    return out


def local_copies(frame: pd.DataFrame, origin: str) -> dict[str, Fit]:
    """``local_copy_GBps`` and ``local_latency_us`` from the local pattern's fit."""
    got = _fit_pattern(frame, LOCAL_PATTERN)
    if got is None:
        return {}
    bw, lat, n = got
    if lat is None:
        return {
            "local_copy_GBps": Fit(
                bw,
                f"fitted from {origin}: local pattern's median rate at its largest size not "
                f"host-bound, over {n} devices (smaller copies were host-bound: no latency fit)",
            ),
            "local_latency_us": Fit(
                0.0, f"fitted from {origin}: folded into the rate above (one size not host-bound)"
            ),
        }
    how = f"local pattern, t = latency + size/bandwidth, median over {n} devices"
    return {
        "local_copy_GBps": Fit(bw, f"fitted from {origin}: {how}"),
        "local_latency_us": Fit(lat, f"fitted from {origin}: intercept of the same fit"),
    }


def api_cost(frame: pd.DataFrame, origin: str) -> dict[str, Fit]:
    """``api_us``: the host time per enqueued copy (host_enqueue_us / copies, median)."""
    rows = frame[frame["host_enqueue_us"].notna() & frame["copies"].notna() & (frame["copies"] > 0)]
    if rows.empty:
        return {}
    per = rows["host_enqueue_us"] / rows["copies"].astype("float64")
    return {
        "api_us": Fit(
            float(per.median()),
            f"fitted from {origin}: median host time per "
            f"enqueued copy (host_enqueue_us / copies over {len(rows)} samples)",
        )
    }


def _per_leg_rates(rows: pd.DataFrame) -> list[tuple[str, int, float, str]]:
    """Per fan-out (pattern, center): the rate of its slowest leg and how it was found.

    A fan-out sends the same bytes over each leg; its window ends with the slowest. With
    several sizes, t = fixed + size / rate fitted to the window per copy gives that rate
    without the window's fixed costs; with one size, aggregate / legs."""
    fit = fit_latency_bandwidth(rows).dropna(subset=["bandwidth_GBps"])
    out = []
    for _, r in fit.iterrows():
        center = int(r["src"] if r["pattern"] == PUSH_FANOUT else r["dst"])
        out.append((str(r["pattern"]), center, float(r["bandwidth_GBps"]), "fit"))
    done = {(p, c) for p, c, _, _ in out}
    s = summarize(rows[~rows["host_bound"].fillna(False).astype(bool)])
    s = s[s["size_bytes"] == s.groupby("pattern")["size_bytes"].transform("max")]
    for _, r in s.iterrows():
        center = int(r["src"] if r["pattern"] == PUSH_FANOUT else r["dst"])
        if (r["pattern"], center) not in done:
            out.append((str(r["pattern"]), center, float(r["bandwidth_GBps_median"]), "aggregate"))
    return out


def port_limit(
    frame: pd.DataFrame,
    links: Mapping[tuple[int, int], tuple[float, bool]],
    n: int,
    origin: str,
    *,
    devices: Sequence[int] | None = None,
) -> dict[str, Fit]:
    """``port_GBps`` from fan-outs, where the shared port bound them (``devices``: the
    devices the sweep measured, its ``params["devices"]``; all n when None).

    When a fan-out's slowest leg (:func:`_per_leg_rates`) is a switched one, clearly below
    its link's fitted rate and no faster than the unswitched legs, its k switched legs
    shared the port: port = k x that rate. ``links`` maps an ordered pair to (fitted rate,
    switched). The median over such fan-outs."""
    rows = _ok(frame)
    rows = rows[rows["pattern"].isin(FANOUT_PATTERNS) & (rows["direction"] == UNI)]
    if rows.empty:
        return {}
    found = []
    for pattern, center, rate, kind in _per_leg_rates(rows):
        out = pattern == PUSH_FANOUT
        peers = [p for p in map(int, devices or range(n)) if p != center]  # the sweep's
        legs = [links[(center, p) if out else (p, center)] for p in peers]
        switched = [bw for bw, sw in legs if sw]
        plain = [bw for bw, sw in legs if not sw]
        per_leg = rate / len(legs) if kind == AGGREGATE_ITEM else rate
        if (
            switched
            and per_leg < PORT_BINDS * min(switched)
            and (not plain or per_leg <= min(plain))
        ):
            found.append(float(per_leg * len(switched)))
    if not found:
        return {}
    return {
        "port_GBps": Fit(
            float(pd.Series(found).median()),
            f"fitted from {origin}: median over {len(found)} fan-outs of switched legs x the rate "
            "of the slowest leg (t = fixed + size/rate over the window; it was a switched leg "
            "below its link's rate: the shared port bound)",
        )
    }


#: A fan-out whose switched links carried less than this share of their sum met a limit.
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
    keys = [rows[k].astype("string").fillna("-") for k in POINT_KEYS]  # one point each
    stats = (
        pd.DataFrame({"per": per, "copies": copies})
        .groupby(keys)
        .agg(
            count=("per", "count"),
            std=("per", "std"),
            mean=("per", "mean"),
            copies=("copies", "median"),
        )
    )
    stats = stats[stats["count"] >= MIN_SAMPLES_FOR_JITTER]
    if stats.empty:
        return {}
    rel2 = (stats["std"] / stats["mean"]) ** 2 * stats["copies"]
    value = math.sqrt(float(rel2.mean()))
    if not math.isfinite(value):
        return {}
    return {
        "jitter": Fit(
            value,
            f"fitted from {origin}: root mean square over {len(stats)} points of std/mean of time "
            "per copy x sqrt(copies per sample) (copies taken as varying independently)",
        )
    }
