"""Spread as a criterion: how much an ordered pair's bandwidth samples swing, judged on
its own, beside their median.

A ``spread`` item per ordered pair, direction and initiator: the coefficient of
variation (CV, sample standard deviation over mean, in percent, as nccl-tests' ``i_cv%``
and nvbandwidth 0.9's per-cell CV) of the samples at the criteria's size, at most the
criterion's ``max_cv_percent``. A link whose median passes but whose samples dip now
and then fails its spread item, not its bandwidth item. The reason of a judged item
says the CV, the samples and their p90/p10 ratio. An item with fewer than two samples
whose timing stands is not judged (SKIP, with the reason): one sample has no spread.

The criterion derived from a model (:func:`from_rows`, ``criteria --preset``) is an
upper quantile of the CV the simulator's jitter alone gives: each copy's time is
``1 + jitter * N(0, 1)`` (at least 0.5; ``sim/jitter.py``), a sample of ``K`` copies
runs at ``K / sum(factors)`` of its rate, and the bar is the 99.9th percentile of the
CV of ``samples`` such samples (:data:`TRIALS` seeded draws) times :data:`MARGIN`. For
the A2 preset (jitter 0.01, 3 samples of one 64 MiB copy) that is 2.61 % x 1.5 =
3.91 %: the CV of 3 samples over the jitter is about ``jitter * sqrt(chi2(2) / 2)``,
so a healthy item exceeds the bar with a probability of about 2e-7 (``exp(-3.91**2)``),
while one sample at 0.9 of the other two gives 5.9 %. A model without jitter says
nothing of spread: no criterion is derived.

Example:
    >>> round(expected_cv(0.01, samples=3, copies=1), 2)
    2.61
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import pandas as pd

from ..schema import PAIR_PATTERN
from ..units import format_size
from ..vocab import FAIL, INITIATOR_WORDS, PASS, SKIP, VERIFICATION

#: the criteria key of a spread bar, and its unit (a percentage of the mean)
KEY, UNIT = "max_cv_percent", "% CV"
#: the upper quantile of the jitter's CV a derived bar starts from, and its margin
QUANTILE, MARGIN = 0.999, 1.5
#: seeded draws of ``samples`` samples each behind :func:`expected_cv`
TRIALS = 20000
#: draws above this many copies use the sum's normal approximation (mean K, sd j sqrt K)
EXACT_DRAWS = 4_000_000
#: the jitter behind :func:`for_samples` (the ratio does not depend on it)
REFERENCE_JITTER = 0.01
#: a copy's time factor never falls below this (as sim/jitter.py clips it)
FLOOR = 0.5
_OK_KINDS = (VERIFICATION,)  # samples whose timing stands (their bytes are judged apart)


@functools.lru_cache(maxsize=64)
def expected_cv(
    jitter: float, *, samples: int, copies: int, quantile: float = QUANTILE, seed: int = 0
) -> float:
    """The ``quantile`` of the CV (percent) of ``samples`` samples of ``copies`` copies
    each when only the jitter moves them: each copy's time factor ``1 + jitter * N(0,
    1)``, at least 0.5 (the simulator's, ``sim/jitter.py``); a sample's rate
    ``copies / sum(factors)``. 0 without jitter; NaN for fewer than two samples."""
    if samples < 2:
        return math.nan
    if not jitter:
        return 0.0
    rng = np.random.default_rng(seed)
    if TRIALS * samples * copies <= EXACT_DRAWS:
        f = np.maximum(1.0 + jitter * rng.standard_normal((TRIALS, samples, copies)), FLOOR)
        total = f.sum(axis=2)
    else:  # many copies: their sum is normal (the floor is many sigmas away)
        total = copies + jitter * math.sqrt(copies) * rng.standard_normal((TRIALS, samples))
    rate = copies / total
    cv = rate.std(axis=1, ddof=1) / rate.mean(axis=1) * 100
    return float(np.quantile(cv, quantile))


def _stats(rows: pd.DataFrame, size: int, keys: list[str]) -> pd.DataFrame:
    """Per pair item (``keys``): n, mean, sd, min, max, p10 and p90 of the samples whose timing
    stands, at the criteria's size."""
    r = rows[(rows["pattern"] == PAIR_PATTERN) & (rows["size_bytes"] == size)]
    kind = r["error_kind"].astype(object)
    r = r[(kind.isna() | kind.isin(_OK_KINDS)).to_numpy()]
    if not len(r):
        return pd.DataFrame(columns=[*keys, "n", "mean", "sd", "low", "high", "p10", "p90"])
    g = r.groupby(keys, dropna=False, observed=True, sort=False)["bandwidth_GBps"]
    out = g.agg(n="count", mean="mean", sd="std", low="min", high="max").reset_index()
    q = g.quantile([0.1, 0.9]).unstack()
    q.columns = ["p10", "p90"]
    return out.merge(q.reset_index(), on=keys, how="left")


def for_samples(n: int, samples: int) -> float:
    """What a bar set for ``samples`` samples is multiplied by for an item of ``n``: the
    ratio of the jitter's CV quantile at n to that at ``samples`` (free of the jitter's
    scale; 1 when they agree)."""
    if n == samples or n < 2 or samples < 2:
        return 1.0
    ref = expected_cv(REFERENCE_JITTER, samples=samples, copies=1)
    return expected_cv(REFERENCE_JITTER, samples=n, copies=1) / ref


def items(
    expected: pd.DataFrame,
    rows: pd.DataFrame,
    size: int,
    samples: int,
    hosts: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """``spread`` items: the criteria of every ordered pair (``expected``: src, dst,
    link, direction, initiator, value, basis, line) judged against the CV of its
    samples (per host of ``hosts``, a one-column frame, when judging a fleet); a bar
    for ``samples`` samples is scaled for an item of another count (:func:`for_samples`)."""
    if not len(expected):
        return pd.DataFrame()
    keys = [] if hosts is None else ["host"]
    on = [*keys, "src", "dst", "direction", "initiator"]
    if hosts is not None:
        expected = hosts.merge(expected, how="cross")
    m = expected.merge(_stats(rows, size, on), on=on, how="left")
    n = m["n"].fillna(0).astype(int)
    cv = (m["sd"] / m["mean"] * 100).where(n >= 2)
    scale = n.map({k: for_samples(k, samples) for k in n.unique()}).astype(float)
    bar = (m["value"] * scale).round(3)
    over = (cv > bar).to_numpy()
    judged = cv.notna().to_numpy()
    status = np.where(~judged, SKIP, np.where(over, FAIL, PASS))
    reason = pd.Series(None, index=m.index, dtype=object)
    reason[(n == 0).to_numpy()] = "not measured"
    few = ((n > 0) & (n < 2)).to_numpy()
    reason[few] = "one sample whose timing stands: spread needs at least two (not judged)"
    other = (scale != 1).to_numpy()
    reason[other] = (
        "the bar is for " + str(samples) + " samples: x" + scale[other].round(3).astype(str)
    )
    if over.any():
        ratio = (m["p90"] / m["p10"]).round(3).astype(str)
        reason[over] = (
            n[over].astype(str)
            + " samples from "
            + m["low"].round(2).astype(str)[over]
            + " to "
            + m["high"].round(2).astype(str)[over]
            + " GB/s swing more than the jitter explains (p90/p10 "
            + ratio[over]
            + ")"
            + np.where(other[over], "; " + reason[over].astype(str), "")
        )
    return m.assign(
        kind="spread",
        name="spread " + m["direction"] + " " + m["initiator"].map(INITIATOR_WORDS),
        pattern=PAIR_PATTERN,
        size_bytes=size,
        status=status,
        reason=reason,
        criterion=bar,
        measured=cv.round(4),
    )


def from_rows(
    rows: pd.DataFrame, links: pd.DataFrame, *, size: int, samples: int, jitter: float, origin: str
) -> list[dict[str, Any]]:
    """Spread criteria per link class, direction and initiator from a model's rows (its
    copies per sample) and the jitter it would run with (see the module docstring);
    none without jitter or with fewer than two samples."""
    if not jitter or samples < 2:
        return []
    r = rows[(rows["pattern"] == PAIR_PATTERN) & (rows["size_bytes"] == size)]
    r = r[r["error_kind"].isna()].merge(links, on=["src", "dst"], suffixes=("_row", ""))
    out: list[dict[str, Any]] = []
    per = r.groupby(["link", "direction", "initiator"], observed=True)["copies"].median()
    for (cls, direction, initiator), copies in per.items():
        k = max(1, int(copies))
        q = expected_cv(float(jitter), samples=samples, copies=k)
        out.append(
            {
                "kind": "spread",
                "link": cls,
                "direction": direction,
                "initiator": initiator,
                "bound": "max",
                "unit": UNIT,
                "value": round(q * MARGIN, 3),
                "basis": f"{origin}: jitter {jitter:g} per copy (sim/jitter.py), "
                f"{samples} samples of {k} cop{'y' if k == 1 else 'ies'} at "
                f"{format_size(size)}: the {QUANTILE * 100:g}th percentile of their CV "
                f"over {TRIALS} seeded draws, {q:.3f} %, x {MARGIN:g}",
            }
        )
    return out
