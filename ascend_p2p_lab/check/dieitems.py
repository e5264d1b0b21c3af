"""A check of the A3's links between the two dies of a card: criteria and items per die link.

On a server with the choice (an A3: SIO and an HCCS lane between the dies of each card,
docs/die-links.md) the criteria may hold ``[[die_link]]`` tables::

    [[die_link]]                   # per die link: every twin-die pair, or one (pair = [6, 7])
    die_link = "hccs"              # sio | hccs
    initiator = "dst"              # dst pulls (a read) | src pushes (a write)
    min_GBps = 114.3
    basis = "..."

The check then measures each twin-die pair over each die link (a pair sweep with
``die_link``, :mod:`..measure.diechoice`) and judges one item per die link and pair,
``die_link hccs pull 6->7``: a fault on one card's HCCS lane fails that card's ``hccs``
items while its ``sio`` items pass. The ordinary pair items judge only the rows of no
die link (a twin pair's SIO figure is not mixed with its HCCS lane's).

Example:
    >>> from ascend_p2p_lab.check.derive import criteria_from_preset
    >>> c = criteria_from_preset("atlas800t-a3", devices=(4, 5, 6, 7))
    >>> t = c.table[c.table["kind"] == "die_link"]
    >>> t[["die_link", "initiator", "link"]].values.tolist()
    [['hccs', 'dst', 'SIO'], ['hccs', 'src', 'SIO'], ['sio', 'dst', 'SIO'], ['sio', 'src', 'SIO']]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import msgspec
import numpy as np
import pandas as pd

from ..schema import PAIR_PATTERN
from ..topology.model import DIE_LINKS
from ..typedfile import Document, KeyPath, Positive, Text, Whole
from ..units import format_size
from ..vocab import DIE_BOTH, DIE_LINK_ITEM, FAIL, INITIATOR_WORDS, PAIR_INITIATORS, PASS, SIO, SKIP

KIND = DIE_LINK_ITEM
#: The link class of every twin-die pair (what the criteria's links matrix names).
TWIN_CLASS = SIO


class DieLinkTable(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """``[[die_link]]``: a floor per die link, for every twin-die pair or one pair."""

    basis: Text
    die_link: Literal[DIE_LINKS]  # type: ignore[valid-type]
    pair: tuple[Whole, Whole] | None = None  # the fields in the order written (criteria.Table)
    initiator: Literal[PAIR_INITIATORS] = "dst"  # type: ignore[valid-type]
    min_GBps: Positive
    severity: Literal["fail", "warn"] | None = None  # as every judged entry (.severity)
    action: Text | None = None


def die_record(doc: Document, at: KeyPath, entry: DieLinkTable, links: Any) -> dict[str, Any]:
    """A ``[[die_link]]`` entry's columns of the criteria table (its ``fill``,
    :class:`.criteria.Table`): the pair, when given, must be twin dies of the links matrix."""
    rec: dict[str, Any] = {
        "die_link": entry.die_link,
        "initiator": entry.initiator,
        "direction": "uni",
        "link": TWIN_CLASS,
        "pattern": PAIR_PATTERN,
    }
    if entry.pair is not None:
        src, dst = entry.pair
        if max(src, dst) >= len(links) or src == dst or links[src][dst] != TWIN_CLASS:
            why = f"pair {list(entry.pair)} is not two dies of one card (SIO in links)"
            raise doc.fail((*at, "pair"), why)
        rec.update(src=src, dst=dst)
    elif not any(c == TWIN_CLASS for row in links for c in row):
        raise doc.fail((*at, "die_link"), "no two dies of one card in topology.links (no SIO pair)")
    return rec


def _words(die_link: str) -> tuple[str, ...]:
    """The die links ``--die-link`` judges (``both``: sio and hccs)."""
    return DIE_LINKS if die_link == DIE_BOTH else (die_link,)


def die_link_only(criteria: Any, die_link: str, server: str) -> Any:
    """``check --die-link``: the criteria cut to their ``[[die_link]]`` items of
    ``die_link`` (``both``: sio and hccs) and the topology's; ValueError naming the server
    when they bound no such die link (a server without the choice)."""
    import dataclasses

    words = _words(die_link)
    t = criteria.table
    kept = t[(t["kind"] == KIND) & t["die_link"].isin(words)]
    if not len(kept):
        raise ValueError(
            f"--die-link: the criteria of server {server} bound no {' or '.join(words)} die "
            "link (the A3's twin dies only; criteria --preset atlas800t-a3 derives them)"
        )
    return dataclasses.replace(criteria, table=kept.reset_index(drop=True))


def die_rows_missing(rows: pd.DataFrame, die_link: str) -> str:
    """``check --run RUN --die-link``: the die links asked for that the run's rows never
    measured, as a refusal ("" when it holds them all), so that a run without them is not
    judged PASS on its topology alone."""
    words = _words(die_link)
    held = set(rows["die_link"].dropna()) if "die_link" in rows else set()
    missing = [w for w in words if w not in held]
    if not missing:
        return ""
    how = " and ".join(f"sweep --die-link {w}" for w in missing)
    return f"--die-link {die_link}: the run holds no rows over {' or '.join(missing)} ({how})"


def die_needs(table: pd.DataFrame) -> frozenset[tuple[str, str]]:
    """The (die link, initiator) sweeps criteria need."""
    t = table[table["kind"] == KIND]
    return frozenset(zip(t["die_link"], t["initiator"]))


def die_rows(rows: pd.DataFrame) -> pd.Series:
    """Which rows were measured over a chosen die link (False for a frame of old rows)."""
    if "die_link" not in rows:
        return pd.Series(False, index=rows.index)
    return rows["die_link"].notna()


def die_records(rows: pd.DataFrame, size: int, fraction: float, origin: str) -> list[dict]:
    """Criteria from known-good die-link rows: per die link and initiator, the median over
    the twin pairs of each pair's median, x fraction (``both`` rows judge nothing)."""
    r = rows[die_rows(rows) & rows["die_link"].isin(DIE_LINKS)]
    r = r[(r["pattern"] == PAIR_PATTERN) & (r["size_bytes"] == size) & r["error_kind"].isna()]
    per_pair = r.groupby(["die_link", "initiator", "src", "dst"])["bandwidth_GBps"].median()
    out = []
    for (word, initiator), s in per_pair.groupby(level=[0, 1]):
        med = float(s.median())
        out.append(
            {
                "kind": KIND,
                "die_link": word,
                "initiator": initiator,
                "direction": "uni",
                "link": TWIN_CLASS,
                "pattern": PAIR_PATTERN,
                "bound": "min",
                "unit": "GB/s",
                "value": round(med * fraction, 3),
                "basis": f"{origin}: median over {len(s)} twin-die pairs over {word} of each "
                f"pair's median, {med:.3f} GB/s at {format_size(size)}, x {fraction:g}",
            }
        )
    return out


def _expected(criteria: Any, devices: Sequence[int]) -> pd.DataFrame:
    """Every (twin pair, die link, initiator) the criteria bound: a pair's own
    criterion, else the one for every twin pair."""
    t = criteria.table[criteria.table["kind"] == KIND]
    cols = ["die_link", "initiator", "bound", "value", "unit", "basis", "line"]
    cols += ["severity", "action", "file"]  # how a failure counts (check.severity)
    devs = set(devices)
    twins = [
        (a, b)
        for a, row in enumerate(criteria.links)
        for b, c in enumerate(row)
        if c == TWIN_CLASS and a in devs and b in devs
    ]
    pairs = pd.DataFrame(twins, columns=["src", "dst"])
    every = pairs.merge(t[t["src"].isna()][cols], how="cross")
    own = t[t["src"].notna()][["src", "dst", *cols]].astype({"src": int, "dst": int})
    own = own[own["src"].isin(devs) & own["dst"].isin(devs)]
    out = pd.concat([own, every], ignore_index=True)
    return out.drop_duplicates(["src", "dst", "die_link", "initiator"])


def die_items(
    criteria: Any, rows: pd.DataFrame, devices: Sequence[int], hosts: pd.DataFrame | None = None
) -> pd.DataFrame:
    """One item per twin pair, die link and initiator the criteria bound, judged on the
    die-link rows at the criteria's size (per host of ``hosts``, a fleet)."""
    expected = _expected(criteria, devices)
    if not len(expected):
        return pd.DataFrame()
    keys = [] if hosts is None else ["host"]
    if hosts is not None:
        expected = hosts.merge(expected, how="cross")
    r = rows[die_rows(rows) & (rows["size_bytes"] == criteria.size_bytes)]
    on = [*keys, "src", "dst", "die_link", "initiator"]
    r = r.assign(_v=r["bandwidth_GBps"].where(r["error_kind"].isna()), _bad=r["error_kind"].notna())
    pts = (
        r.astype({"src": int, "dst": int})
        .groupby(on, dropna=False)
        .agg(measured=("_v", "median"), n=("_v", "size"), lost=("_bad", "sum"))
        .reset_index()
        if len(r)
        else pd.DataFrame(columns=[*on, "measured", "n", "lost"])
    )
    m = expected.merge(pts, on=on, how="left")
    measured = m["measured"].astype(float)
    unseen, lost = m["n"].isna(), m["lost"].fillna(0) > 0
    status = np.select([unseen, lost, measured >= m["value"]], [SKIP, FAIL, PASS], FAIL)
    reason = np.select(
        [unseen, lost], ["not measured", "lost: " + m["lost"].fillna(0).astype(int).astype(str)], ""
    )
    return m.assign(
        kind=KIND,
        name="die_link " + m["die_link"] + " " + m["initiator"].map(INITIATOR_WORDS),
        pattern=PAIR_PATTERN,
        link=TWIN_CLASS,
        direction="uni",
        size_bytes=criteria.size_bytes,
        status=status,
        reason=pd.Series(reason, index=m.index).replace("", None),
        criterion=m["value"],
        measured=measured.round(4),
    )
