"""Matrix figures as data: what each cell holds, its text and the legend. Pure pandas.

A matrix is a labelled N x N frame, rows = source device (``src``), columns = destination
(``dst``), as :func:`ascend_p2p_lab.results.matrix` returns it. A cell without a
trustworthy number is explained by its rows' failure key, ``(error_kind, error_code,
error_call)``; the ``error`` text never decides anything.

Each cell also has a *kind* that says how it is drawn and annotated (see
:mod:`ascend_p2p_lab.plots.matrix`): ``value`` (a number, text in contrast to its colour),
``long`` (the same, smaller), ``plain`` (black text), ``local`` and ``self`` (the dark
diagonal, with or without a local-copy figure), ``code`` (hatched grey with a short code),
``untrusted`` (a number whose bytes arrived wrong) and ``unknown`` (hatched grey, "?").

Example:
    >>> failure_text(("refused", 507899, "acl.rt.memcpy"))
    'refused: ACL_ERROR_RT_DRV_INTERNAL_ERROR (507899) from acl.rt.memcpy'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import results
from ..emptycells import NOT_MEASURED, SAME_DEVICE, TAGS, explain
from ..schema import LOCAL_PATTERN, PAIR_PATTERN
from ..vocab import BI, UNI, UNREACHABLE, VERIFICATION
from .prepare import (
    LINK_MEANING,
    LINK_ORDER,
    at_size,
    backend_note,
    check_size,
    chosen_devices,
    device_count,
    eq,
    frame_of,
    link_rank,
    narrow,
    select,
    size_bytes,
    size_text,
    wrap,
)

#: A failure's identity in a figure: (error_kind, error_code, error_call). Figures group,
#: count and label failures by this key only.
FailureKey = tuple[str, int | None, str | None]
_KIND_ORDER = {k: i for i, k in enumerate((*results.ERROR_KINDS, "unclassified"))}
#: The short codes of cells without a trusted number that are not an ``E`` code.
SPECIAL_CODES = (TAGS["verification"], TAGS["unreachable"], TAGS[NOT_MEASURED])
#: Cell states of a heatmap and the code each shows (failed cells get ``E1``, ``E2``, ...),
#: the tags of :mod:`ascend_p2p_lab.emptycells` the terminal prints too.
STATE_CODES = {
    "diagonal": "",
    "value": "",
    "unverified": TAGS["verification"],
    "unreachable": TAGS["unreachable"],
    "not_measured": TAGS[NOT_MEASURED],
    "failed": None,
}
CELL_COLUMNS = ["value", "link", "state", "error_kind", "error_code", "error_call", "code"]
VALUE_LABELS = {
    "bandwidth_GBps": ("Copy bandwidth", "bandwidth per direction (GB/s)"),
    "bidir_total_GBps": ("Total of both directions", "both directions together (GB/s)"),
    "latency_us": ("Time per copy (latency)", "time per copy (µs), lower is better"),
}
#: A value column's unit, from its name's suffix (the schema puts units in the names).
UNIT_SUFFIXES = {"_GBps": "GB/s", "_us": "µs", "_bytes": "bytes"}


def value_unit(value: str) -> str:
    """The unit of a value column, from its suffix: ``"µs"`` for ``elapsed_us``, ``""``
    for a column without one.

    Example:
        >>> value_unit("latency_us"), value_unit("bandwidth_GBps"), value_unit("copies")
        ('µs', 'GB/s', '')
    """
    return next((u for suffix, u in UNIT_SUFFIXES.items() if value.endswith(suffix)), "")


#: Columns whose smaller numbers are better: times per copy (a sample's whole window,
#: ``elapsed_us``, is as long as the sweep sized it, neither better nor worse).
LOWER_IS_BETTER = ("latency_us", "us_per_copy")


def lower_is_better(value: str) -> bool:
    """Whether smaller numbers of this column are better (a time per copy)."""
    return value in LOWER_IS_BETTER


def value_labels(value: str) -> tuple[str, str]:
    """(what the figure shows, the colour bar's label) of a value column, with its unit.

    Example:
        >>> value_labels("elapsed_us")
        ('elapsed_us', 'elapsed_us (µs)')
    """
    if value in VALUE_LABELS:
        return VALUE_LABELS[value]
    unit = value_unit(value)
    label = f"{value} ({unit})" if unit else value
    return value, label + (", lower is better" if lower_is_better(value) else "")


PEER_VALUES = {
    "can_access_peer": "aclrtDeviceCanAccessPeer(src, dst)",
    "peer_enabled": "Peer access enabled src → dst (held by this runtime)",
}


# ------------------------------------------------------------------------------ failures
def failure_keys(df: pd.DataFrame) -> pd.Series:
    """(kind, code, call) per row that carries an error, indexed like ``df``.

    A row with ``error`` text but no ``error_kind`` (a run saved before error kinds)
    is ``("unclassified", None, None)``: its text is shown nowhere and decides nothing.
    """

    def col(name: str) -> pd.Series:
        if name in df.columns:
            return df[name]
        return pd.Series(pd.NA, index=df.index, dtype="object")

    kind, code, call = col("error_kind"), col("error_code"), col("error_call")
    has = (kind.notna() | col("error").notna()).to_numpy(dtype=bool)
    keys = [
        (
            str(k) if pd.notna(k) else "unclassified",
            int(c) if pd.notna(c) else None,
            str(f) if pd.notna(f) else None,
        )
        for k, c, f in zip(kind[has], code[has], call[has])
    ]
    return pd.Series(keys, index=df.index[has], dtype="object")


def key_order(key: FailureKey) -> tuple[int, int, str]:
    """Sort key of failures: the schema's order of kinds, then code, then call."""
    kind, code, call = key
    return _KIND_ORDER.get(kind, len(_KIND_ORDER)), -1 if code is None else code, call or ""


def failure_text(key: FailureKey) -> str:
    """What a (kind, code, call) means (:func:`ascend_p2p_lab.emptycells.explain`, the one
    explanation the terminal and the dashboard show too).

    Example:
        >>> failure_text(("unreachable", None, "acl.rt.device_can_access_peer"))
        'cannot access peer (aclrtDeviceCanAccessPeer = 0)'
    """
    return explain(*key)


def failure_texts(df: pd.DataFrame) -> list[str]:
    """The distinct failures of ``df``'s rows, in a fixed order (kind, code, call)."""
    return [failure_text(k) for k in sorted(set(failure_keys(df)), key=key_order)]


def verification_failed(df: pd.DataFrame) -> pd.Series:
    """Rows whose bytes arrived wrong (``verified`` False or kind ``verification``)."""
    bad = df["verified"].eq(False).fillna(False).astype(bool)
    if "error_kind" in df.columns:
        bad |= eq(df["error_kind"], VERIFICATION)
    return bad


# ------------------------------------------------------------------------------ heatmap
@dataclass(frozen=True)
class HeatmapData:
    """Everything a heatmap shows, before any drawing.

    Attributes:
        values: N x N cell values (:func:`ascend_p2p_lab.results.matrix`), NaN diagonal.
        cells: one row per cell, indexed by (src, dst): ``value`` (the local copy on the
            diagonal), ``link``, ``state`` (diagonal, value, unverified, unreachable,
            failed, not_measured), the failure key that decides the state
            (``error_kind``, ``error_code``, ``error_call``) and the ``code`` it shows.
        legend: (code, text) per code shown, the code with most cells first.
        path: the path (or paths) the rows were measured on.
        size_text: which size the cells show, for the title.
        note: where the numbers come from (:func:`~.prepare.backend_note`).
    """

    values: pd.DataFrame
    cells: pd.DataFrame
    legend: list[tuple[str, str]] = field(default_factory=list)
    path: Any = None
    size_text: str = ""
    note: str = ""


#: What heatmap_data reads of its mode's rows besides the value: the sizes and pairs,
#: the link classes, the failure keys (:func:`failure_keys`, which reads the ``error``
#: text too) and the verification (:func:`verification_failed`).
CELL_COLUMNS_READ = (
    "src",
    "dst",
    "size_bytes",
    "link",
    "error",
    "error_kind",
    "error_code",
    "error_call",
    "verified",
)


def heatmap_data(
    run: pd.DataFrame,
    *,
    size: int | str | None = None,
    value: str = "bandwidth_GBps",
    direction: str = "uni",
    peer: str | None = "on",
    path: Any = None,
    pattern: str = PAIR_PATTERN,
    initiator: str | None = None,
) -> HeatmapData:
    """The cells of :func:`~ascend_p2p_lab.plots.heatmap` (same arguments, same errors)."""
    if value == "bidir_total_GBps" and direction != BI:
        raise ValueError("value='bidir_total_GBps' needs direction='bi'")
    if value not in run.columns:
        raise ValueError(f"unknown value column {value!r}")
    size_b = size_bytes(size)
    sel, path = select(
        run,
        direction=direction,
        peer=peer,
        path=path,
        pattern=pattern,
        initiator=initiator,
        columns=(*CELL_COLUMNS_READ, value),
    )
    check_size(sel, size_b)
    n = device_count(run)
    shown = chosen_devices(run, n)  # --devices: the chosen ones, as the terminal shows
    values = results.matrix(
        narrow(run, (*results.MATRIX_READS, value)),  # only what matrix reads
        size_b,
        value=value,
        pattern=pattern,
        direction=direction,
        peer=peer,
        path=path,
        device_count=n,
        initiator=initiator,
    ).loc[shown, shown]
    values = values.mask(np.eye(len(shown), dtype=bool))
    # the diagonal's local copy is a one-direction bandwidth: on unidirectional maps of
    # the bandwidth of a device-to-device path only
    local = (
        local_by_device(run, size_b)
        if direction == UNI and value == "bandwidth_GBps" and results.shows_local(str(path))
        else pd.Series(dtype=float)
    )
    numeric = sel[sel[value].notna()]
    cells = cell_states(sel, values, local, size=size_b, value=value)
    cells, legend = assign_codes(cells)
    text = size_text(numeric, size_b)
    if numeric.empty and size_b is None and local.notna().any():  # numbers on the diagonal
        text = "no pair measured at any size; the diagonal: device-local copies, largest size"
    return HeatmapData(values, cells, legend, path, text, backend_note(run))


def local_by_device(frame: pd.DataFrame, size: int | None) -> pd.Series:
    """Median device-local copy bandwidth per device at ``size`` (else its largest)."""
    keep = eq(frame["pattern"], LOCAL_PATTERN) & frame["bandwidth_GBps"].notna()
    df = narrow(frame, ("src", "size_bytes", "bandwidth_GBps"), keep)
    med = at_size(df, size, keys=["src"]).groupby("src")["bandwidth_GBps"].median()
    return pd.Series(med.to_numpy(dtype=float), index=med.index.astype(int), dtype=float)


def _cell_failures(sel: pd.DataFrame, size: int | None) -> dict[tuple[int, int], FailureKey]:
    """Each cell's failure key, at the largest size that failed (or at ``size``)."""
    keys = failure_keys(sel)
    fails = sel.loc[keys.index, ["src", "dst", "size_bytes"]].assign(key=keys)
    if size is not None:
        fails = fails[fails["size_bytes"] == size]
    fails = fails.dropna(subset=["src", "dst"]).sort_values(
        "size_bytes", ascending=False, kind="stable"
    )
    return {
        (int(s), int(d)): key
        for s, d, key in fails.drop_duplicates(["src", "dst"])[["src", "dst", "key"]].itertuples(
            index=False
        )
    }


def _untrusted(sel: pd.DataFrame, size: int | None, value: str) -> set[tuple[int, int]]:
    """Cells whose number's bytes arrived wrong, at the size the cell shows."""
    shown = at_size(sel[sel[value].notna()], size)
    bad = {
        (int(s), int(d))
        for s, d in shown.loc[verification_failed(shown), ["src", "dst"]].itertuples(index=False)
    }
    if value == "bidir_total_GBps":  # a total holds both directions' bytes
        bad |= {(d, s) for s, d in bad}
    return bad


def cell_states(
    sel: pd.DataFrame, values: pd.DataFrame, local: pd.Series, *, size: int | None, value: str
) -> pd.DataFrame:
    """One row per cell of ``values``: what it holds and why (see :class:`HeatmapData`);
    ``code`` is left empty for failed cells (:func:`assign_codes` numbers them)."""
    fails = _cell_failures(sel, size)
    untrusted = _untrusted(sel, size, value)
    links = {
        (int(s), int(d)): str(v)
        for (s, d), v in sel.dropna(subset=["src", "dst", "link"])
        .groupby(["src", "dst"])["link"]
        .first()
        .items()
    }
    rows = []
    for i, src in enumerate(values.index):
        for j, dst in enumerate(values.columns):
            key: Any = None
            v = float(values.iat[i, j])
            if i == j:
                state, v = "diagonal", float(local.get(src, np.nan))
            elif np.isfinite(v):
                state = "unverified" if (src, dst) in untrusted else "value"
                key = ("verification", None, None) if state == "unverified" else None
            else:
                key = fails.get((src, dst))
                state = (
                    "not_measured"
                    if key is None
                    else "unreachable"
                    if key[0] == UNREACHABLE
                    else "unverified"
                    if key[0] == VERIFICATION
                    else "failed"
                )
            kind, code, call = key or (None, None, None)
            rows.append(
                (src, dst, v, links.get((src, dst)), state, kind, code, call, STATE_CODES[state])
            )
    cells = pd.DataFrame.from_records(rows, columns=["src", "dst", *CELL_COLUMNS])
    cells = cells.astype({"error_code": "Int64", "link": "object"}).set_index(["src", "dst"])
    return cells


def _group(row: Any) -> Any:
    """What a cell is counted and coded with: its special code, or its failure key."""
    if row.state == "failed":
        return (
            str(row.error_kind),
            None if pd.isna(row.error_code) else int(row.error_code),
            None if pd.isna(row.error_call) else str(row.error_call),
        )
    return row.code


def assign_codes(cells: pd.DataFrame) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """Number the failed cells' keys ``E1``, ``E2``, ... (more cells first) and write the
    legend: (code, text) per code, the code with most cells first."""
    marked = cells[~cells["state"].isin(["diagonal", "value"])]
    groups = [_group(r) for r in marked.itertuples()]
    count: dict[Any, int] = {}
    for g in groups:
        count[g] = count.get(g, 0) + 1
    errors = sorted(
        (g for g in count if g not in SPECIAL_CODES), key=lambda g: (-count[g], key_order(g))
    )
    codes: dict[Any, str] = {g: f"E{k}" for k, g in enumerate(errors, 1)}
    codes.update({g: g for g in SPECIAL_CODES if g in count})
    cells = cells.copy()
    cells.loc[marked.index, "code"] = [codes[g] for g in groups]
    order = sorted(
        codes,
        key=lambda g: (
            -count[g],
            g in SPECIAL_CODES,
            SPECIAL_CODES.index(g) if g in SPECIAL_CODES else 0,
        ),
    )
    legend = []
    for g in order:
        if g == TAGS["unreachable"]:
            what = f"{g}: {failure_text(('unreachable', None, None))}"
            links = cells.loc[cells["state"] == "unreachable", "link"].dropna()
            if len(links):
                what += f", link {', '.join(sorted(set(links), key=link_rank))}"
        elif g == TAGS["verification"]:
            what = (
                f"{g} {failure_text(('verification', None, None))} "
                "(bandwidth measured, not trusted)"
            )
        elif g == TAGS[NOT_MEASURED]:
            what = f"{g}: {explain(NOT_MEASURED)}"
        else:
            what = f"{codes[g]} {failure_text(g)}"
        legend.append((codes[g], f"{what} [{count[g]} cell{'s' if count[g] != 1 else ''}]"))
    return cells, legend


def digits(largest: float, n: int) -> int:
    """Decimals for matrix annotations: about three significant digits, fewer when big."""
    if largest >= 100 or n > 16:
        return 0
    return 1 if largest >= 10 or n > 8 else 2


def heatmap_texts(
    cells: pd.DataFrame, n: int, annotate: bool = True
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each cell's text and kind (N x N frames) for :func:`~.matrix.annotate_matrix`."""
    off = cells[cells["state"] != "diagonal"]["value"]
    diag = cells[cells["state"] == "diagonal"]["value"]
    finite = off[np.isfinite(off)]
    fmt = digits(float(finite.abs().max()) if len(finite) else 0.0, n)
    local_fmt = digits(max(diag[np.isfinite(diag)].tolist(), default=0.0), n)
    texts, kinds = [], []
    for r in cells.itertuples():
        if r.state == "diagonal":
            local = bool(np.isfinite(r.value))
            texts.append(f"{r.value:.{local_fmt}f}" if local else TAGS[SAME_DEVICE])
            kinds.append("local" if local else "self")
        elif r.state == "value":
            texts.append(f"{r.value:.{fmt}f}" if annotate else "")
            kinds.append("value")
        elif r.state == "unverified" and np.isfinite(r.value):
            texts.append(f"V\n{r.value:.{fmt}f}" if annotate else "V")
            kinds.append("untrusted")
        else:
            texts.append(r.code)
            kinds.append("code")
    return _square(cells, texts), _square(cells, kinds)


def _square(cells: pd.DataFrame, column: list[str]) -> pd.DataFrame:
    """A per-cell list (in ``cells``' order) as an N x N frame labelled like the matrix."""
    return pd.Series(column, index=cells.index, dtype=object).unstack("dst")


def diagonal_text(has_local: bool, direction: str) -> str:
    """The legend's words for a heatmap's dark diagonal."""
    if has_local:
        return "diagonal: device-local copy, GB/s (not on the colour scale)"
    if direction == BI:
        return (
            f"diagonal ({TAGS[SAME_DEVICE]}): same device (local copies are on the "
            "unidirectional map)"
        )
    return f"diagonal ({TAGS[SAME_DEVICE]}): {explain(SAME_DEVICE)}"


# ------------------------------------------------------------------------------ link / peer
#: A link matrix's cell for a pair the rows name without a class, and for one not in them.
UNNAMED, ABSENT = "?", "n/m"


#: What :func:`link_frame` reads of a run: the pairs' classes and the backend note's
#: columns (:func:`~.prepare.backend_note`).
LINK_COLUMNS = ("src", "dst", "link", "backend", "preset", "host")


def link_frame(source: Any) -> tuple[pd.DataFrame, str]:
    """N x N link classes (``None`` where a pair is not in the table, :data:`UNNAMED`
    where its rows name no class, ``X`` on the diagonal) of a probe table, a run frame or
    a Topology, and a backend note."""
    if hasattr(source, "links") and hasattr(source, "labels"):  # a Topology
        frame = pd.DataFrame([list(r) for r in source.links], dtype=object)
        return _labelled(frame), f"topology: {source.name}"
    source = frame_of(source)
    df: pd.DataFrame = source
    if "pattern" in df.columns:  # what is read below: src, dst, link, and the note's
        df = narrow(df, LINK_COLUMNS, ~eq(df["pattern"], LOCAL_PATTERN))
    n = device_count(df)  # the pairs without a class count too (an import without one)
    df = df.dropna(subset=["src", "dst"])
    rows = df[["src", "dst", "link"]].drop_duplicates()
    known = rows["link"].astype(str).isin(LINK_MEANING)  # the last class named wins:
    rows = pd.concat([rows[rows["link"].isna()].assign(link=UNNAMED), rows[known]])
    rows = rows[rows["src"] != rows["dst"]].drop_duplicates(["src", "dst"], keep="last")
    frame = pd.DataFrame(np.full((n, n), None, dtype=object))
    for s, d, link in rows.itertuples(index=False):
        frame.iat[int(s), int(d)] = str(link)
    for i in range(n):
        frame.iat[i, i] = "X"
    shown = chosen_devices(source, n) if "pattern" in source.columns else list(range(n))
    return _labelled(frame.loc[shown, shown]), backend_note(df)


def link_texts(links: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """A link matrix's colour index (position in npu-smi's order), texts and kinds."""
    n = len(links)
    index = links.apply(
        lambda c: c.map(lambda v: float(LINK_ORDER.index(v)) if v in LINK_ORDER else np.nan)
    ).astype(float)
    texts = links.apply(lambda c: c.map(lambda v: ABSENT if v is None else v))
    kinds = links.apply(
        lambda c: c.map(
            lambda v: (
                "unknown" if v in (None, UNNAMED) else "long" if len(v) > 5 and n > 8 else "value"
            )
        )
    )
    return index, texts, kinds


def link_legend(links: pd.DataFrame) -> list[tuple[str, str]]:
    """(class, text) per link class present, in npu-smi's order; ``?`` for pairs the rows
    name without a class, ``n/m`` for pairs not in the table."""
    present = {v for v in links.to_numpy().ravel() if v is not None}
    out = [(c, f"{c}: {LINK_MEANING[c]}") for c in LINK_ORDER if c in present]
    if UNNAMED in present:
        out.append(
            (
                UNNAMED,
                f"{UNNAMED}: class not named (the run gives none: an import "
                "without a topology capture or --preset)",
            )
        )
    if links.isna().any().any():
        out.append((ABSENT, f"{ABSENT}: pair not in this table"))
    return out


def peer_frame(table: pd.DataFrame, value: str) -> pd.DataFrame:
    """N x N yes (1.0) / no (0.0) of a probe table column; NaN where not in the table."""
    if value not in PEER_VALUES:
        raise ValueError(f"value must be one of {', '.join(PEER_VALUES)}; got {value!r}")
    if value not in table.columns:
        raise ValueError(f"the table has no {value!r} column (is it a probe table?)")
    n = device_count(table)
    frame = pd.DataFrame(np.nan, index=range(n), columns=range(n))
    for s, d, v in table[["src", "dst", value]].itertuples(index=False):
        if int(s) != int(d) and not pd.isna(v):
            frame.iat[int(s), int(d)] = float(bool(v))
    return _labelled(frame)


def peer_texts(peer: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A yes/no matrix's texts and kinds: ``X`` on the diagonal, ``?`` where missing."""
    texts = peer.apply(lambda c: c.map(lambda v: "?" if np.isnan(v) else "yes" if v else "no"))
    kinds = peer.apply(lambda c: c.map(lambda v: "unknown" if np.isnan(v) else "plain"))
    for i in range(len(peer)):
        texts.iat[i, i], kinds.iat[i, i] = "X", "self"
    return texts.astype(object), kinds.astype(object)


def peer_legend(table: pd.DataFrame, peer: pd.DataFrame, value: str) -> list[tuple[str, str]]:
    """(yes / no / self / unknown, text) for a yes/no matrix's legend."""
    n = len(peer)
    mat = peer.to_numpy(dtype=float)
    off = ~np.eye(n, dtype=bool)
    n_yes = int(np.nansum(mat[off] == 1))
    n_no = int(np.nansum(mat[off] == 0))
    no_label = f"no ({n_no} of {n * (n - 1)})"
    if value == "can_access_peer" and "link" in table.columns:
        links = sorted(set(table.loc[~table[value].astype(bool), "link"].dropna().astype(str)))
        if links:
            no_label += f": aclrtDeviceCanAccessPeer = 0 (link {', '.join(links)})"
    out = [("yes", f"yes ({n_yes} of {n * (n - 1)})"), ("no", no_label), ("self", "X: same device")]
    if np.isnan(mat[off]).any():
        out.append(("unknown", "?: pair not in this table"))
    return out


def _labelled(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows named ``src`` and columns ``dst``, as :func:`results.matrix` labels them."""
    frame.index.name, frame.columns.name = "src", "dst"
    return frame


# ------------------------------------------------------------------------------ curves
def unmeasured_text(df: pd.DataFrame, value: str = "bandwidth_GBps") -> str | None:
    """A legend entry naming how many pairs have no numbers, and why (their rows' error
    kinds, codes and calls, one a line); None when every pair has numbers."""
    # whether each pair has a number: one grouped any (a function applied per pair cost
    # ~3 ms a legend on the A2 demo)
    has = df[value].notna().groupby([df["src"], df["dst"]]).any()
    bad = has[~has]
    if bad.empty:
        return None
    why = failure_texts(df[df.set_index(["src", "dst"]).index.isin(bad.index)])
    label = f"{len(bad)} pair{'s' if len(bad) != 1 else ''} without numbers"
    if why:
        more = [f"and {len(why) - 2} more kinds of error"] if len(why) > 2 else []
        label += ":\n" + "\n".join(wrap(w, 48) for w in [*why[:2], *more])
    return label


def unverified_points(df: pd.DataFrame, col: str) -> pd.DataFrame:
    """The points (median of ``col`` per pair and size) whose bytes arrived wrong:
    ``src, dst, size_bytes, <col>``."""
    bad = df[verification_failed(df) & df[col].notna()]
    if bad.empty:  # the same empty frame, without an empty groupby's ~2 ms
        return bad[["src", "dst", "size_bytes", col]].reset_index(drop=True)
    return bad.groupby(["src", "dst", "size_bytes"], dropna=False)[col].median().reset_index()


def unverified_text(points: pd.DataFrame, prefix: str = "") -> str:
    """The legend entry of :func:`unverified_points`."""
    pairs = len(points[["src", "dst"]].drop_duplicates())
    where = f"{len(points)} point{'s' if len(points) > 1 else ''}"
    if pairs > 1:
        where += f" of {pairs} pairs"
    return f"{prefix}{failure_text(('verification', None, None))} at {where} (drawn, not trusted)"
