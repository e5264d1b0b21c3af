"""Collectives measured against their links: each op's busbw beside the prediction from a
server's links (a preset, or a P2P run's measured matrix) and beside the link bound (what
the links alone allow), per operation and size. For an hccl_test import this says how
much of its links HCCL uses.

The collective of a row is rebuilt as it ran: the toolkit's rows name their devices and
algorithm; an hccl_test import has only a rank count, so its ranks are devices 0..n-1 of
the server and its algorithm the one HCCL would run there (:func:`.select.collective`).
Both are predicted by HCCL's cost model (HCCL's own launch cost is not in it; the
toolkit's executor adds nothing outside its phases to a sample of one run).

Example:
    >>> import pandas as pd
    >>> from ascend_p2p_lab.topology import load_preset
    >>> a2 = load_preset("atlas800t-a2")
    >>> rows = pd.DataFrame({"operation": ["all_gather"], "ranks": [8],
    ...                      "size_bytes": [256 << 20], "time_us": [1600.0],
    ...                      "algbw_GBps": [167.8], "busbw_GBps": [146.8]})
    >>> t = compare_collectives(rows, a2, LinkModel.from_topology(a2))
    >>> t[["algorithm", "of_bound"]].round(2).values.tolist()
    [['mesh', 0.8]]
"""

from __future__ import annotations

import math

import pandas as pd

from ..texttable import HCCL_SEP, Column, table_lines
from ..topology import Topology
from ..vocab import COLLECTIVE, UNI
from .phases import Collective, CollectiveError
from .predict import bound, predict
from .rates import LinkModel
from .select import collective
from .table import OP_KEYS, op_rows, summary

#: Columns of :func:`compare_collectives`.
COMPARE_COLUMNS = [
    *OP_KEYS,
    "samples",
    "time_us",
    "busbw_GBps",
    "predicted_busbw_GBps",
    "bound_busbw_GBps",
    "of_bound",
    "ratio",
    "limit",
    "check_result",
    "imported",
]


def _devices(row: pd.Series, topology: Topology) -> list[int]:
    devices = row.get("devices")
    if isinstance(devices, str) and devices:
        return [int(d) for d in devices.split(",")]
    n = int(row["ranks"])
    if n > topology.device_count:
        raise CollectiveError(
            f"{row['operation']} on {n} ranks: {topology.name} has {topology.device_count} devices"
        )
    return list(range(n))


def measured_pairs(run: pd.DataFrame) -> pd.DataFrame:
    """A P2P run's measured one-way pair rows, what :func:`links_model` takes links from;
    a ``CollectiveError`` when it has none (a run of collectives, or of other patterns).

    Example:
        >>> rows = {"pattern": ["pair", "collective"], "direction": ["uni", "uni"]}
        >>> len(measured_pairs(pd.DataFrame({**rows, "bandwidth_GBps": [1.0, 2.0]})))
        1
    """
    from ..schema import PAIR_PATTERN  # the pattern word, by trait

    good = run[run["error_kind"].isna()] if "error_kind" in run else run
    pairs = good[
        (good["pattern"] == PAIR_PATTERN)
        & good["bandwidth_GBps"].notna()
        & good["direction"].eq(UNI)
    ]
    if pairs.empty:
        raise CollectiveError("the run has no measured pair rows to take links from")
    return pairs


def links_model(run: pd.DataFrame, topology: Topology) -> LinkModel:
    """A server's links as a P2P run measured them: its pair pattern's bandwidth per
    ordered pair, initiator and size, and its latency pattern at its smallest size (a
    copy's fixed cost; where measured)."""
    from ..schema import LATENCY_PATTERN  # the pattern word, by trait

    good = run[run["error_kind"].isna()] if "error_kind" in run else run
    pairs = measured_pairs(run)
    latency = good[(good["pattern"] == LATENCY_PATTERN) & good["latency_us"].notna()]
    latency = latency[
        latency["size_bytes"] == latency.groupby(["src", "dst"])["size_bytes"].transform("min")
    ]
    return LinkModel.from_measured(
        pairs[["src", "dst", "size_bytes", "bandwidth_GBps", "initiator"]].astype(
            {"src": int, "dst": int}
        ),
        topology,
        latency if len(latency) else None,
    )


def _built(r: dict[str, object] | pd.Series, topology: Topology, imported: bool) -> Collective:
    """The collective a row ran: its devices and algorithm, or (an import) HCCL's."""
    row = pd.Series(r)
    algorithm = None if imported or not row.get("algorithm") else str(row["algorithm"])
    return collective(
        str(row["operation"]),
        int(row["size_bytes"]),
        topology,
        _devices(row, topology),
        algorithm=algorithm,
    )


def _own(rows: pd.DataFrame) -> pd.Series:
    """Whether each row is the toolkit's own (the collective pattern), not an import."""
    if "pattern" not in rows:
        return pd.Series(False, index=rows.index)
    return rows["pattern"].eq(COLLECTIVE).fillna(False).astype(bool)


def predicted_on(frame: pd.DataFrame, topology: Topology, model: LinkModel) -> pd.DataFrame:
    """A copy of a run's rows whose collective op rows carry the prediction and the link
    bound of ``model`` (the toolkit's phase rows each phase's)."""
    out = frame.copy()
    for col in ("devices", "algorithm"):
        if col not in out:
            out[col] = None
    rows = op_rows(out)
    own = _own(rows)
    keys = OP_KEYS
    filled = rows[keys].astype(object).where(rows[keys].notna(), "")
    for key, part in filled.assign(_imported=~own).groupby([*keys, "_imported"], sort=False):
        r, imported = dict(zip(keys, key[:-1])), bool(key[-1])
        coll = _built(r, topology, imported)
        pred = predict(coll, model)
        out.loc[part.index, "predicted_time_us"] = pred.time_us
        out.loc[part.index, "predicted_busbw_GBps"] = pred.busbw_GBps
        out.loc[part.index, "bound_busbw_GBps"] = bound(coll, model).busbw_GBps
        if not imported and "phase" in out:
            same = (out[keys].astype(object).where(out[keys].notna(), "") == pd.Series(r)).all(
                axis=1
            )
            for k, phase in enumerate(pred.phases):
                out.loc[same & out["phase"].eq(k).fillna(False), "predicted_time_us"] = (
                    phase.time_us
                )
    return out


def compare_collectives(frame: pd.DataFrame, topology: Topology, model: LinkModel) -> pd.DataFrame:
    """Per operation and size: the measured medians, the prediction on ``model``, the
    link bound, their ratios (``of_bound``: busbw / bound; ``ratio``: busbw /
    predicted) and what the prediction says limits the op (a link ``2->5`` or a
    budget)."""
    rows = op_rows(frame)
    if rows.empty:
        raise CollectiveError("the run has no collective rows (operation, algbw_GBps)")
    own = _own(rows)
    out = []
    for imported, part in ((False, rows[own.to_numpy()]), (True, rows[~own.to_numpy()])):
        for r in summary(part).to_dict("records"):
            out.append(_compared(r, topology, model, imported))
    return pd.DataFrame(out, columns=COMPARE_COLUMNS)


#: The summary's columns a comparison keeps as they are.
_KEPT = ("operation", "ranks", "size_bytes", "samples", "time_us", "busbw_GBps", "check_result")


def _compared(
    r: dict[str, object], topology: Topology, model: LinkModel, imported: bool
) -> dict[str, object]:
    coll = _built(r, topology, imported)
    devices = coll.ranks
    pred = predict(coll, model)
    links = bound(coll, model)
    busbw = float(r["busbw_GBps"])  # type: ignore[arg-type]
    return {
        **{k: r.get(k) for k in _KEPT},
        "devices": ",".join(map(str, devices)),
        "algorithm": coll.algorithm,
        "predicted_busbw_GBps": pred.busbw_GBps,
        "bound_busbw_GBps": links.busbw_GBps,
        "of_bound": busbw / links.busbw_GBps if links.busbw_GBps > 0 else math.nan,
        "ratio": busbw / pred.busbw_GBps if pred.busbw_GBps > 0 else math.nan,
        "limit": _limit(pred.bottleneck),
        "imported": imported,
    }


def _limit(neck: object) -> str:
    """What the prediction says limits the op: one link or budget, or how many are alike.

    Example:
        >>> from ascend_p2p_lab.collectives.predict import Bottleneck
        >>> _limit(Bottleneck(0, 2, 5)), _limit(Bottleneck(0, 0, 1, ties=56))
        ('2->5', '56 alike (0->1, ...)')
    """
    ties = getattr(neck, "ties", 1)
    return str(neck) if ties <= 1 else f"{ties} alike ({neck}, ...)"


#: hccl_test's layout of :func:`compare_text`: a ratio's cell ends with its mark (``*``
#: below the threshold), in place of the space before the next separator.
VERSUS_COLUMNS = (
    Column("data_size(Bytes)", 18, ">"),
    Column("aveg_time(us)", 13, ">"),
    Column("busbw(GB/s)", 11, ">"),
    Column("predicted", 9, ">"),
    Column("ratio", 6),
    Column("link bound", 10, ">", gap="| "),
    Column("of bound", 8, ">"),
    Column("algorithm", 12),
    Column("limited by"),
)


def compare_text(table: pd.DataFrame, threshold: float) -> str:
    """The comparison as a table, one block per operation and rank count."""
    blocks = []
    for (op, ranks, imported), g in table.groupby(["operation", "ranks", "imported"], sort=False):
        what = "hccl_test" if imported else "measured"
        rows = [
            [
                int(r.size_bytes),
                f"{r.time_us:.2f}",
                f"{r.busbw_GBps:.3f}",
                f"{r.predicted_busbw_GBps:.3f}",
                f"{r.ratio:>5.2f}{'*' if r.ratio < threshold else ' '}",  # the mark: below
                f"{r.bound_busbw_GBps:.2f}",
                f"{r.of_bound:.3f}",
                r.algorithm,
                r.limit,
            ]
            for r in g.itertuples(index=False)
        ]
        title = f"{op} on {int(ranks)} ranks ({what}):"  # type: ignore[call-overload]
        blocks.append("\n".join([title, *table_lines(rows, VERSUS_COLUMNS, sep=HCCL_SEP)]))
    return "\n\n".join(blocks) + (
        f"\n(* ratio below {threshold:g}: busbw / predicted; of "
        "bound: busbw / what the links alone allow)"
    )
