"""n-of-m: a failing item is measured again before it fails.

``--attempts N --fail-at K``: an item that passes at its first measurement passes; one
that fails is measured again (only the failing items, nothing else) until it has passed
N - K + 1 times (PASS) or failed K times (FAIL), so it is measured at most N times. Its
row records ``attempts`` (how many times it was judged) and ``failures``; its
``measured`` value is the last attempt's, and its reason ends ``f of n attempts failed``
when it was measured again. N = K = 1 is one pass, as without the options.
Only measured items are tried again (bandwidth, latency, host copies, aggregates,
collectives); the topology (peer access, link class) and the verification of the bytes
are facts, not noise: they are judged once.

Example:
    >>> import pandas as pd
    >>> first = pd.DataFrame({"id": ["a", "b"], "kind": ["bandwidth"] * 2,
    ...                       "status": ["PASS", "FAIL"], "measured": [20.0, 10.0],
    ...                       "reason": [None, None]})
    >>> again = lambda open_: open_.assign(status="PASS", measured=21.0)
    >>> settle(first, 3, 2, again)[["id", "status", "attempts", "failures"]].values.tolist()
    [['a', 'PASS', 1, 0], ['b', 'PASS', 3, 1]]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from ..measure import make_spec
from ..run import Run
from ..runtime import Runtime
from ..schema import LATENCY_PATTERN, PAIR_PATTERN
from ..vocab import COLLECTIVE_ITEM, FAIL, PASS
from .criteria import Criteria
from .plan import Work
from .run import measure
from .severity import FAILED_STATE, FAILING
from .verdict import evaluate

#: item kinds that are measured, so a failure may be noise worth measuring again
RETRIED_KINDS = ("bandwidth", "latency", "host", "aggregate", "collective")
#: what an item measured again takes from its latest attempt
LATEST = ("status", "measured", "reason")
#: the defaults: one pass, as without n-of-m
ONE_PASS = (1, 1)


def check_attempts(attempts: int, fail_at: int) -> None:
    """Refuse a rule that cannot be met (ValueError: the command's exit 2)."""
    if attempts < 1 or fail_at < 1 or fail_at > attempts:
        raise ValueError(
            f"--attempts {attempts} --fail-at {fail_at}: need 1 <= --fail-at <= --attempts"
        )


def settle(
    first: pd.DataFrame,
    attempts: int,
    fail_at: int,
    again: Callable[[pd.DataFrame], pd.DataFrame],
    keys: Sequence[str] = ("id",),
) -> pd.DataFrame:
    """The items of a first pass with n-of-m applied: ``again(open_items)`` measures the
    open items once more and returns them judged (matched on ``keys``; an item it does
    not return counts as failed). Adds ``attempts`` and ``failures``."""
    check_attempts(attempts, fail_at)
    items = first.copy()
    failed = items["status"].isin(FAILING).to_numpy()  # a warned item is measured again too
    items["attempts"] = 1
    items["failures"] = failed.astype(int)
    passes = pd.Series(0, index=items.index)
    need = attempts - fail_at + 1
    todo = failed & items["kind"].isin(RETRIED_KINDS).to_numpy() & (fail_at > 1)
    while todo.any():
        open_ = items[todo]
        redo = again(open_.drop(columns=["attempts", "failures"]))
        latest = open_[list(keys)].merge(
            redo[[*keys, *LATEST]].drop_duplicates(list(keys)), on=list(keys), how="left"
        )
        latest.index = open_.index
        bad = latest["status"].ne(PASS)
        items.loc[open_.index, "attempts"] += 1
        items.loc[open_.index, "failures"] += bad.astype(int)
        passes.loc[open_.index] += (~bad).astype(int)
        lost = latest["status"].isna()
        items.loc[open_.index, "measured"] = latest["measured"]
        items.loc[open_.index, "status"] = latest["status"].fillna(FAIL)
        items.loc[open_.index, "reason"] = latest["reason"].where(~lost, "not measured again")
        todo = todo & (items["failures"] < fail_at).to_numpy() & (passes < need).to_numpy()
    settled_fail = items["failures"] >= fail_at
    items.loc[settled_fail, "status"] = _failed_state(items[settled_fail])
    items.loc[~settled_fail & (passes >= need), "status"] = PASS
    again_ = items["attempts"] > 1
    note = items["failures"].astype(str) + " of " + items["attempts"].astype(str)
    before = items["reason"].where(items["reason"].notna() & items["reason"].ne(""), None)
    items.loc[again_, "reason"] = (before.fillna("").where(before.isna(), before + "; ") + note)[
        again_
    ] + " attempts failed"
    return items


def _failed_state(items: pd.DataFrame) -> pd.Series:
    """FAIL, or WARN for an item of severity warn (:mod:`.severity`)."""
    if "severity" not in items:
        return pd.Series(FAIL, index=items.index, dtype=object)
    return items["severity"].map(FAILED_STATE).fillna(FAIL)


def retry_work(work: Sequence[Work], open_items: pd.DataFrame) -> list[Work]:
    """The specs of ``work`` cut down to what measures ``open_items`` again: the pair
    and latency patterns on the open items' pairs (per initiator), the host and
    aggregate patterns that have an open item (a spec of both kinds, as a fleet's, is
    split in two), the collectives when a collective is open."""
    out = []
    for w in work:
        patterns = w.spec.patterns
        if w.spec.operations is not None:  # the collectives
            if (open_items["kind"] == COLLECTIVE_ITEM).any():
                out.append(w)
            continue
        paired = tuple(p for p in patterns if p in (PAIR_PATTERN, LATENCY_PATTERN))
        mine = open_items[open_items["pattern"].isin(paired) & open_items["src"].notna()]
        if "initiator" in mine:
            mine = mine[mine["initiator"].isna() | mine["initiator"].eq(w.spec.initiator)]
        pairs = tuple(sorted({(int(s), int(d)) for s, d in zip(mine["src"], mine["dst"])}))
        if pairs:
            out.append(Work(w.label, replace(w.spec, patterns=paired, pairs=pairs)))
        others = set(open_items["pattern"])
        kept = tuple(p for p in patterns if p not in paired and p in others)
        if kept:
            out.append(Work(w.label, replace(w.spec, patterns=kept)))
    return out


def measure_again(
    rt: Runtime,
    criteria: Criteria,
    work: Sequence[Work],
    devices: Sequence[int] | None = None,
    **evaluate_options: Any,
) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """``again`` for :func:`settle` on a runtime: measure :func:`retry_work` of the open
    items (:func:`.run.measure`) and judge its rows against the criteria (a spec that
    stops on an error gives the rows it kept; an item it could not measure counts as
    failed)."""

    def again(open_items: pd.DataFrame) -> pd.DataFrame:
        runs = [measure(rt, w.spec)[0] for w in retry_work(work, open_items)]
        rows = Run.concat(runs).samples if runs else None
        return evaluate(criteria, None, rows, devices, **evaluate_options)

    return again


def host_attempts(
    rt: Runtime,
    run: Run,
    *,
    criteria: Criteria,
    attempts: int,
    fail_at: int,
    options: dict[str, Any],
) -> pd.DataFrame:
    """n-of-m on one host of a fleet, in its own runtime after its sweep (what the fleet's
    survey task calls): the host's rows judged, the failing items measured again with the
    fleet's sweep ``options`` cut to them (at the criteria's size); the items measured
    again, with ``attempts`` and ``failures`` (empty: none failed)."""
    first = evaluate(criteria, None, run.samples)
    work = [Work("fleet", make_spec(rt, **{**options, "sizes": [criteria.size_bytes]}))]
    items = settle(first, attempts, fail_at, measure_again(rt, criteria, work))
    return items.loc[items["attempts"] > 1, ["id", *LATEST, "attempts", "failures"]].reset_index(
        drop=True
    )


def merge_attempts(items: pd.DataFrame, per_host: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """A fleet's items (one row per host and item) with each host's items measured again
    (:func:`host_attempts`) in place of its first pass; every item gains ``attempts``
    and ``failures``."""
    out = items.copy()
    out["attempts"] = 1
    out["failures"] = out["status"].isin(FAILING).astype(int)
    frames = [f.assign(host=h) for h, f in per_host.items() if f is not None and len(f)]
    if not frames:
        return out
    again = pd.concat(frames, ignore_index=True).set_index(["host", "id"])
    key = pd.MultiIndex.from_arrays([out["host"].astype(str), out["id"]])
    hit = key.isin(again.index)
    for col in (*LATEST, "attempts", "failures"):
        out.loc[hit, col] = again[col].reindex(key[hit]).to_numpy()
    return out
