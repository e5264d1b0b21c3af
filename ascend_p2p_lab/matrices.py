"""A run as the N x N matrices nvbandwidth users look for, with the reason for every
empty cell: the data behind the terminal matrices and ``--format json``.

For every (direction, peer mode, path) of the pair pattern a run holds, one bandwidth
matrix at the largest size measured in it (a bidirectional run adds the total of both
directions), and for the latency pattern the per-copy time at its smallest size. Rows
are sources, columns destinations ("row -> column"); a cell is the median over samples.
A cell without a number says why, as data (``kinds``: an ``error_kind``, ``not_measured``
or ``same_device``) and in the words of :func:`.emptycells.explain` (``reasons``), the
one vocabulary the terminal, the figures and the dashboard show. The card pattern adds
card x card matrices, whose rows and columns are cards (``"0,1"``: the devices of the
card) and whose cells are the bandwidth of all devices of one card copying to all of the
other at once.

Example:
    >>> from ascend_p2p_lab import open_runtime
    >>> from ascend_p2p_lab.measure import sweep
    >>> with open_runtime("sim", preset="atlas800t-a2") as rt:
    ...     run = sweep(rt, pairs="0-1", sizes=[1 << 20], samples=1, progress=False)
    >>> m = run_matrices(run)[0]
    >>> for part in m.title.split(", "):
    ...     print(part)
    P2P bandwidth (GB/s) at 1 MiB
    one direction at a time
    peer access on
    row = source -> column = destination
    >>> m.frame.shape, m.kinds[1][0], m.reasons[1][0]
    ((8, 8), 'not_measured', 'not measured in this run')
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from . import emptycells, results
from .run import Run, samples_of
from .schema import (
    CARD_PATTERNS,
    GROUP_PATTERNS,
    HOST_LINK,
    LATENCY_PATTERN,
    LOCAL_PATTERN,
    PAIR_PATTERNS,
    REFERENCE,
    TEST_PATTERN,
    VOCABULARY,
)
from .units import format_size
from .vocab import BI

#: The kind of a cell no row explains (the others carry the rows' ``error_kind``), and
#: what it says (emptycells: one vocabulary for the terminal, figures and dashboard).
NOT_MEASURED_KIND = emptycells.NOT_MEASURED
NOT_MEASURED = emptycells.explain(NOT_MEASURED_KIND)
#: The patterns drawn as N x N matrices (fan-out patterns have no pair cells).
MATRIX_PATTERNS = PAIR_PATTERNS
#: Between the source and the destination of a copy, in text for people.
ARROW = "->"
#: What a bandwidth matrix shows, by direction and value.
DIRECTION_TEXT = {
    ("uni", "bandwidth_GBps"): "one direction at a time",
    ("bi", "bandwidth_GBps"): "each direction while both run",
    ("bi", "bidir_total_GBps"): "both directions together",
}
PATH_TEXT = {"p2p": "P2P", "direct": "Direct copy", "staged": "Host-staged"}


@dataclass(frozen=True)
class RunMatrix:
    """One N x N matrix of a run: what it shows, its values and why empty cells are."""

    title: str
    value: str
    unit: str
    pattern: str
    direction: str
    peer: str
    path: str
    size_bytes: int
    frame: pd.DataFrame  # rows = src, columns = dst, NaN where not measured
    reasons: list[list[str | None]]  # None where the cell has a number
    #: why as data: the rows' ``error_kind`` or "not_measured"; None where measured
    kinds: list[list[str | None]]
    #: a card matrix's rows (and columns): the devices of each card
    card_devices: list[list[int]] = field(default_factory=list)
    #: whose copies the cells are, where the run has both (pull "dst", push "src"), and
    #: whether in one process or across processes (``sweep --processes``); else None
    initiator: str | None = None
    process_mode: str | None = None
    #: the A3's die link of the cells (``sio``, ``hccs``, ``both``) and SIO's share of a
    #: ``both`` cell's bytes, where the run chose one (patterns.dielink); else None
    die_link: str | None = None
    die_split: str | None = None

    @property
    def devices(self) -> list[int]:
        """The device ids of the rows (and columns), in order; of a card matrix, every
        device of its cards."""
        if self.pattern in CARD_PATTERNS:
            return [d for card in self.cards for d in card]
        return [int(d) for d in self.frame.index]

    @property
    def cards(self) -> list[list[int]]:
        """A card matrix's rows (and columns): the devices of each card; else []."""
        return [list(c) for c in self.card_devices] if self.pattern in CARD_PATTERNS else []

    @property
    def labels(self) -> list[str]:
        """How the rows (and columns) are named: device ids, or cards as "0,1"."""
        return [str(x) for x in self.frame.index]

    def to_json(self) -> dict[str, Any]:
        """The matrix as plain JSON values (null where not measured)."""
        cards = {"cards": self.cards} if self.pattern in CARD_PATTERNS else {}
        return {
            **{k: getattr(self, k) for k in _JSON_FIELDS},
            "devices": self.devices,
            **cards,
            "matrix": [
                [None if math.isnan(v) else round(float(v), 4) for v in row]
                for row in self.frame.to_numpy(dtype=float)
            ],
            "reasons": self.reasons,
            "kinds": self.kinds,
        }


#: The fields :meth:`RunMatrix.to_json` writes first, as they are.
_JSON_FIELDS = ("title", "value", "unit", "pattern", "direction", "peer", "path")
_JSON_FIELDS += ("initiator", "process_mode", "size_bytes")


def run_matrices(run: Run) -> list[RunMatrix]:
    """Every matrix of the run (a Run), in a stable order (pattern,
    direction, peer, path).

    Example: ``[m.title for m in run_matrices(run)]``.
    """
    meta, run = Run.of(run).meta, Run.of(run).samples
    n = meta.device_count or 0
    devices = pd.concat([run["src"], run["dst"]]).dropna()
    if not n and len(devices):  # none at all: an imported run of collectives
        n = int(devices.max()) + 1
    cards = _card_matrices(run)
    # the rows are selected several times: only the columns read below are carried
    run = run[[c for c in run.columns if c in MATRIX_COLUMNS]]
    rows = run[run["pattern"].isin(MATRIX_PATTERNS) & run["src"].notna()]
    chosen = meta.params.get("devices")  # --devices
    out = []
    for case, whole in _cases(rows):
        pattern, direction = case["pattern"], case["direction"]
        for apart, part in split_copies(whole):
            sel = run[run.index.isin(part.index) | (run["pattern"] == LOCAL_PATTERN)]
            for value, unit in _values(pattern, direction, part):
                size = _size(pattern, part, value)
                if part[value].notna().any():  # the diagonal: device-local copies, if any
                    frame = results.matrix(sel, size, value=value, **case, device_count=n)
                else:  # every cell refused or failed: nothing to take a median of
                    frame = pd.DataFrame(
                        math.nan,
                        index=pd.RangeIndex(n, name="src"),
                        columns=pd.RangeIndex(n, name="dst"),
                    )
                if chosen:
                    frame = frame.loc[chosen, chosen]
                out.append(
                    RunMatrix(
                        title=_title(**case, value=value, unit=unit, size=size, **apart),
                        value=value,
                        unit=unit,
                        **case,
                        size_bytes=size,
                        frame=frame,
                        **apart,
                        **_why(part[part["size_bytes"] == size], frame),
                    )
                )
    return out + cards


#: The columns :func:`run_matrices` reads of a run's pair rows (and results.matrix of
#: them): the case, what keeps copies apart, the ends, the values and why a cell is empty.
MATRIX_COLUMNS = (
    *("pattern", "direction", "peer", "path", "process_mode", "initiator"),
    *("die_link", "die_split", "size_bytes", "src", "dst", "senders", "receivers"),
    *("bandwidth_GBps", "bidir_total_GBps", "latency_us"),
    *("error_kind", "error_code", "error_call"),
)


#: Columns whose values are kept apart in matrices when a run has more than one of them.
APART = ("process_mode", "initiator")
#: Columns kept apart (and named in the title) whenever a run has them: the die link.
DIE_APART = ("die_link", "die_split")


def split_copies(part: pd.DataFrame) -> list[tuple[dict[str, Any], pd.DataFrame]]:
    """A case's rows, split where the run has copies of several initiators (pull and
    push: ``sweep --processes``, a check's joined sweeps) or process modes: never a median
    of both. Each part with what keeps it apart ({} when nothing needs to).

    Example:
        >>> rows = pd.DataFrame({"initiator": ["dst", "src"], "process_mode": ["in_process"] * 2})
        >>> [(k, len(p)) for k, p in split_copies(rows)]
        [({'initiator': 'dst'}, 1), ({'initiator': 'src'}, 1)]
    """
    keys = [c for c in APART if part[c].dropna().nunique() > 1]
    keys += [c for c in DIE_APART if c in part.columns and part[c].notna().any()]
    if not keys:
        return [({}, part)]
    out = []
    for key, sub in part.groupby(keys, sort=True, dropna=False):
        values = key if isinstance(key, tuple) else (key,)
        out.append(
            (
                {
                    k: None if pd.isna(v) else f"{v:g}" if isinstance(v, float) else str(v)
                    for k, v in zip(keys, values)
                },
                sub,
            )
        )
    return out


def _card_matrices(run: pd.DataFrame) -> list[RunMatrix]:
    """A card x card matrix per (direction, peer, path) of the card pattern: a cell is the
    median over samples of one card copying to another, at the largest size measured."""
    rows = results.card_keys(run[run["pattern"].isin(CARD_PATTERNS)])
    out = []
    for case, part in _cases(rows):
        pattern, direction = case["pattern"], case["direction"]
        cards = sorted({*part["senders"], *part["receivers"]})
        labels = [card_label(c) for c in cards]
        for value, unit in _values(pattern, direction, part):
            size = _size(pattern, part, value)
            at = part[(part["size_bytes"] == size) & part[value].notna()]
            frame = pd.DataFrame(
                math.nan,
                index=pd.Index(labels, name="src card"),
                columns=pd.Index(labels, name="dst card"),
            )
            for (a, b), v in at.groupby(["senders", "receivers"])[value].median().items():
                frame.loc[card_label(a), card_label(b)] = float(v)
            title = _title(**case, value=value, unit=unit, size=size).replace(
                "source -> column = destination", "source card -> column = destination card"
            )
            out.append(
                RunMatrix(
                    title=f"Card x card: {title}",
                    value=value,
                    unit=unit,
                    **case,
                    size_bytes=size,
                    frame=frame,
                    card_devices=[list(c) for c in cards],
                    **_why(part[part["size_bytes"] == size], frame, by_group=True),
                )
            )
    return out


def flow_label(row: pd.Series, arrow: str = ARROW) -> str:
    """Senders -> receivers of a group or card row, for people (never parsed back). A row
    imported without its devices (ascend-dmi's card matrix names card ids only) shows its
    ``group`` label instead.

    Example:
        >>> flow_label(pd.Series({"senders": (0, 1), "receivers": (2, 3), "group": None}))
        '0,1->2,3'
    """
    if row["senders"] is None or row["receivers"] is None:
        return str(row["group"])
    return f"{card_label(row['senders'])}{arrow}{card_label(row['receivers'])}"


def card_label(devices: Any) -> str:
    """How a card (or group) is named in a matrix: its devices, ``"0,1"`` (formatting
    only; the devices travel as values).

    Example:
        >>> card_label((0, 1))
        '0,1'
    """
    return ",".join(str(int(d)) for d in devices)


def matrices_json(run: Run) -> dict[str, Any]:
    """``{"run_id", "device_count", "matrices": [...]}`` for ``--format json``."""
    run = Run.of(run)
    meta = run.meta
    return {
        "run_id": meta.run_id,
        "backend": meta.backend,
        "preset": meta.preset,
        "device_count": meta.device_count,
        "matrices": [m.to_json() for m in run_matrices(run)],
        "values": values_json(run.samples),
    }


#: What sets a run's matrices apart (they come in the schema's order of each).
CASE = ("pattern", "direction", "peer", "path")


def _cases(rows: pd.DataFrame) -> list[tuple[dict[str, Any], pd.DataFrame]]:
    """The rows by :data:`CASE` (as a dict), in the schema's order of each vocabulary (uni
    before bi, on before off)."""
    vocab = [VOCABULARY[k] for k in CASE]
    groups = rows.groupby(list(CASE), sort=False)
    order = sorted(
        groups, key=lambda g: [v.index(x) if x in v else len(v) for v, x in zip(vocab, g[0])]
    )
    return [(dict(zip(CASE, key)), part) for key, part in order]


def _values(pattern: str, direction: str, part: pd.DataFrame) -> list[tuple[str, str]]:
    """The columns a pattern's matrices show, with their units."""
    if pattern == LATENCY_PATTERN:
        return [("latency_us", "µs")]
    shown = [("bandwidth_GBps", "GB/s")]
    if direction == BI and part["bidir_total_GBps"].notna().any():
        shown.append(("bidir_total_GBps", "GB/s"))
    return shown


def _size(pattern: str, part: pd.DataFrame, value: str) -> int:
    """The size a matrix shows: the largest measured (the smallest for latency), or the
    largest asked for when nothing was measured."""
    measured = part.loc[part[value].notna(), "size_bytes"]
    sizes = measured if len(measured) else part["size_bytes"]
    return int(sizes.min() if pattern == LATENCY_PATTERN else sizes.max())


#: How a matrix kept apart by initiator or process mode says so in its title.
APART_TEXT = {
    "dst": "pulled by the destination (a read)",
    "src": "pushed by the source (a write)",
    "third": "issued by a third device",
    "in_process": "in one process",
    "ipc": "across processes (IPC memory)",
}


def _title(
    pattern: str,
    direction: str,
    peer: str,
    path: str,
    value: str,
    unit: str,
    size: int,
    *,
    initiator: str | None = None,
    process_mode: str | None = None,
    die_link: str | None = None,
    die_split: str | None = None,
) -> str:
    if pattern == LATENCY_PATTERN:
        what = f"Latency per copy ({unit}) at {format_size(size)}"
    else:
        what = (
            f"{PATH_TEXT.get(path, path)} bandwidth ({unit}) at {format_size(size)}, "
            f"{DIRECTION_TEXT.get((direction, value), direction)}"
        )
    apart = "".join(f", {APART_TEXT.get(v, v)}" for v in (process_mode, initiator) if v)
    if die_link:  # the A3's die link (docs/die-links.md)
        share = f", SIO's share {die_split}" if die_split else ""
        apart += f", over die link {die_link}{share}"
    return f"{what}{apart}, peer access {peer}, row = source -> column = destination"


def _why(
    rows: pd.DataFrame, frame: pd.DataFrame, *, by_group: bool = False
) -> dict[str, list[list[str | None]]]:
    """Why each empty cell is empty, as ``kinds`` (data) and ``reasons`` (text); None
    for a cell with a number. Cells are (src, dst) devices, or ``by_group`` the two
    groups of the ``senders`` and ``receivers`` columns."""
    why: dict[tuple[Any, Any], tuple[str, str]] = {}
    keys = ["senders", "receivers"] if by_group else ["src", "dst"]
    failed = rows[rows["error_kind"].notna() & rows[keys].notna().all(axis=1)]
    # a cell's first failed row says why (a selection per cell cost ~1 ms each)
    first = failed.drop_duplicates(keys)[[*keys, "error_kind", "error_code", "error_call"]]
    for a, b, kind, code, call in zip(*(first[c].tolist() for c in first.columns)):
        text = emptycells.explain(
            str(kind), None if pd.isna(code) else int(code), None if pd.isna(call) else str(call)
        )
        cell = (card_label(a), card_label(b)) if by_group else (int(a), int(b))
        why[cell] = (str(kind), text)
    values = frame.to_numpy(dtype=float)
    ids = [str(c) for c in frame.index] if by_group else [int(d) for d in frame.index]
    same = (emptycells.SAME_DEVICE, emptycells.explain(emptycells.SAME_DEVICE))
    cells = [
        [
            None
            if not math.isnan(values[i][j])
            else why.get(
                (a, b), same if i == j and not by_group else (NOT_MEASURED_KIND, NOT_MEASURED)
            )
            for j, b in enumerate(ids)
        ]
        for i, a in enumerate(ids)
    ]
    return {
        "kinds": [[c and c[0] for c in row] for row in cells],
        "reasons": [[c and c[1] for c in row] for row in cells],
    }


#: Patterns whose values are listed one per copy set (``aggregate_values``), not drawn as
#: N x N matrices: every transfer of a test and its aggregate, every group or card pair.
LISTED_PATTERNS = (TEST_PATTERN, *GROUP_PATTERNS)
#: How an aggregate row of a test is named in the list of values.
AGGREGATE_LABEL = "all"


def aggregate_values(run: Run) -> pd.DataFrame:
    """One row per transfer of each test (and one for its aggregate), per group pair and
    per card pair, at the largest size measured: median over samples, the nominal rate,
    and for a value that is missing the reason (``kind``: the rows' ``error_kind``).

    ``what`` names the copy for people (``0->1``, ``host->4``, ``all`` for a test's
    aggregate, the group pair), ``senders``/``receivers`` a group or card pair's devices;
    ``total_GBps`` is a bidirectional point's both directions together (an import that
    gives only that, ascend-dmi's, has a value there and none per direction).
    """
    cols = [
        "pattern",
        "test",
        "transfer",
        "what",
        "senders",
        "receivers",
        "direction",
        "initiator",
        "link",
        "size_bytes",
        "samples",
        "median_GBps",
        "total_GBps",
        "nominal_GBps",
        "kind",
        "reason",
    ]
    run = samples_of(run)
    rows = run[run["pattern"].isin(LISTED_PATTERNS)]
    out = []
    keys = ["pattern", "test", "transfer", "group", "direction", "src", "dst"]
    hosted = set(rows.loc[rows["link"].eq(HOST_LINK).fillna(False).astype(bool), "test"])
    for key, part in rows.groupby(keys, dropna=False, sort=False):
        fine = part["error_kind"].isna()
        good = part[(part["bandwidth_GBps"].notna() | part["bidir_total_GBps"].notna()) & fine]
        size = int((good if len(good) else part)["size_bytes"].max())
        at = part[part["size_bytes"] == size]
        good = at[at["bandwidth_GBps"].notna() & at["error_kind"].isna()]
        totals = at.loc[
            at["bidir_total_GBps"].notna() & at["error_kind"].isna(), "bidir_total_GBps"
        ]
        first = at.iloc[0]
        kind = reason = None
        if not len(good) and not len(totals):
            failed = at[at["error_kind"].notna()]
            kind = str(failed.iloc[0]["error_kind"]) if len(failed) else NOT_MEASURED_KIND
            reason = str(failed.iloc[0]["error"]) if len(failed) else NOT_MEASURED
        else:
            reason = _nominal_note(first, first["test"] in hosted)
        out.append(
            {
                "pattern": key[0],
                "test": first["test"],
                "transfer": first["transfer"],
                "what": _what(first),
                "senders": first["senders"],
                "receivers": first["receivers"],
                "direction": key[4],
                "initiator": first["initiator"],
                "link": first["link"],
                "size_bytes": size,
                "samples": max(len(good), len(totals)),
                "median_GBps": float(good["bandwidth_GBps"].median()) if len(good) else math.nan,
                # both directions together: a tool that gives only that (ascend-dmi) has it
                "total_GBps": float(totals.median()) if len(totals) else math.nan,
                "nominal_GBps": float(first["nominal_GBps"]),
                "kind": kind,
                "reason": reason,
            }
        )
    return pd.DataFrame(out, columns=cols)


def _nominal_note(row: pd.Series, hosted: bool) -> str | None:
    """What a measured value's nominal rate is not: a host copy's figure is a reference
    (vocab.REFERENCE), so it and a window with one have none; or the shared budget that
    holds an aggregate's nominal below its links' rates (``bottleneck_budget``)."""
    nominal = float(row["nominal_GBps"])
    if math.isnan(nominal) and (
        str(row["link"]) == HOST_LINK or (pd.isna(row["transfer"]) and hosted)
    ):
        return f"no nominal: the host link's figure is a {REFERENCE}"
    budget = row.get("bottleneck_budget")
    if not math.isnan(nominal) and isinstance(budget, str):
        return f"nominal bound by the shared budget {budget}"
    return None


def _what(row: pd.Series) -> str:
    """The copy a listed row describes, formatted for people (never parsed back)."""
    if row["pattern"] != TEST_PATTERN:
        return flow_label(row)
    if pd.isna(row["transfer"]):
        return AGGREGATE_LABEL
    src = "host" if pd.isna(row["src"]) else str(int(row["src"]))
    dst = "host" if pd.isna(row["dst"]) else str(int(row["dst"]))
    return f"{src}{ARROW}{dst}"


def values_json(run: Run) -> list[dict[str, Any]]:
    """:func:`aggregate_values` as plain JSON records (null where no value)."""
    frame = aggregate_values(run)
    return [
        {
            k: (
                list(map(int, v))
                if isinstance(v, tuple)
                else None
                if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA
                else int(v)
                if k in ("transfer", "size_bytes", "samples")
                else round(float(v), 4)
                if k.endswith("GBps")
                else v
            )
            for k, v in rec.items()
        }
        for rec in frame.to_dict("records")
    ]
