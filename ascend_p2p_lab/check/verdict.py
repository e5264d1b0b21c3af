"""The verdict: criteria, a peer table and measured rows in; one row per item out.

Pure pandas, vectorised, and host-aware: when the rows carry a ``host`` column (a fleet),
every item is judged per host. An item is PASS, FAIL or SKIP:

- ``peer_access`` / ``link_class`` per ordered pair: the peer table against the expected
  matrices (``peer_ok``: aclrtDeviceCanAccessPeer says 1 and enabling works); a class
  nobody reported ("NA": no topology query, no npu-smi, no --topology) is a SKIP;
- ``bandwidth <uni|bi> <pull|push>`` per ordered pair: the median of the samples at the
  criteria's size against the criterion of the pair, else of the pair's *expected* link
  class; ``latency`` per ordered pair (time per copy, at most); ``host <h2d|d2h>`` per
  device; ``aggregate <pattern>`` per device (fan-outs) or card pair;
- ``verification <family>``: no sample whose bytes arrived wrong;
- ``spread <uni|bi> <pull|push>`` per ordered pair: the CV of its samples (:mod:`.spread`).

A point that lost samples (a runtime failure, an unreachable pair, a lost device) fails
its item, with the reason as data; a point the installed pyACL cannot measure
(``missing_call``) is a SKIP; a criterion nothing measured is a SKIP ("not measured").

Example:
    >>> import pandas as pd
    >>> from ascend_p2p_lab.check.criteria import criteria_from_text
    >>> c = criteria_from_text('''schema_version = 1
    ... [topology]
    ... links = [["X", "HCCS"], ["HCCS", "X"]]
    ... peer_access = [["X", 1], [1, "X"]]
    ... basis = "doc"
    ... ''')
    >>> peer = pd.DataFrame({"src": [0, 1], "dst": [1, 0], "link": ["HCCS", "PIX"],
    ...                      "peer_ok": [True, False], "reason": [None, "refused"]})
    >>> items = evaluate(c, peer, None)
    >>> items[["id", "status"]].values.tolist()  # doctest: +NORMALIZE_WHITESPACE
    [['peer_access 0->1', 'PASS'], ['peer_access 1->0', 'FAIL'],
     ['link_class 0->1', 'PASS'], ['link_class 1->0', 'FAIL']]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..patterns.cards import group_name
from ..results import card_keys
from ..schema import (
    CARD_PATTERN,
    CARD_PATTERNS,
    DEVICE_TO_HOST,
    FAILURE_KINDS,
    FANOUT_PATTERNS,
    HOST_PATTERNS,
    HOST_TO_DEVICE,
    LATENCY_PATTERN,
    PAIR_PATTERN,
    PAIR_PATTERNS,
    PULL_FANOUT,
    PUSH_FANOUT,
)
from ..vocab import (
    AGGREGATE_ITEM,
    FAIL,
    HOST_ITEM,
    INITIATOR_WORDS,
    LATENCY_ITEM,
    MISSING_CALL,
    NA,
    PASS,
    SKIP,
    VERIFICATION,
)
from . import collective, spread
from .criteria import Criteria
from .dieitems import die_items, die_rows
from .severity import GRADE_COLUMNS, JUDGED, graded

#: What keys a card pair: its senders and its receivers (devices), never its label.
CARD_KEYS = ("senders", "receivers")

#: Columns of the items table, in order (``host`` first when judging a fleet).
#: ``pattern``: the row pattern a measured item judges (empty for the topology's items).
ITEM_COLUMNS = (
    *("name", "id", "kind", "pattern", "status", "measured", "criterion", "bound", "unit", "src"),
    *("dst", "device", "group", "senders", "receivers", "link", "direction", "initiator"),
    *("size_bytes", "reason", "basis", "criteria_line"),
)
#: Row patterns whose verification an item family covers
VERIFY_FAMILIES = {
    PAIR_PATTERN: PAIR_PATTERNS,
    HOST_TO_DEVICE: (HOST_TO_DEVICE,),
    DEVICE_TO_HOST: (DEVICE_TO_HOST,),
    PUSH_FANOUT: (PUSH_FANOUT,),
    PULL_FANOUT: (PULL_FANOUT,),
    CARD_PATTERN: CARD_PATTERNS,
}
_OK_KINDS = ("verification",)  # samples whose timing stands (their bytes are judged apart)


def _pairs(criteria: Criteria, devices: Sequence[int] | None) -> pd.DataFrame:
    """Every ordered pair among devices with its expected link class and peer access."""
    devs = range(criteria.device_count) if devices is None else devices
    recs = [
        (a, b, criteria.links[a][b], criteria.peer_access[a][b])
        for a in devs
        for b in devs
        if a != b
    ]
    return pd.DataFrame(recs, columns=["src", "dst", "expected_link", "expected_peer"])


def _error_text(kind: object, code: object, call: object) -> str:
    parts = [str(kind)]
    if not pd.isna(code):
        parts.append(f"ACL {int(code)}")  # type: ignore[call-overload]
    if not pd.isna(call):
        parts.append(f"in {call}")
    return " ".join(parts)


def topology_items(
    criteria: Criteria,
    peer: pd.DataFrame,
    devices: Sequence[int] | None = None,
    keys: Sequence[str] = (),
) -> pd.DataFrame:
    """``peer_access`` and ``link_class`` items, one per ordered pair (and host: keys)."""
    keys = list(keys)
    pairs = _pairs(criteria, devices)
    got = peer[[*keys, "src", "dst", "link", "peer_ok", "reason"]].astype(
        {"src": "Int64", "dst": "Int64"}
    )
    m = pairs.astype({"src": "Int64", "dst": "Int64"}).merge(
        got, on=["src", "dst"], how="inner" if keys else "left"
    )
    seen = m["peer_ok"].notna()
    access = m.assign(
        name="peer_access",
        kind="peer_access",
        unit="bool",
        bound="eq",
        measured=m["peer_ok"].map(lambda v: None if pd.isna(v) else int(bool(v))),
        criterion=m["expected_peer"].astype(int),
        status=np.where(
            ~seen,
            SKIP,
            np.where(m["peer_ok"].fillna(False).astype(bool) == m["expected_peer"], PASS, FAIL),
        ),
        reason=m["reason"].where(seen, "not measured"),
        basis=criteria.topology_basis,
    )
    unreported = seen & m["link"].eq(NA) & m["expected_link"].ne(NA)
    link = m.assign(
        name="link_class",
        kind="link_class",
        unit="class",
        bound="eq",
        measured=m["link"],
        criterion=m["expected_link"],
        status=np.where(
            ~seen | unreported, SKIP, np.where(m["link"] == m["expected_link"], PASS, FAIL)
        ),
        reason=np.where(
            ~seen,
            "not measured",
            np.where(
                unreported,
                "no link class reported: the runtime has no topology query, and "
                "neither npu-smi info -t topo nor --topology gave one",
                None,
            ),
        ),
        basis=criteria.topology_basis,
    )
    return pd.concat([access, link], ignore_index=True).assign(link=m["expected_link"].tolist() * 2)


#: what a bar carries to its items beyond its number (:mod:`.severity` reads them)
_BAR = ["severity", "action", "file"]


def _expected_pairs(criteria: Criteria, devices: Sequence[int] | None, kind: str) -> pd.DataFrame:
    """The criterion of every ordered pair for a per-pair kind: the pair's own, else
    that of its expected link class."""
    t = criteria.table[criteria.table["kind"] == kind]
    pairs = _pairs(criteria, devices).rename(columns={"expected_link": "link"})
    cols = ["direction", "initiator", "bound", "value", "unit", "basis", "line", *_BAR]
    by_class = pairs.merge(t[t["src"].isna()][["link", *cols]], on="link")
    own = t[t["src"].notna()][["src", "dst", *cols]].astype({"src": int, "dst": int})
    keys = ["src", "dst", "direction", "initiator"]
    if kind == LATENCY_ITEM:
        by_class = by_class.drop(columns=["direction", "initiator"])
        own = own.drop(columns=["direction", "initiator"])
        keys = ["src", "dst"]
    by_pair = pairs.merge(own, on=["src", "dst"])
    out = pd.concat([by_pair, by_class], ignore_index=True).drop_duplicates(keys)
    return out.astype({"src": "Int64", "dst": "Int64"})


def _points(
    rows: pd.DataFrame, patterns: Sequence[str], size: int, keys: list[str], value: str
) -> pd.DataFrame:
    """Per point (keys): the median of the samples whose timing stands, how many samples
    were lost, the first loss as text, and whether a pyACL call was missing."""
    r = rows[rows["pattern"].isin(patterns) & (rows["size_bytes"] == size)]
    kind = r["error_kind"].astype(object)
    good = kind.isna() | kind.isin(_OK_KINDS)
    lost = ~good & ~kind.eq(MISSING_CALL).fillna(False)
    r = r.assign(
        _v=r[value].where(good),
        _lost=lost,
        _missing=kind.eq(MISSING_CALL).fillna(False).astype(bool),
    )
    g = r.groupby(keys, dropna=False, observed=True, sort=False)
    out = g.agg(
        measured=("_v", "median"),
        n=("_v", "size"),
        lost=("_lost", "sum"),
        missing=("_missing", "any"),
    ).reset_index()
    first = r[r["_lost"] | r["_missing"]].drop_duplicates(keys)
    why = first[keys].assign(
        why=[
            _error_text(k, c, call)
            for k, c, call in zip(first["error_kind"], first["error_code"], first["error_call"])
        ]
    )
    return out.merge(why, on=keys, how="left")


def _judge(
    expected: pd.DataFrame, points: pd.DataFrame, on: list[str], hosts: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Merge criteria with measured points and decide each item's status (per host of
    ``hosts``, a one-column frame, when judging a fleet)."""
    if hosts is not None:
        expected = hosts.merge(expected, how="cross")
    m = (
        expected.merge(points, on=on, how="left")
        if len(points)
        else expected.assign(measured=np.nan, n=np.nan, lost=np.nan, missing=np.nan, why=None)
    )
    measured = m["measured"].astype(float)
    why = m["why"].astype(object).where(m["why"].notna(), "")
    ok = np.where(m["bound"] == "min", measured >= m["value"], measured <= m["value"])
    lost = m["lost"].fillna(0) > 0
    missing = m["missing"].eq(True)
    unseen = m["n"].isna()
    status = np.select([unseen, missing, lost, ok], [SKIP, SKIP, FAIL, PASS], FAIL)
    reason = pd.Series(None, index=m.index, dtype=object)
    reason[measured.isna().to_numpy()] = "no sample measured"
    if lost.any():  # text only where it is needed: a fleet has ~500 items per host
        sel = lost.to_numpy()
        lost_n, n = m.loc[sel, "lost"].astype(int), m.loc[sel, "n"].astype(int)
        part = "lost " + lost_n.astype(str) + " of " + n.astype(str) + " samples: "
        reason[sel] = part.where(lost_n < n, "lost: ") + why[sel]
    reason[missing.to_numpy()] = "cannot measure: " + why[missing.to_numpy()]
    reason[unseen.to_numpy()] = "not measured"
    return m.assign(status=status, reason=reason, criterion=m["value"], measured=measured.round(4))


def pair_items(
    criteria: Criteria,
    rows: pd.DataFrame,
    devices: Sequence[int] | None,
    hosts: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """``bandwidth`` and ``latency`` items per ordered pair (and host of ``hosts``)."""
    keys = [] if hosts is None else ["host"]
    out = []
    bw = _expected_pairs(criteria, devices, "bandwidth")
    if len(bw):
        pts = _points(
            rows,
            (PAIR_PATTERN,),
            criteria.size_bytes,
            [*keys, "src", "dst", "direction", "initiator"],
            "bandwidth_GBps",
        )
        j = _judge(bw, pts, [*keys, "src", "dst", "direction", "initiator"], hosts)
        out.append(
            j.assign(
                kind="bandwidth",
                pattern=PAIR_PATTERN,
                size_bytes=criteria.size_bytes,
                name="bandwidth " + j["direction"] + " " + j["initiator"].map(INITIATOR_WORDS),
            )
        )
    lat = _expected_pairs(criteria, devices, "latency")
    if len(lat):
        pts = _points(
            rows,
            (LATENCY_PATTERN,),
            criteria.latency_size_bytes,
            [*keys, "src", "dst"],
            "latency_us",
        )
        out.append(
            _judge(lat, pts, [*keys, "src", "dst"], hosts).assign(
                kind="latency",
                name="latency",
                pattern=LATENCY_PATTERN,
                size_bytes=criteria.latency_size_bytes,
            )
        )
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame()


def _device_criteria(t: pd.DataFrame, devices: Sequence[int], key: str) -> pd.DataFrame:
    """Per device: its own criterion, else the one for every device (device absent)."""
    dev = pd.DataFrame({"device": list(devices)})
    every = dev.merge(t[t["device"].isna()].drop(columns=["device"]), how="cross")
    own = t[t["device"].notna() & t["device"].isin(list(devices))]
    out = pd.concat([own, every], ignore_index=True).drop_duplicates([key, "device"])
    return out.astype({"device": "Int64"})


def device_items(
    criteria: Criteria,
    rows: pd.DataFrame,
    devices: Sequence[int],
    hosts: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """``host`` items per device and direction, fan-out ``aggregate`` items per device."""
    keys = [] if hosts is None else ["host"]
    t = criteria.table
    out = []
    host = _device_criteria(
        t[t["kind"] == HOST_ITEM].drop(columns=["src", "dst"]), devices, "direction"
    )
    if len(host):
        r = rows[rows["pattern"].isin(HOST_PATTERNS).fillna(False).to_numpy(dtype=bool)]
        r = r.assign(
            device=r["dst"].where(r["pattern"] == HOST_TO_DEVICE, r["src"]),
            direction=r["pattern"].astype(object),
        )
        pts = _points(
            r, HOST_PATTERNS, criteria.size_bytes, [*keys, "device", "direction"], "bandwidth_GBps"
        )
        j = _judge(host, pts, [*keys, "device", "direction"], hosts)
        out.append(
            j.assign(
                name="host " + j["direction"],
                pattern=j["direction"],
                size_bytes=criteria.size_bytes,
            )
        )
    agg = t[(t["kind"] == AGGREGATE_ITEM) & ~t["pattern"].isin(CARD_PATTERNS)]
    fan = _device_criteria(agg.drop(columns=["src", "dst"]), devices, "pattern")
    if len(fan):
        r = rows[rows["pattern"].isin(FANOUT_PATTERNS).fillna(False).to_numpy(dtype=bool)]
        r = r.assign(device=r["src"].where(r["pattern"] == PUSH_FANOUT, r["dst"]))
        pts = _points(
            r, FANOUT_PATTERNS, criteria.size_bytes, [*keys, "device", "pattern"], "bandwidth_GBps"
        )
        j = _judge(fan, pts, [*keys, "device", "pattern"], hosts)
        out.append(j.assign(name="aggregate " + j["pattern"], size_bytes=criteria.size_bytes))
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame()


def card_items(
    criteria: Criteria, rows: pd.DataFrame, hosts: pd.DataFrame | None = None
) -> pd.DataFrame:
    """``aggregate card`` items per card pair measured (or named by a criterion)."""
    keys = [] if hosts is None else ["host"]
    t = criteria.table
    card = t[(t["kind"] == AGGREGATE_ITEM) & t["pattern"].isin(CARD_PATTERNS)]
    if not len(card):
        return pd.DataFrame()
    on = [*keys, *CARD_KEYS]
    pts = _points(
        card_keys(rows[rows["pattern"].isin(CARD_PATTERNS)]),
        CARD_PATTERNS,
        criteria.size_bytes,
        on,
        "bandwidth_GBps",
    )
    pairs = pts[list(CARD_KEYS)].drop_duplicates()
    unnamed = card[card["senders"].isna()].drop(columns=[*CARD_KEYS, "group"])
    exp = pd.concat(
        [card[card["senders"].notna()], pairs.merge(unnamed, how="cross")], ignore_index=True
    ).drop_duplicates(list(CARD_KEYS))
    exp["group"] = [group_name(s, r) for s, r in zip(exp["senders"], exp["receivers"])]
    j = _judge(exp, pts, on, hosts)
    return j.assign(name=f"aggregate {CARD_PATTERN}", size_bytes=criteria.size_bytes)


def _family_groups(
    r: pd.DataFrame, family: str, devices: Sequence[int], keys: list[str]
) -> pd.DataFrame:
    """Bad (``_bad``) and all samples per item of one verification family."""
    if family == PAIR_PATTERN:
        by = ["src", "dst"]
        r = r[(r["src"].isin(devices) & r["dst"].isin(devices)).to_numpy()]
    elif family == CARD_PATTERN:
        r, by = card_keys(r), list(CARD_KEYS)
    else:
        dev = r["src"] if family in (DEVICE_TO_HOST, PUSH_FANOUT) else r["dst"]
        r, by = r.assign(device=dev)[dev.isin(devices).to_numpy()], ["device"]
    g = r.groupby([*keys, *by], observed=True, sort=False)["_bad"]
    return g.agg(measured="sum", n="size").reset_index().assign(family=family)


def verification_items(
    rows: pd.DataFrame, devices: Sequence[int], keys: list[str], basis: str
) -> pd.DataFrame:
    """``verification`` items: per ordered pair (pair and latency copies), per device
    and host direction, per fan-out device, per card pair; measured = bad samples."""
    r = rows[[*keys, "pattern", "src", "dst", *CARD_KEYS, "error_kind"]]
    r = r.assign(_bad=(r["error_kind"].astype(object) == VERIFICATION).to_numpy(dtype=bool))
    parts = []
    for family, pats in VERIFY_FAMILIES.items():
        sel = r["pattern"].isin(pats).fillna(False).to_numpy(dtype=bool)
        if sel.any():
            parts.append(_family_groups(r[sel], family, devices, keys))
    if not parts:
        return pd.DataFrame()
    out = pd.concat(parts, ignore_index=True)
    if "senders" in out:  # the card pair as people read it, beside its devices
        out["group"] = [
            group_name(s, q) if isinstance(s, tuple) else None
            for s, q in zip(out["senders"], out["receivers"])
        ]
    failed = out["measured"].to_numpy() > 0
    reason = pd.Series(None, index=out.index, dtype=object)
    reason[failed] = (
        "bytes arrived wrong in "
        + out.loc[failed, "measured"].astype(str)
        + " of "
        + out.loc[failed, "n"].astype(str)
        + " samples"
    )
    return out.assign(
        kind="verification",
        name="verification " + out["family"],
        pattern=out["family"],
        unit="bad samples",
        bound="max",
        criterion=0.0,
        measured=out["measured"].astype(float),
        status=np.where(failed, FAIL, PASS),
        reason=reason,
        basis=basis,
    )


def _ids(items: pd.DataFrame) -> pd.Series:
    """``name where`` per item (computed once per distinct item, not per host)."""
    cols = ["name", "src", "dst", "device", "group"]
    code = items.groupby(cols, dropna=False, sort=False).ngroup().to_numpy()
    first = items[cols].iloc[np.unique(code, return_index=True)[1]]
    where = np.select(
        [
            first["src"].notna() & first["dst"].notna(),
            first["device"].notna(),
            first["group"].notna(),
        ],
        [
            first["src"].astype(str) + "->" + first["dst"].astype(str),
            "device " + first["device"].astype(str),
            "cards " + first["group"].astype(str),
        ],
        "",
    )
    ids = (first["name"] + " " + pd.Series(where, index=first.index)).str.strip()
    return pd.Series(ids.to_numpy()[code], index=items.index)


def evaluate(
    criteria: Criteria,
    peer: pd.DataFrame | None,
    rows: pd.DataFrame | None,
    devices: Sequence[int] | None = None,
    *,
    by_host: bool = False,
) -> pd.DataFrame:
    """Every item of the criteria, judged (see the module docstring); one row per item,
    columns :data:`ITEM_COLUMNS` (``by_host``: per item and ``host``, for a fleet)."""
    devs = list(range(criteria.device_count)) if devices is None else list(devices)
    keys = ["host"] if by_host else []
    hosts = None
    if by_host:  # every host the frames name
        names = [h for f in (peer, rows) if f is not None and len(f) for h in pd.unique(f["host"])]
        hosts = pd.DataFrame({"host": list(dict.fromkeys(map(str, names)))})
    parts = []
    if peer is not None:
        parts.append(topology_items(criteria, peer, devs, keys))
    if rows is not None and len(rows):
        chosen = die_rows(rows)  # the A3's die links: their own items (check.dieitems)
        parts.append(die_items(criteria, rows[chosen], devs, hosts))
        plain, rows = rows, rows[~chosen]
        parts += [
            pair_items(criteria, rows, devs, hosts),
            device_items(criteria, rows, devs, hosts),
            card_items(criteria, rows, hosts),
            collective.items(criteria, rows, hosts),
            spread.items(
                _expected_pairs(criteria, devs, "spread"),
                rows,
                criteria.size_bytes,
                criteria.samples,
                hosts,
            ),
        ]
        if criteria.verification:
            parts.append(verification_items(plain, devs, keys, criteria.verification_basis))
    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.DataFrame(columns=[*keys, *ITEM_COLUMNS, *GRADE_COLUMNS])
    items = pd.concat(parts, ignore_index=True)
    for c in ITEM_COLUMNS:
        if c not in items:
            items[c] = None
    items["criteria_line"] = items.get("line", None)
    items["id"] = _ids(items)
    whole = ["src", "dst", "device", "size_bytes", "criteria_line"]
    items = items.astype(dict.fromkeys(whole, "Int64"))
    items = graded(items, criteria)  # severity, action, criteria_source; a warn item WARNs
    return items[[*keys, *ITEM_COLUMNS, *GRADE_COLUMNS]].reset_index(drop=True)


def points_lost(rows: pd.DataFrame | None) -> int:
    """Samples that cost data (an ``error_kind`` in FAILURE_KINDS), for the exit status."""
    if rows is None or not len(rows):
        return 0
    return int(rows["error_kind"].isin(FAILURE_KINDS).fillna(False).sum())


def overall(items: pd.DataFrame) -> tuple[str, int]:
    """``("PASS", 0)`` or ``("FAIL", n failing items)``; a check that judged no item (every
    one skipped: a run with nothing the criteria bound) is ``("FAIL", 0)``, never a pass
    on nothing. Warned items do not fail (``severity.verdict_of`` says WARN)."""
    n = int((items["status"] == FAIL).sum())
    judged = int(items["status"].isin(JUDGED).sum())
    return ("FAIL" if n or not judged else "PASS"), n
