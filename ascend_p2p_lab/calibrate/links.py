"""The link matrix of a run and the figures of each link class (bandwidth, latency, p2p).

Example:
    >>> from ascend_p2p_lab.schema import to_frame
    >>> rows = [{"src": 0, "dst": 1, "link": "HCCS", "pattern": "pair", "size_bytes": 4},
    ...         {"src": 1, "dst": 0, "link": "HCCS", "pattern": "pair", "size_bytes": 4}]
    >>> link_matrix(to_frame(rows))
    ((('X', 'HCCS'), ('HCCS', 'X')), 'link column of every ordered pair in the run')
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from ..results import fit_latency_bandwidth, summarize
from ..run import Run
from ..schema import LATENCY_PATTERN, PAIR_PATTERN, PAIR_PATTERNS
from ..topology import Topology
from ..topology.model import SELF
from ..vocab import DST, ON, P2P, SRC, UNI, UNREACHABLE
from .fits import OUTLIER_FRACTION, CalibrationError, Fit, PairOutlier

_GB_PER_US = 1e3  # bytes per microsecond in one GB/s


# ---- the link matrix ----------------------------------------------------------------------


def _device_count(run: Run, topology: Topology | None) -> int:
    frame = run.samples
    if run.meta.device_count:
        return run.meta.device_count
    if topology is not None:
        return topology.device_count
    devs = pd.concat([frame["src"], frame["dst"]]).dropna()
    return int(devs.max()) + 1 if len(devs) else 0


def link_matrix(
    frame: Run, topology: Topology | None = None
) -> tuple[tuple[tuple[str, ...], ...], str]:
    """The N x N link classes: from the run's ``link`` column per ordered pair, the rest
    from ``topology``. Returns (matrix, how); raises :class:`CalibrationError` when
    neither gives every pair, or when they disagree on a pair."""
    run = Run.of(frame)
    frame = run.samples
    n = _device_count(run, topology)
    if topology is not None and topology.device_count != n:
        raise CalibrationError(f"the run has {n} devices, the topology {topology.device_count}")
    rows = frame[
        frame["pattern"].isin(PAIR_PATTERNS)
        & frame["src"].notna()
        & frame["dst"].notna()
        & frame["link"].notna()
    ]
    seen: dict[tuple[int, int], str] = {}
    for (s, d), links in rows.groupby(["src", "dst"])["link"]:
        classes = sorted(set(links))
        if len(classes) > 1:
            raise CalibrationError(f"pair {s}->{d} has several link classes {classes} in the run")
        seen[(int(s), int(d))] = classes[0]
    cells = [[SELF] * n for _ in range(n)]
    missing: list[str] = []
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            theirs = topology.link(i, j) if topology is not None else None
            ours = seen.get((i, j))
            if ours and theirs and ours != theirs:
                raise CalibrationError(f"pair {i}->{j}: the run says {ours}, the topology {theirs}")
            cells[i][j] = ours or theirs or ""
            if not cells[i][j]:
                missing.append(f"{i}->{j}")
    if missing:
        raise CalibrationError(_missing_classes(frame, missing))
    from_run = len(seen) == n * (n - 1)
    how = (
        "link column of every ordered pair in the run"
        if from_run
        else f"{len(seen)} ordered pairs from the run's link column, the rest from "
        f"topology {topology.name if topology else '?'}"
    )
    return tuple(tuple(r) for r in cells), how


def _missing_classes(frame: pd.DataFrame, missing: list[str]) -> str:
    """Why the link matrix is incomplete: pairs the run measured without naming their
    class (an import without a topology capture), or pairs it did not measure."""
    pairs = frame[
        frame["pattern"].isin(PAIR_PATTERNS) & frame["src"].notna() & frame["dst"].notna()
    ]
    measured = {f"{int(s)}->{int(d)}" for s, d in zip(pairs["src"], pairs["dst"])}
    unnamed = [p for p in missing if p in measured]
    absent = [p for p in missing if p not in measured]
    said = []
    if unnamed:
        said.append(
            f"{len(unnamed)} measured pairs have no link class (e.g. {unnamed[0]}: "
            "an import without a topology capture)"
        )
    if absent:
        said.append(f"{len(absent)} ordered pairs are not in the run (e.g. {absent[0]})")
    return "; ".join(said) + ": give the server's --preset or --topology for their classes"


def with_links(frame: pd.DataFrame, links: tuple[tuple[str, ...], ...]) -> pd.DataFrame:
    """The rows with the link class of the matrix on every pair row that names none (an
    import's, whose classes come from --preset/--topology), so that they are fitted."""
    pairs = (
        frame["pattern"].isin(PAIR_PATTERNS)
        & frame["src"].notna()
        & frame["dst"].notna()
        & frame["link"].isna()
    )
    if not pairs.any():
        return frame
    out = frame.copy()
    out.loc[pairs, "link"] = [
        links[int(s)][int(d)] for s, d in zip(out.loc[pairs, "src"], out.loc[pairs, "dst"])
    ]
    return out


# ---- per link class -----------------------------------------------------------------------


def _p2p_rows(frame: pd.DataFrame, pattern: str) -> pd.DataFrame:
    """Successful one-direction copies with peer access on over the direct link."""
    ok = frame["error_kind"].isna() & frame["bandwidth_GBps"].notna()
    return frame[
        ok
        & (frame["pattern"] == pattern)
        & (frame["direction"] == UNI)
        & (frame["peer"] == ON)
        & (frame["path"] == P2P)
    ]


def _pair_rows(frame: pd.DataFrame, pattern: str) -> pd.DataFrame:
    """:func:`_p2p_rows`, the reads alone where the run has them."""
    rows = _p2p_rows(frame, pattern)
    if rows.empty:
        return rows
    # a run with both initiators: the read (dst pulls) is the link's rate in the model,
    # writes give push_efficiency (see push_fits)
    return rows[rows["initiator"] == DST] if (rows["initiator"] == DST).any() else rows


def has_pair_copies(frame: pd.DataFrame) -> bool:
    """Whether the run has a successful copy of a pair (or latency) pattern to fit."""
    return not (_pair_rows(frame, PAIR_PATTERN).empty and _pair_rows(frame, LATENCY_PATTERN).empty)


def push_fits(frame: pd.DataFrame, origin: str) -> dict[str, dict[str, Fit]]:
    """Per class, ``push_efficiency``: the write rate over the read rate, where the run
    (or runs concatenated) has pair copies both ways of issuing them; {} otherwise."""
    rows = _p2p_rows(frame, PAIR_PATTERN)
    if set(rows["initiator"].dropna()) != {SRC, DST}:
        return {}
    rates = {
        ini: _pair_figures(rows[rows["initiator"] == ini])
        .groupby("link")["bandwidth_GBps"]
        .median()
        for ini in ("src", "dst")
    }
    out = {}
    for cls in rates["src"].index.intersection(rates["dst"].index):
        ratio = float(rates["src"][cls] / rates["dst"][cls])
        how = (
            f"fitted from {origin}: median write rate over median read rate of the "
            f"class's pairs ({ratio:.3f})"
        )
        out[str(cls)] = {
            "push_efficiency": Fit(min(1.0, ratio), how),
            "pull_efficiency": Fit(min(1.0, 1.0 / ratio), how),
        }
    return out


def _pair_figures(rows: pd.DataFrame) -> pd.DataFrame:
    """Per ordered pair: bandwidth and latency of the fit, or one size's median rate."""
    fit = fit_latency_bandwidth(rows).dropna(subset=["bandwidth_GBps"])
    fit = fit[["src", "dst", "link", "latency_us", "bandwidth_GBps", "sizes"]]
    summary = summarize(rows[~rows["host_bound"].fillna(False).astype(bool)])
    largest = summary.loc[summary.groupby(["src", "dst"])["size_bytes"].idxmax()]
    done = set(zip(fit["src"], fit["dst"]))
    single = largest[[(s, d) not in done for s, d in zip(largest["src"], largest["dst"])]]
    one = pd.DataFrame(
        {
            "src": single["src"],
            "dst": single["dst"],
            "link": single["link"],
            "latency_us": math.nan,
            "bandwidth_GBps": single["bandwidth_GBps_median"],
            "sizes": 1,
            "size_bytes": single["size_bytes"],
            "us_per_copy": single["us_per_copy_median"],
        }
    )
    return pd.concat([fit, one], ignore_index=True) if len(one) else fit


def _latency_pattern(frame: pd.DataFrame, bw: Mapping[str, float]) -> dict[str, float]:
    """Per class: the latency pattern's time per copy at its smallest size, less the time
    the bytes take at the class's fitted bandwidth (median over the class's pairs)."""
    rows = _pair_rows(frame, LATENCY_PATTERN)
    if rows.empty:
        return {}
    s = summarize(rows)
    s = s[s["size_bytes"] == s.groupby(["src", "dst"])["size_bytes"].transform("min")]
    out = {}
    for cls, part in s.groupby("link"):
        if cls in bw:
            per = part["us_per_copy_median"] - part["size_bytes"] / (bw[cls] * _GB_PER_US)
            out[str(cls)] = max(0.0, float(per.median()))
    return out


def _class_figures(cls: str, part: pd.DataFrame, pattern: str, origin: str) -> dict[str, Fit]:
    """Bandwidth, and latency when the pairs had several sizes, of one class."""
    n, sizes = len(part), int(part["sizes"].max())
    bw = float(part["bandwidth_GBps"].median())
    how = (
        f"median over {n} ordered pairs of t = latency + size/bandwidth fitted to the "
        f"{pattern} pattern's median time per copy at {sizes} sizes"
        if sizes > 1
        else f"median over {n} ordered pairs of the {pattern} pattern's median rate at one "
        "size (latency folded into the rate)"
    )
    figs = {"bandwidth_GBps": Fit(bw, f"fitted from {origin}: {how}")}
    lat = part["latency_us"].dropna()
    if len(lat):
        figs["latency_us"] = Fit(
            max(0.0, float(lat.median())),
            f"fitted from {origin}: intercept of the same fit (median over {len(lat)} pairs)",
        )
    figs["p2p"] = Fit(True, f"fitted from {origin}: direct copies succeeded")
    return figs


def class_fits(frame: pd.DataFrame, origin: str) -> dict[str, dict[str, Fit]]:
    """Bandwidth and latency per link class from the pair (else latency) pattern."""
    rows = _pair_rows(frame, PAIR_PATTERN)
    pattern = PAIR_PATTERN
    if rows.empty:
        rows, pattern = _pair_rows(frame, LATENCY_PATTERN), LATENCY_PATTERN
    if rows.empty:
        return {}
    per_pair = _pair_figures(rows)
    out = {
        str(cls): _class_figures(str(cls), part, pattern, origin)
        for cls, part in per_pair.groupby("link")
    }
    for cls, figs in out.items():
        nominal = frame.loc[frame["link"] == cls, "nominal_GBps"].dropna()
        if len(nominal):
            figs["nominal_GBps"] = Fit(
                float(nominal.median()),
                f"not fitted: the link's rate on paper as {origin} "
                "recorded it (nominal_GBps column)",
                fitted=False,
            )
    lats = _latency_pattern(frame, {c: f["bandwidth_GBps"].value for c, f in out.items()})
    for cls, lat in lats.items():
        out[cls]["latency_us"] = Fit(
            lat,
            f"fitted from {origin}: latency pattern's median time per copy at its smallest size "
            "less size/bandwidth (median over the class's pairs)",
        )
        part = per_pair[per_pair["link"] == cls]
        if int(part["sizes"].max()) == 1 and pattern == PAIR_PATTERN:
            out[cls]["bandwidth_GBps"] = Fit(
                float((part["size_bytes"] / ((part["us_per_copy"] - lat) * _GB_PER_US)).median()),
                f"fitted from {origin}: median over {len(part)} ordered pairs of size / (time per "
                "copy - latency) at the pair pattern's one size",
            )
    for cls, figs in push_fits(frame, origin).items():
        out.setdefault(cls, {}).update(figs)
    for cls in _unreachable_classes(frame):
        out.setdefault(cls, {})["p2p"] = Fit(
            False, f"fitted from {origin}: the run found the pairs of this class unreachable"
        )
    return out


def pair_outliers(frame: pd.DataFrame) -> list[PairOutlier]:
    """The ordered pairs whose fitted bandwidth sits below ``OUTLIER_FRACTION`` of their
    class's median over the run's pairs, or above its inverse; the worst first."""
    rows = _pair_rows(frame, PAIR_PATTERN)
    if rows.empty:
        rows = _pair_rows(frame, LATENCY_PATTERN)
    if rows.empty:
        return []
    per_pair = _pair_figures(rows)
    median = per_pair.groupby("link")["bandwidth_GBps"].transform("median")
    fraction = per_pair["bandwidth_GBps"] / median
    far = per_pair[(fraction < OUTLIER_FRACTION) | (fraction > 1 / OUTLIER_FRACTION)]
    out = [
        PairOutlier(int(r.src), int(r.dst), str(r.link), float(r.bandwidth_GBps), float(m))
        for r, m in zip(far.itertuples(index=False), median[far.index])
    ]
    return sorted(out, key=lambda o: (abs(1 - o.fraction) * -1, o.src, o.dst))


def _unreachable_classes(frame: pd.DataFrame) -> list[str]:
    """Classes whose measured pairs were all unreachable (no peer access possible)."""
    rows = frame[frame["pattern"].isin(PAIR_PATTERNS) & frame["link"].notna()]
    out = []
    for cls, part in rows.groupby("link"):
        if (part["error_kind"] == UNREACHABLE).fillna(False).all():
            out.append(str(cls))
    return out
