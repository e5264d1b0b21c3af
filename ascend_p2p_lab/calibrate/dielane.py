"""The twin-die HCCS lane of a calibrated A3 (docs/die-links.md): fitted from the run's
``hccs`` rows, written as ``[die_link.HCCS]``.

SIO is the twin dies' link class, fitted with the other classes from the run's copies
over the default path and its ``sio`` rows; ``hccs`` rows fit the lane (latency and rate
of ``t = latency + size / bandwidth`` over several sizes, else the median rate at one),
``both`` rows fit nothing (they are the two together). A run with no ``hccs`` row keeps
the lane of ``--topology``/``--preset``, said so, or has none.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> from ascend_p2p_lab.measure import sweep
    >>> with open_runtime("sim", "atlas800t-a3") as rt:
    ...     run = sweep(rt, pairs="6-7,7-6", sizes="16MiB,256MiB", samples=1,
    ...                 progress=False, die_link="hccs")
    >>> fits = lane_fits(run.samples, "run r")
    >>> abs(fits["bandwidth_GBps"].value - 127) < 3, abs(fits["latency_us"].value - 5) < 1
    (True, True)
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..results import fit_latency_bandwidth, summarize
from ..topology import Topology
from ..vocab import DIE_BOTH, DIE_HCCS, DST
from .fits import Fit

_LANE_KEYS = ("bandwidth_GBps", "nominal_GBps", "latency_us", "p2p", "switched")


def chosen(frame: pd.DataFrame, die_link: str) -> pd.Series:
    """Which rows took die link ``die_link`` (False for rows of a run without the column)."""
    if "die_link" not in frame:
        return pd.Series(False, index=frame.index)
    return frame["die_link"].eq(die_link).fillna(False).astype(bool)


def default_path(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows the link classes are fitted from: every row but the ``hccs`` and ``both``
    ones (an ``sio`` row is a copy over the twin dies' class, SIO)."""
    return frame[~(chosen(frame, DIE_HCCS) | chosen(frame, DIE_BOTH))]


def lane_fits(frame: pd.DataFrame, origin: str) -> dict[str, Fit]:
    """The lane's figures from the run's successful ``hccs`` pair rows ({} when none):
    the reads (dst pulls) where the run has both initiators."""
    ok = chosen(frame, DIE_HCCS) & frame["error_kind"].isna() & frame["bandwidth_GBps"].notna()
    rows = frame[ok]
    if rows.empty:
        return {}
    if (rows["initiator"] == DST).any():
        rows = rows[rows["initiator"] == DST]
    fit = fit_latency_bandwidth(rows).dropna(subset=["bandwidth_GBps"])
    out: dict[str, Fit] = {}
    if len(fit):
        how = (
            f"fitted from {origin}: median over {len(fit)} twin-die pairs of t = latency + "
            "size / bandwidth fitted to the hccs rows"
        )
        out["bandwidth_GBps"] = Fit(float(fit["bandwidth_GBps"].median()), how)
        out["latency_us"] = Fit(max(0.0, float(fit["latency_us"].median())), how + " (intercept)")
    else:
        s = summarize(rows)
        out["bandwidth_GBps"] = Fit(
            float(s["bandwidth_GBps_median"].median()),
            f"fitted from {origin}: median over {len(s)} twin-die pairs of the hccs rows' "
            "median rate at one size (latency folded into the rate)",
        )
    nominal = rows["nominal_GBps"].dropna()
    if len(nominal):
        out["nominal_GBps"] = Fit(
            float(nominal.median()),
            f"not fitted: the lane's rate on paper as {origin} recorded it",
            fitted=False,
        )
    out["p2p"] = Fit(True, f"fitted from {origin}: copies over the lane succeeded")
    return out


def die_lane(fits: dict[str, Fit], topology: Topology | None, origin: str) -> dict[str, Fit] | None:
    """The lane's figures: the fitted ones, the rest from the topology's lane (else the
    fitted rate and defaults); None when neither the run nor the topology has a lane."""
    base: Any = topology.die_hccs if topology is not None else None
    if not fits and base is None:
        return None
    out = dict(fits)
    for key in _LANE_KEYS:
        if key in out:
            continue
        if base is not None:
            assert topology is not None
            out[key] = Fit(
                getattr(base, key),
                f"not measured in {origin}: taken from topology {topology.name}",
                fitted=False,
            )
        elif key == "nominal_GBps":
            out[key] = Fit(out["bandwidth_GBps"].value, "no rate on paper known", fitted=False)
        elif key == "latency_us":
            out[key] = Fit(0.0, f"not measured in {origin}: one size only; 0", fitted=False)
        else:
            out[key] = Fit(False, f"not measured in {origin}: a lane of its own", fitted=False)
    return out
