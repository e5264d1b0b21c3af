"""Fleet analysis in pure pandas: each link against its class, the odd links named.

For every host and ordered pair, :func:`link_table` takes the median bandwidth of the
unidirectional peer-on P2P copies (pattern ``pair``) at one size, by default the largest
the fleet measured. :func:`link_fractions` divides it by the median of its link class
(HCCS, PIX, SIO, ...) across the whole fleet, or across a ``reference`` run (a baseline
run, or a run of the preset); a link the host could not measure (a failure kind, such as
a lost device or refused peer access) has the fraction
:data:`~ascend_p2p_lab.comparison.LOST_RATIO` (0.0), as in run comparison.
:func:`outliers` lists the links below a threshold, :func:`host_table` gives one row per
host, and :func:`verdict` the machine-readable result and exit status.

Example:
    >>> from ascend_p2p_lab.schema import to_frame
    >>> def row(host, src, dst, gbps):
    ...     return {"host": host, "src": src, "dst": dst, "link": "HCCS", "pattern": "pair",
    ...             "direction": "uni", "peer": "on", "path": "p2p", "initiator": "src",
    ...             "size_bytes": 1 << 24, "bandwidth_GBps": gbps}
    >>> rows = [row(h, s, d, 25.0) for h in ("a", "b", "c") for s, d in ((0, 1), (1, 0))]
    >>> rows[-1] = row("c", 1, 0, 10.0)
    >>> fr = link_fractions(to_frame(rows))
    >>> outliers(fr, 0.9)[["host", "src", "dst", "fraction"]].values.tolist()
    [['c', 1, 0, 0.4]]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..comparison import DEFAULT_THRESHOLD, LOST_RATIO, records
from ..results import FAILURE_KINDS
from ..run import Run, samples_of
from ..schema import PAIR_PATTERN, POINT_KEYS

#: The rows a link's bandwidth is read from.
LINK_CASE = {"pattern": PAIR_PATTERN, "direction": "uni", "peer": "on"}
#: :func:`link_fractions`' columns, in order.
FRACTION_COLUMNS = [
    "host",
    "src",
    "dst",
    "link",
    "size_bytes",
    "bandwidth_GBps",
    "class_median_GBps",
    "fraction",
    "error_kind",
]
#: :func:`host_table`'s columns, in order.
HOST_COLUMNS = [
    "host",
    "status",
    "links",
    "outliers",
    "host_bound_share",
    "errors",
    "error_kind",
    "error",
]
EXIT_HEALTHY, EXIT_FINDING, EXIT_INTERRUPTED = 0, 1, 130


def link_table(frame: Run, size: int | None = None) -> pd.DataFrame:
    """One row per host and ordered pair: ``host, src, dst, link, size_bytes,
    bandwidth_GBps`` (median of the samples) and ``error_kind`` (a failure kind when no
    sample was measured). Pairs that are results without a number (unreachable) are
    left out; ``size`` None is the largest size among the rows."""
    cols = ["host", "src", "dst", "link", "size_bytes", "bandwidth_GBps", "error_kind"]
    rows = samples_of(frame)
    keep = pd.Series(True, index=rows.index)  # the link case's rows (LINK_CASE)
    for col, value in LINK_CASE.items():
        keep &= (rows[col] == value).fillna(False).astype(bool)
    rows = rows[keep]
    if rows.empty:
        return pd.DataFrame(columns=cols)
    size = int(rows["size_bytes"].max()) if size is None else int(size)
    rows = rows[rows["size_bytes"] == size]
    kinds = rows["error_kind"]
    good = rows[kinds.isna()]
    failed = rows[kinds.isin(FAILURE_KINDS).fillna(False).astype(bool)]
    keys = ["host", "src", "dst", "link"]
    measured = good.groupby(keys, sort=True)["bandwidth_GBps"].median().reset_index()
    lost = failed.groupby(keys, sort=True)["error_kind"].first().reset_index()
    out = measured.merge(lost, on=keys, how="outer")
    out.loc[out["bandwidth_GBps"].notna(), "error_kind"] = pd.NA
    out.insert(4, "size_bytes", size)
    out["error_kind"] = out["error_kind"].astype("string")
    return out.sort_values(["host", "src", "dst"], ignore_index=True)[cols]


def link_fractions(
    frame: Run, reference: Run | None = None, *, size: int | None = None
) -> pd.DataFrame:
    """Each link's bandwidth as a fraction of its link class's median bandwidth, across
    the fleet (``frame``) or across ``reference`` (a baseline run or a preset's run, at
    the same size); a link that was lost has fraction 0.0. Columns
    :data:`FRACTION_COLUMNS`."""
    links = link_table(frame, size)
    if links.empty:
        return pd.DataFrame(columns=FRACTION_COLUMNS)
    size = int(links["size_bytes"].iloc[0])
    ref = links if reference is None else link_table(reference, size)
    medians = ref.dropna(subset=["bandwidth_GBps"]).groupby("link")["bandwidth_GBps"].median()
    links["class_median_GBps"] = links["link"].map(medians).astype("float64")
    links["fraction"] = links["bandwidth_GBps"] / links["class_median_GBps"]
    lost = links["bandwidth_GBps"].isna() & links["error_kind"].notna()
    links.loc[lost, "fraction"] = LOST_RATIO
    return links[FRACTION_COLUMNS]


def outliers(fractions: pd.DataFrame, threshold: float = DEFAULT_THRESHOLD) -> pd.DataFrame:
    """The links whose fraction is below ``threshold`` (lost links included), by host
    and then from the worst."""
    below = fractions[(fractions["fraction"] < threshold).fillna(False).astype(bool)]
    return below.sort_values(["host", "fraction", "src", "dst"], ignore_index=True)


def _host_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Per host, in one pass over the fleet's rows (1,024 hosts: benchmarks/check_scale.py):
    ``host_bound_share`` (of the measured points, as :func:`summarize` counts them),
    ``errors`` (points lost, as :func:`failures` counts them), ``row_kinds``."""
    cols = ["host_bound_share", "errors", "row_kinds"]
    if frame.empty:
        return pd.DataFrame(columns=cols)
    keys = ["host", *POINT_KEYS]
    points = (
        frame.groupby(keys, dropna=False, observed=True, sort=False)
        .agg(bw=("bandwidth_GBps", "median"), hb=("host_bound", "any"))
        .reset_index()
    )
    share = points[points["bw"].notna()].groupby("host", observed=True)["hb"].mean()
    bad = frame[frame["error_kind"].isin(FAILURE_KINDS).fillna(False).astype(bool)]
    lost = bad.drop_duplicates([*keys, "error_kind", "error_code", "error_call"])
    errors = lost.groupby("host", observed=True).size()
    kinds = bad.groupby("host", observed=True)["error_kind"].agg(
        lambda k: ",".join(sorted(set(k.astype(str))))
    )
    parts = {"host_bound_share": share.astype(float), "errors": errors, "row_kinds": kinds}
    for part in parts.values():
        part.index = part.index.astype(str)  # categorical hosts: plain names
    return pd.DataFrame(parts)


def host_table(
    frame: Run,
    fractions: pd.DataFrame,
    statuses: Iterable[Mapping[str, Any]],
    threshold: float = DEFAULT_THRESHOLD,
) -> pd.DataFrame:
    """One row per host (``statuses``: each host's ``host``, ``status``, ``error_kind``,
    ``error``): links measured, outliers, share of measured points that were host-bound,
    points lost to errors (``errors``), and the error kinds. Columns
    :data:`HOST_COLUMNS`."""
    below = outliers(fractions, threshold)
    per_host = _host_rows(samples_of(frame))
    links = fractions[fractions["bandwidth_GBps"].notna()].groupby("host").size()
    n_below = below.groupby("host").size()
    rows = []
    for st in statuses:
        host = st["host"]
        extra = per_host.loc[host] if host in per_host.index else {}
        share, errors = extra.get("host_bound_share", np.nan), extra.get("errors", 0)
        row_kinds = extra.get("row_kinds", "")
        kinds = [k for k in (st.get("error_kind"), row_kinds) if isinstance(k, str) and k]
        rows.append(
            {
                "host": host,
                "status": st["status"],
                "links": int(links.get(host, 0)),
                "outliers": int(n_below.get(host, 0)),
                "host_bound_share": share,
                "errors": 0 if pd.isna(errors) else int(errors),
                "error_kind": ",".join(kinds),
                "error": st.get("error") or "",
            }
        )
    return pd.DataFrame(rows, columns=HOST_COLUMNS)


def verdict(
    fractions: pd.DataFrame,
    hosts: pd.DataFrame,
    threshold: float = DEFAULT_THRESHOLD,
    *,
    interrupted: bool = False,
) -> dict[str, Any]:
    """The fleet's result as plain data: ``hosts`` (the host table), ``outliers`` (host,
    src, dst, link, fraction, ...), ``failed_hosts`` and ``exit_status``: 130 when the
    survey was interrupted, 1 when a link is below the threshold, a host failed or a host
    lost points to errors, else 0."""
    below = outliers(fractions, threshold)
    failed = hosts[hosts["status"] == "failed"]
    finding = not below.empty or not failed.empty or bool((hosts["errors"] > 0).any())
    size = None if fractions.empty else int(fractions["size_bytes"].iloc[0])
    return {
        "threshold": threshold,
        "size_bytes": size,
        "hosts": records(hosts, digits=6),
        "outliers": records(below, digits=6),
        "failed_hosts": records(failed[["host", "error_kind", "error"]], digits=6),
        "exit_status": (
            EXIT_INTERRUPTED if interrupted else EXIT_FINDING if finding else EXIT_HEALTHY
        ),
    }
