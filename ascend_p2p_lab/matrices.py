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
from dataclasses import dataclass
from typing import Any

import pandas as pd

from . import emptycells, results
from .schema import VOCABULARY
from .units import format_size

#: The kind of a cell no row explains (the others carry the rows' ``error_kind``), and
#: what it says (emptycells: one vocabulary for the terminal, figures and dashboard).
NOT_MEASURED_KIND = emptycells.NOT_MEASURED
NOT_MEASURED = emptycells.explain(NOT_MEASURED_KIND)
#: The patterns drawn as N x N matrices (fan-out patterns have no pair cells).
MATRIX_PATTERNS = ("pair", "latency")
#: Patterns drawn as card x card matrices (a row per sending card).
CARD_PATTERNS = ("card",)
#: Separates the sending and receiving groups in the ``group`` column.
GROUP_ARROW = "->"
#: What a bandwidth matrix shows, by direction and value.
DIRECTION_TEXT = {("uni", "bandwidth_GBps"): "one direction at a time",
                  ("bi", "bandwidth_GBps"): "each direction while both run",
                  ("bi", "bidir_total_GBps"): "both directions together"}
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
        if self.pattern not in CARD_PATTERNS:
            return []
        return [[int(d) for d in str(c).split(",")] for c in self.frame.index]

    @property
    def labels(self) -> list[str]:
        """How the rows (and columns) are named: device ids, or cards as "0,1"."""
        return [str(x) for x in self.frame.index]

    def to_json(self) -> dict[str, Any]:
        """The matrix as plain JSON values (null where not measured)."""
        cards = {"cards": self.cards} if self.pattern in CARD_PATTERNS else {}
        return {
            "title": self.title, "value": self.value, "unit": self.unit,
            "pattern": self.pattern, "direction": self.direction, "peer": self.peer,
            "path": self.path, "size_bytes": self.size_bytes, "devices": self.devices,
            **cards,
            "matrix": [[None if math.isnan(v) else round(float(v), 4) for v in row]
                       for row in self.frame.to_numpy(dtype=float)],
            "reasons": self.reasons, "kinds": self.kinds,
        }


def run_matrices(run: pd.DataFrame) -> list[RunMatrix]:
    """Every matrix of the run, in a stable order (pattern, direction, peer, path).

    Example: ``[m.title for m in run_matrices(run)]``.
    """
    n = int(run.attrs.get("run", {}).get("device_count") or 0)
    if not n and len(run):
        n = int(pd.concat([run["src"], run["dst"]]).max()) + 1
    rows = run[run["pattern"].isin(MATRIX_PATTERNS) & run["src"].notna()]
    chosen = (run.attrs.get("run", {}).get("params") or {}).get("devices")  # --devices
    out = []
    keys = ["pattern", "direction", "peer", "path"]
    groups = sorted(rows.groupby(keys, sort=False), key=lambda g: _order(keys, g[0]))
    for (pattern, direction, peer, path), part in groups:
        for value, unit in _values(pattern, direction, part):
            size = _size(pattern, part, value)
            if part[value].notna().any():  # the diagonal: device-local copies, if any
                frame = results.matrix(run, size, value=value, pattern=pattern,
                                       direction=direction, peer=peer, path=path,
                                       device_count=n)
            else:  # every cell refused or failed: nothing to take a median of
                frame = pd.DataFrame(math.nan, index=pd.RangeIndex(n, name="src"),
                                     columns=pd.RangeIndex(n, name="dst"))
            if chosen:
                frame = frame.loc[chosen, chosen]
            out.append(RunMatrix(
                title=_title(pattern, direction, peer, path, value, unit, size),
                value=value, unit=unit, pattern=pattern, direction=direction, peer=peer,
                path=path, size_bytes=size, frame=frame,
                **_why(part[part["size_bytes"] == size], frame)))
    return out + _card_matrices(run)


def _card_matrices(run: pd.DataFrame) -> list[RunMatrix]:
    """A card x card matrix per (direction, peer, path) of the card pattern: a cell is the
    median over samples of one card copying to another, at the largest size measured."""
    rows = run[run["pattern"].isin(CARD_PATTERNS) & run["group"].notna()]
    out = []
    keys = ["pattern", "direction", "peer", "path"]
    for (pattern, direction, peer, path), part in sorted(
            rows.groupby(keys, sort=False), key=lambda g: _order(keys, g[0])):
        ends = part["group"].str.split(GROUP_ARROW, regex=False)
        cards = sorted({c for pair in ends for c in pair},
                       key=lambda c: [int(d) for d in c.split(",")])
        for value, unit in _values(pattern, direction, part):
            size = _size(pattern, part, value)
            at = part[(part["size_bytes"] == size) & part[value].notna()]
            frame = pd.DataFrame(math.nan, index=pd.Index(cards, name="src card"),
                                 columns=pd.Index(cards, name="dst card"))
            for group, v in at.groupby("group")[value].median().items():
                a, b = str(group).split(GROUP_ARROW)
                frame.loc[a, b] = float(v)
            title = _title(pattern, direction, peer, path, value, unit, size).replace(
                "source -> column = destination", "source card -> column = destination card")
            out.append(RunMatrix(
                title=f"Card x card: {title}", value=value, unit=unit,
                pattern=pattern, direction=direction, peer=peer, path=path, size_bytes=size,
                frame=frame, **_why(part[part["size_bytes"] == size], frame, by_group=True)))
    return out


def matrices_json(run: pd.DataFrame) -> dict[str, Any]:
    """``{"run_id", "device_count", "matrices": [...]}`` for ``--format json``."""
    meta = run.attrs.get("run", {})
    return {"run_id": meta.get("run_id"), "backend": meta.get("backend"),
            "preset": meta.get("preset"), "device_count": meta.get("device_count"),
            "matrices": [m.to_json() for m in run_matrices(run)]}


def _order(keys: list[str], values: tuple[Any, ...]) -> tuple[int, ...]:
    """Sort key: the schema's order of each vocabulary (uni before bi, on before off)."""
    return tuple(VOCABULARY[k].index(v) if v in VOCABULARY[k] else len(VOCABULARY[k])
                 for k, v in zip(keys, values))


def _values(pattern: str, direction: str, part: pd.DataFrame) -> list[tuple[str, str]]:
    """The columns a pattern's matrices show, with their units."""
    if pattern == "latency":
        return [("latency_us", "µs")]
    shown = [("bandwidth_GBps", "GB/s")]
    if direction == "bi" and part["bidir_total_GBps"].notna().any():
        shown.append(("bidir_total_GBps", "GB/s"))
    return shown


def _size(pattern: str, part: pd.DataFrame, value: str) -> int:
    """The size a matrix shows: the largest measured (the smallest for latency), or the
    largest asked for when nothing was measured."""
    measured = part.loc[part[value].notna(), "size_bytes"]
    sizes = measured if len(measured) else part["size_bytes"]
    return int(sizes.min() if pattern == "latency" else sizes.max())


def _title(pattern: str, direction: str, peer: str, path: str, value: str, unit: str,
           size: int) -> str:
    if pattern == "latency":
        what = f"Latency per copy ({unit}) at {format_size(size)}"
    else:
        what = (f"{PATH_TEXT.get(path, path)} bandwidth ({unit}) at {format_size(size)}, "
                f"{DIRECTION_TEXT.get((direction, value), direction)}")
    return f"{what}, peer access {peer}, row = source -> column = destination"


def _why(rows: pd.DataFrame, frame: pd.DataFrame, *, by_group: bool = False
         ) -> dict[str, list[list[str | None]]]:
    """Why each empty cell is empty, as ``kinds`` (data) and ``reasons`` (text); None
    for a cell with a number. Cells are (src, dst) devices, or ``by_group`` the two
    groups of the ``group`` column."""
    why: dict[tuple[Any, Any], tuple[str, str]] = {}
    failed = rows[rows["error_kind"].notna()]
    for key, cell in failed.groupby("group" if by_group else ["src", "dst"]):
        first = cell.iloc[0]
        code, call = first["error_code"], first["error_call"]
        kind = str(first["error_kind"])
        text = emptycells.explain(kind, None if pd.isna(code) else int(code),
                                  None if pd.isna(call) else str(call))
        if by_group:
            a, b = str(key[0] if isinstance(key, tuple) else key).split(GROUP_ARROW)
            why[(a, b)] = (kind, text)
        else:
            why[(int(key[0]), int(key[1]))] = (kind, text)
    values = frame.to_numpy(dtype=float)
    ids = [str(c) for c in frame.index] if by_group else [int(d) for d in frame.index]
    same = (emptycells.SAME_DEVICE, emptycells.explain(emptycells.SAME_DEVICE))
    cells = [[None if not math.isnan(values[i][j])
              else why.get((a, b), same if i == j and not by_group
                           else (NOT_MEASURED_KIND, NOT_MEASURED))
              for j, b in enumerate(ids)] for i, a in enumerate(ids)]
    return {"kinds": [[c and c[0] for c in row] for row in cells],
            "reasons": [[c and c[1] for c in row] for row in cells]}
