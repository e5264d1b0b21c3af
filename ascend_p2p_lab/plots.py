"""Figures from tidy result frames: matrices, bandwidth and latency vs size, comparisons.

Every function takes DataFrames (a sweep's run frame or a probe table) and returns a
:class:`matplotlib.figure.Figure`. Without ``ax`` it builds its own figure with an explicit
size (``Figure(figsize=..., dpi=100)``, not pyplot), so a notebook shows it once and no
global state is left behind; nothing here calls ``show()``. Each figure names where its
numbers come from ("simulated: atlas800t-a2"), so simulated numbers never pass for
hardware data. The core package never imports this module (nor matplotlib).

Example:
    >>> from ascend_p2p_lab import open_runtime
    >>> from ascend_p2p_lab.measure import sweep
    >>> from ascend_p2p_lab import plots
    >>> with open_runtime("sim", preset="atlas800t-a2") as rt:
    ...     run = sweep(rt, pairs="0-1,1-0", sizes="4KiB,1MiB", samples=2, progress=False)
    >>> fig = plots.bandwidth_vs_size(run)
    >>> fig.axes[0].get_xscale()
    'log'
"""

from __future__ import annotations

import io
import math
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib import colors as mcolors
from matplotlib import ticker
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle

from . import results
from .codes import error_name
from .units import format_size, parse_size

__all__ = [
    "LINK_COLORS",
    "backend_note",
    "bandwidth_vs_size",
    "compare_presets",
    "heatmap",
    "latency_vs_size",
    "link_matrix",
    "peer_access_matrix",
    "peer_on_off",
    "report",
    "uni_vs_bi",
]

DPI = 100
#: Categorical colour per link class (npu-smi words), used by every figure.
LINK_COLORS: dict[str, str] = {
    "HCCS": "#1f77b4",
    "HCCS_SW": "#6baed6",
    "SIO": "#9467bd",
    "PIX": "#2ca02c",
    "PXB": "#bcbd22",
    "PHB": "#ff7f0e",
    "SYS": "#d62728",
    "UB": "#8c564b",
    "NA": "#d9d9d9",
    "X": "#303030",
}
LINK_ORDER: tuple[str, ...] = tuple(LINK_COLORS)
#: npu-smi's legend, shortened.
LINK_MEANING: dict[str, str] = {
    "HCCS": "HCCS link",
    "HCCS_SW": "HCCS through a switch",
    "SIO": "SIO bus (dies of one chip)",
    "PIX": "one PCIe switch",
    "PXB": "several PCIe switches",
    "PHB": "PCIe host bridge of a CPU",
    "SYS": "PCIe across NUMA nodes",
    "UB": "Unified Bus",
    "NA": "unknown relationship",
    "X": "self",
}
_DIAG_COLOR = LINK_COLORS["X"]
_MISSING_FACE = "#e6e6e6"
_MISSING_EDGE = "#8c8c8c"
_HATCH = "///"
_PATH_WORDS = {
    "p2p": "P2P copy",
    "direct": "direct device-to-device copy",
    "staged": "staged through host memory",
    "local": "device-local copy",
}


# ------------------------------------------------------------------------------ helpers
def _eq(col: pd.Series, value: Any) -> pd.Series:
    """``col == value`` with missing values as False (string columns hold <NA>)."""
    return col.eq(value).fillna(False).astype(bool)


class LabFigure(Figure):
    """A Figure that shows itself as PNG in Jupyter without pyplot.

    Figures here are built without pyplot (no global registry, no double display), so
    the inline backend's display hook does not know them; ``_repr_png_`` lets IPython
    show them as the cell's result all the same.
    """

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.savefig(buf, format="png", dpi=self.dpi)
        return buf.getvalue()


def _new_figure(figsize: tuple[float, float]) -> Figure:
    return LabFigure(figsize=figsize, dpi=DPI, layout="constrained")


def _fig_ax(ax: Axes | None, auto: tuple[float, float],
            figsize: tuple[float, float] | None = None) -> tuple[Figure, Axes]:
    """The axes to draw on: ``ax``, or a new figure of ``figsize`` (else ``auto``)."""
    if ax is None:
        fig = _new_figure(figsize or auto)
        fig._p2p_autosize = figsize is None  # type: ignore[attr-defined]
        return fig, fig.add_subplot()
    return _root(ax), ax


def _finish(fig: Figure, pad: float = 0.08) -> Figure:
    """Grow a figure this module sized itself until titles, legends and notes fit.

    Figures with a caller-given ``figsize`` or ``ax`` are left exactly as they are.
    """
    if not getattr(fig, "_p2p_autosize", False):
        return fig
    engine = fig.get_layout_engine()
    for _ in range(4):
        if engine is not None:
            engine.execute(fig)  # the layout alone: much cheaper than a full draw
        bb = fig.get_tightbbox()
        w, h = fig.get_size_inches()
        grow_w = max(0.0, -bb.x0) + max(0.0, bb.x1 - w)
        grow_h = max(0.0, -bb.y0) + max(0.0, bb.y1 - h)
        if grow_w < 0.01 and grow_h < 0.01:
            break
        new_w = math.ceil((w + grow_w + (pad if grow_w >= 0.01 else 0)) * 10) / 10
        new_h = math.ceil((h + grow_h + (pad if grow_h >= 0.01 else 0)) * 10) / 10
        fig.set_size_inches(new_w, new_h)
    del fig._p2p_autosize  # type: ignore[attr-defined]
    return fig


def _root(ax: Axes) -> Figure:
    fig: Any = ax.figure
    while not isinstance(fig, Figure):  # a SubFigure's .figure is its parent's root figure
        fig = fig.figure
    return fig


def _frames_meta(frame: pd.DataFrame) -> dict[str, Any]:
    meta = frame.attrs.get("run", {})
    return meta if isinstance(meta, Mapping) else {}


def _uniq(frame: pd.DataFrame, col: str) -> list[str]:
    if col not in frame.columns:
        return []
    return [str(v) for v in dict.fromkeys(frame[col].dropna().tolist())]


def backend_note(*frames: pd.DataFrame) -> str:
    """Where the numbers come from: ``"simulated: atlas800t-a2"`` or ``"hardware: …"``.

    Example:
        >>> import pandas as pd
        >>> backend_note(pd.DataFrame({"backend": ["sim"], "preset": ["atlas800t-a2"]}))
        'simulated: atlas800t-a2'
    """
    sim: list[str] = []
    hw: list[str] = []
    for frame in frames:
        meta = _frames_meta(frame)
        backends = _uniq(frame, "backend") or [str(meta.get("backend") or "unknown")]
        presets = _uniq(frame, "preset") or [str(meta.get("preset") or meta.get("topology")
                                                 or "?")]
        for backend in backends:
            if backend == "sim":
                sim.extend(p for p in presets if p not in sim)
            else:
                soc = meta.get("soc_name") or "Ascend"
                hosts = _uniq(frame, "host") or [str(meta.get("hostname") or "?")]
                label = f"{backend} {soc} on {', '.join(hosts)}"
                if label not in hw:
                    hw.append(label)
    parts = []
    if sim:
        parts.append("simulated: " + ", ".join(sim))
    if hw:
        parts.append("hardware: " + "; ".join(hw))
    return " | ".join(parts) or "unknown backend"


def _set_title(ax: Axes, main: str, note: str, fontsize: float = 10.5) -> None:
    ax.set_title(f"{main}\n{note}", fontsize=fontsize)


def _device_count(frame: pd.DataFrame) -> int:
    n = int(_frames_meta(frame).get("device_count") or 0)
    if n:
        return n
    ids = pd.concat([frame["src"], frame["dst"]]).dropna()
    return int(ids.max()) + 1 if len(ids) else 0


def _size_bytes(size: int | str | None) -> int | None:
    return None if size is None else parse_size(size)


def _size_label(x: float, _pos: Any = None) -> str:
    if not np.isfinite(x) or x < 1:
        return ""
    return format_size(round(x))


def _size_axis(ax: Axes, sizes: Iterable[int], max_ticks: int = 8) -> None:
    """Base-2 log x axis with binary-unit labels (``4 KiB``, ``1 MiB``, ``1 GiB``)."""
    values = sorted({int(s) for s in sizes if s and s > 0})
    ax.set_xscale("log", base=2)
    if not values:
        return
    lo = math.floor(math.log2(values[0]))
    hi = math.ceil(math.log2(values[-1]))
    if len(values) <= max_ticks:
        major = values
    else:
        step = math.ceil((hi - lo + 1) / max_ticks)
        major = [2**k for k in range(lo, hi + 1, step)]
    ax.xaxis.set_major_locator(ticker.FixedLocator(major))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(_size_label))
    ax.xaxis.set_minor_locator(ticker.FixedLocator([2**k for k in range(lo, hi + 1)]))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_xlim(values[0] / 1.25, values[-1] * 1.25)
    ax.set_xlabel("copy size")


def _us_label(y: float, _pos: Any = None) -> str:
    if not np.isfinite(y) or y <= 0:
        return ""
    if y >= 1e6:
        return f"{y / 1e6:g} s"
    if y >= 1e3:
        return f"{y / 1e3:g} ms"
    return f"{y:g} µs"


def _pick_path(df: pd.DataFrame) -> str | None:
    """The path to show when none is asked for: p2p, else direct, else staged, preferring
    one that has numbers."""
    present = [p for p in ("p2p", "direct", "staged", "local") if _eq(df["path"], p).any()]
    for p in present:
        if df.loc[_eq(df["path"], p), "bandwidth_GBps"].notna().any():
            return p
    return present[0] if present else None


def _combos(frame: pd.DataFrame, pattern: str = "pair") -> list[tuple[str, str, str]]:
    df = frame[_eq(frame["pattern"], pattern)]
    seen = df[["direction", "peer", "path"]].dropna().drop_duplicates()
    order = {v: i for i, v in enumerate(("uni", "bi", "on", "off", "p2p", "direct", "staged"))}
    out = [tuple(map(str, r)) for r in seen.itertuples(index=False)]
    return sorted(out, key=lambda c: tuple(order.get(v, 99) for v in c))  # type: ignore[misc]


def _select(frame: pd.DataFrame, *, direction: str, peer: str | None,
            path: str | Sequence[str] | None, pattern: str = "pair") -> tuple[pd.DataFrame, Any]:
    """Rows of one mode. ``path`` may name several paths, e.g. ("p2p", "direct") for a run
    that measured each pair with the peer state it found (``peer="current"``)."""
    df = frame[_eq(frame["pattern"], pattern) & _eq(frame["direction"], direction)]
    if peer is not None:
        df = df[_eq(df["peer"], peer)]
    if path is None:
        path = _pick_path(df)
    if isinstance(path, str):
        df = df[_eq(df["path"], path)]
    elif path is not None:
        path = tuple(path)
        df = df[df["path"].isin(path).fillna(False).astype(bool)]
    if df.empty or path is None:
        have = ", ".join(f"{d}/{p}/{q}" for d, p, q in _combos(frame, pattern)) or "none"
        raise ValueError(
            f"no {pattern} rows with direction={direction!r}, peer={peer!r}, path={path!r}; "
            f"this run has (direction/peer/path): {have}")
    return df, path


def _mode_text(direction: str, peer: str | None, path: str | Sequence[str]) -> str:
    d = "unidirectional" if direction == "uni" else "bidirectional"
    p = "" if peer is None else f", peer {peer}"
    paths = path if isinstance(path, str) else " or ".join(path)
    return f"{d}{p} ({paths})"


def _link_color(link: str, fallback: str = "#7f7f7f") -> str:
    return LINK_COLORS.get(link, fallback)


#: A failure's identity in a figure: (error_kind, error_code, error_call). Figures group,
#: count and label failures by this key only; the ``error`` text never decides anything.
_FailureKey = tuple[str, int | None, str | None]
_VERIFY_EDGE = "#b00020"
_VERIFY_HATCH = "xx"
_KIND_ORDER = {k: i for i, k in enumerate((*results.ERROR_KINDS, "unclassified"))}


def _failure_keys(df: pd.DataFrame) -> pd.Series:
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
    keys = [(str(k) if pd.notna(k) else "unclassified",
             int(c) if pd.notna(c) else None,
             str(f) if pd.notna(f) else None)
            for k, c, f in zip(kind[has], code[has], call[has])]
    return pd.Series(keys, index=df.index[has], dtype="object")


def _key_order(key: _FailureKey) -> tuple[int, int, str]:
    kind, code, call = key
    return _KIND_ORDER.get(kind, len(_KIND_ORDER)), -1 if code is None else code, call or ""


def _failure_text(key: _FailureKey) -> str:
    """What a (kind, code, call) means, e.g. ``refused: ACL_ERROR_RT_DRV_INTERNAL_ERROR
    (507899) from acl.rt.memcpy_async``; made from the three columns only.

    Example:
        >>> _failure_text(("refused", 507899, "acl.rt.memcpy"))
        'refused: ACL_ERROR_RT_DRV_INTERNAL_ERROR (507899) from acl.rt.memcpy'
        >>> _failure_text(("unreachable", None, "acl.rt.device_can_access_peer"))
        'cannot access peer (aclrtDeviceCanAccessPeer = 0)'
    """
    kind, code, call = key
    if kind == "unreachable":
        return "cannot access peer (aclrtDeviceCanAccessPeer = 0)"
    if kind == "verification":
        return "verification: bytes differ"
    if kind == "unclassified":
        return "error without error_kind (a run saved before error kinds)"
    what = f"{error_name(code)} ({code})" if code is not None else ""
    if call:
        what = f"{what} from {call}" if what else (
            f"{call} is not in the installed pyACL" if kind == "missing_call" else f"in {call}")
    if kind == "device_lost":
        what = "a device was lost earlier in the run" + (f", {what}" if what else "")
    return f"{kind}: {what or results.ERROR_KINDS.get(kind, 'error')}"


def _failure_texts(df: pd.DataFrame) -> list[str]:
    """The distinct failures of ``df``'s rows, in a fixed order (kind, code, call)."""
    return [_failure_text(k) for k in sorted(set(_failure_keys(df)), key=_key_order)]


def _verification_failed(df: pd.DataFrame) -> pd.Series:
    """Rows whose bytes arrived wrong (``verified`` False or kind ``verification``)."""
    bad = df["verified"].eq(False).fillna(False).astype(bool)
    if "error_kind" in df.columns:
        bad |= _eq(df["error_kind"], "verification")
    return bad


def _text_color(rgba: Sequence[float]) -> str:
    r, g, b = rgba[:3]
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def _matrix_fonts(n: int) -> tuple[float, float]:
    """(cell text, tick label) font sizes for an n x n matrix."""
    if n <= 8:
        return 9.0, 9.0
    if n <= 12:
        return 8.0, 8.0
    if n <= 16:
        return 7.0, 7.5
    return max(4.0, 110.0 / n), max(5.0, 120.0 / n)


def _digits(largest: float, n: int) -> int:
    """Decimals for matrix annotations: about three significant digits, fewer when big."""
    if largest >= 100 or n > 16:
        return 0
    return 1 if largest >= 10 or n > 8 else 2


def _matrix_size(n: int, legend_lines: int = 0, cbar: bool = True) -> tuple[float, float]:
    cell = 0.6 if n <= 8 else 0.5
    w = max(5.6, cell * n + (2.6 if cbar else 1.6))
    h = max(4.4, cell * n + 2.2 + 0.2 * legend_lines)
    return round(w, 2), round(h, 2)


def _matrix_axes(ax: Axes, n: int, tick_fs: float, labels: Sequence[str] | None = None) -> None:
    ticks = np.arange(n)
    names = list(labels) if labels is not None else [str(i) for i in range(n)]
    ax.set_xticks(ticks, labels=names, fontsize=tick_fs)
    ax.set_yticks(ticks, labels=names, fontsize=tick_fs)
    ax.xaxis.tick_top()
    ax.xaxis.set_label_position("top")
    ax.set_xlabel("destination device (column)")
    ax.set_ylabel("source device (row)")
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    ax.yaxis.set_minor_locator(ticker.NullLocator())
    edges = np.arange(n + 1) - 0.5
    for lines in (ax.vlines(edges, -0.5, n - 0.5), ax.hlines(edges, -0.5, n - 0.5)):
        lines.set(color="white", linewidth=1.0, in_layout=False, zorder=2.5)
    ax.tick_params(which="major", length=2)
    ax.set_xlim(-0.5, n - 0.5)
    ax.set_ylim(n - 0.5, -0.5)
    for spine in ax.spines.values():
        spine.set_visible(False)


def _cell_text(ax: Axes, x: float, y: float, text: str, **kw: Any) -> None:
    """A matrix cell's label; kept out of layout (it sits inside the axes anyway)."""
    ax.text(x, y, text, ha="center", va="center", in_layout=False, **kw)


def _diag_patch(ax: Axes, x: float, y: float) -> None:
    ax.add_patch(Rectangle((x - 0.5, y - 0.5), 1, 1, facecolor=_DIAG_COLOR, edgecolor="white",
                           linewidth=1.0, in_layout=False))


def _missing_patch(ax: Axes, x: float, y: float) -> None:
    """Hatched grey: a cell without a number."""
    ax.add_patch(Rectangle((x - 0.5, y - 0.5), 1, 1, facecolor=_MISSING_FACE,
                           edgecolor=_MISSING_EDGE, hatch=_HATCH, linewidth=0.0,
                           in_layout=False))


_MISSING_STYLE: dict[str, Any] = {"facecolor": _MISSING_FACE, "edgecolor": _MISSING_EDGE,
                                  "hatch": _HATCH}
#: A cell whose bytes arrived wrong: its colour washed out, hatched and framed in red.
_VERIFY_STYLE: dict[str, Any] = {"facecolor": (1.0, 1.0, 1.0, 0.65),
                                 "edgecolor": _VERIFY_EDGE, "hatch": _VERIFY_HATCH}


def _verify_patch(ax: Axes, x: float, y: float) -> None:
    """Over a cell with a number that failed verification (its colour stays faintly)."""
    ax.add_patch(Rectangle((x - 0.45, y - 0.45), 0.9, 0.9, **_VERIFY_STYLE, linewidth=1.5,
                           in_layout=False, zorder=2.6))


def _link_rank(link: str) -> tuple[int, str]:
    return (LINK_ORDER.index(link) if link in LINK_ORDER else len(LINK_ORDER), link)


def _below_legend(ax: Axes, handles: list[Any], fontsize: float, ncols: int = 1) -> None:
    if handles:
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.02),
                  fontsize=fontsize, frameon=False, ncols=ncols, handlelength=1.6,
                  borderaxespad=0.0)


def _wrap(text: str, width: int) -> str:
    return "\n".join(textwrap.wrap(text, width=width, subsequent_indent="    ")) or text


def _local_by_device(frame: pd.DataFrame, size: int | None) -> dict[int, float]:
    df = frame[_eq(frame["pattern"], "local") & frame["bandwidth_GBps"].notna()]
    if df.empty:
        return {}
    if size is not None:
        df = df[df["size_bytes"] == size]
    else:
        df = df[df["size_bytes"] == df.groupby("src")["size_bytes"].transform("max")]
    return {int(k): float(v) for k, v in df.groupby("src")["bandwidth_GBps"].median().items()}


# ------------------------------------------------------------------------------ heatmap
_VALUE_LABELS = {
    "bandwidth_GBps": ("Copy bandwidth", "bandwidth per direction (GB/s)"),
    "bidir_total_GBps": ("Total of both directions", "both directions together (GB/s)"),
}


def heatmap(
    run: pd.DataFrame,
    *,
    size: int | str | None = None,
    value: str = "bandwidth_GBps",
    direction: str = "uni",
    peer: str | None = "on",
    path: str | Sequence[str] | None = None,
    ax: Axes | None = None,
    title: str | None = None,
    annotate: bool = True,
    vmin: float | None = None,
    vmax: float | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """N x N matrix of one copy statistic at one size: rows = source, columns = destination.

    ``size=None`` shows each pair's largest measured size. Cells without a number are
    hatched grey with a short code, grouped on the rows' ``error_kind``, ``error_code``
    and ``error_call`` (never on the ``error`` text): ``n/a`` cannot access peer (kind
    ``unreachable``; the legend names the cells' link classes), ``E1``, ``E2``, ... one per
    distinct (kind, code, call), ``n/m`` not in this run. A cell whose bytes arrived wrong
    (``verified`` False) keeps its colour faintly under a red hatched frame and reads
    ``V`` above its number. The codes are explained under the matrix. The diagonal is
    dark and shows the device-local copy when the run has the ``local`` pattern (it is
    not on the colour scale), else "—".

    Example:
        >>> fig = heatmap(run, size="64MiB")                            # doctest: +SKIP
        >>> fig = heatmap(run, direction="bi", value="bidir_total_GBps")  # doctest: +SKIP
    """
    if value == "bidir_total_GBps" and direction != "bi":
        raise ValueError("value='bidir_total_GBps' needs direction='bi'")
    if value not in run.columns:
        raise ValueError(f"unknown value column {value!r}")
    size_b = _size_bytes(size)
    sel, path = _select(run, direction=direction, peer=peer, path=path)
    if size_b is not None and not (sel["size_bytes"] == size_b).any():
        have = ", ".join(format_size(s) for s in sorted(sel["size_bytes"].unique()))
        raise ValueError(f"size {format_size(size_b)} is not in this run (sizes: {have})")
    n = _device_count(run)
    mat = results.matrix(run, size_b, value=value, direction=direction, peer=peer, path=path,
                         device_count=n).to_numpy(dtype=float, copy=True)
    np.fill_diagonal(mat, np.nan)
    # the diagonal's local copy is a one-direction figure: shown on unidirectional maps only
    local = _local_by_device(run, size_b) if direction == "uni" else {}

    # which size each cell shows
    numeric = sel[sel[value].notna()]
    if size_b is not None:
        size_text = f"at {format_size(size_b)}"
    elif numeric.empty:
        size_text = "no numbers at any size"
    else:
        largest = numeric.groupby(["src", "dst"])["size_bytes"].max()
        if largest.nunique() == 1:
            size_text = f"at {format_size(int(largest.iloc[0]))} (largest size)"
        else:
            size_text = "at each pair's largest size"

    # what the cells without a trustworthy number show: grouped on (kind, code, call)
    keys = _failure_keys(sel)
    fails = sel.loc[keys.index, ["src", "dst", "size_bytes"]].assign(key=keys)
    if size_b is not None:
        fails = fails[fails["size_bytes"] == size_b]
    cell_fail: dict[tuple[int, int], _FailureKey] = {}  # the failure at its largest size
    for s, d, key in fails.sort_values("size_bytes", ascending=False, kind="stable")[
            ["src", "dst", "key"]].itertuples(index=False):
        if pd.notna(s) and pd.notna(d):
            cell_fail.setdefault((int(s), int(d)), key)
    # cells with a number whose bytes arrived wrong (at the size the cell shows)
    shown = numeric if size_b is not None else numeric[
        numeric["size_bytes"] == numeric.groupby(["src", "dst"])["size_bytes"].transform("max")]
    bad_bytes = {(int(s), int(d)) for s, d in shown.loc[_verification_failed(shown),
                                                        ["src", "dst"]].itertuples(index=False)}
    if value == "bidir_total_GBps":  # a total holds both directions' bytes
        bad_bytes |= {(d, s) for s, d in bad_bytes}
    links = {(int(s), int(d)): str(v) for (s, d), v in
             sel.dropna(subset=["src", "dst", "link"]).groupby(["src", "dst"])["link"]
             .first().items()}
    cell_group: dict[tuple[int, int], Any] = {}  # "n/a", "V", "n/m" or a _FailureKey
    groups: dict[Any, dict[str, Any]] = {}
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            if np.isfinite(mat[i, j]):
                if (i, j) not in bad_bytes:
                    continue
                group: Any = "V"
            else:
                key = cell_fail.get((i, j))
                group = ("n/m" if key is None else "n/a" if key[0] == "unreachable"
                         else "V" if key[0] == "verification" else key)
            info = groups.setdefault(group, {"cells": 0, "links": set()})
            info["cells"] += 1
            if (i, j) in links:
                info["links"].add(links[(i, j)])
            cell_group[(i, j)] = group
    special = ("V", "n/a", "n/m")
    errors = sorted((g for g in groups if g not in special),
                    key=lambda g: (-groups[g]["cells"], _key_order(g)))
    codes: dict[Any, str] = {g: f"E{k}" for k, g in enumerate(errors, 1)}
    codes.update({g: g for g in special if g in groups})
    order = sorted(codes, key=lambda g: (-groups[g]["cells"], g in special,
                                         special.index(g) if g in special else 0))
    reasons: dict[Any, str] = {}
    for g in order:
        info = groups[g]
        if g == "n/a":
            what = _failure_text(("unreachable", None, None))
            if info["links"]:
                what += f", link {', '.join(sorted(info['links'], key=_link_rank))}"
            reasons[g] = f"n/a: {what}"
        elif g == "V":
            reasons[g] = (f"V {_failure_text(('verification', None, None))} "
                          "(bandwidth measured, not trusted)")
        elif g == "n/m":
            reasons[g] = "n/m: not measured in this run"
        else:
            reasons[g] = f"{codes[g]} {_failure_text(g)}"
        reasons[g] += f" [{info['cells']} cell{'s' if info['cells'] != 1 else ''}]"

    legend_lines = 1 + sum(1 + len(r) // 70 for r in reasons.values())
    finite = mat[np.isfinite(mat)]
    fig, ax = _fig_ax(ax, _matrix_size(n, legend_lines, cbar=bool(finite.size)), figsize)
    cell_fs, tick_fs = _matrix_fonts(n)
    lo = 0.0 if vmin is None else vmin
    hi = vmax if vmax is not None else (float(finite.max()) if finite.size else 1.0)
    if hi <= lo:
        hi = lo + 1.0
    cmap = mpl.colormaps["viridis"].with_extremes(bad=_MISSING_FACE)
    norm = mcolors.Normalize(vmin=lo, vmax=hi)
    im = ax.imshow(np.ma.masked_invalid(mat), cmap=cmap, norm=norm, aspect="equal",
                   interpolation="nearest")
    _matrix_axes(ax, n, tick_fs)

    digits = _digits(float(np.abs(finite).max()) if finite.size else 0.0, n)
    local_digits = _digits(max(local.values(), default=0.0), n)
    for i in range(n):
        for j in range(n):
            if i == j:
                _diag_patch(ax, j, i)
                text = f"{local[i]:.{local_digits}f}" if i in local else "—"
                _cell_text(ax, j, i, text, color="white",
                           fontsize=cell_fs, fontstyle="italic" if i in local else "normal")
            elif (i, j) in cell_group and not np.isfinite(mat[i, j]):
                _missing_patch(ax, j, i)
                _cell_text(ax, j, i, codes[cell_group[(i, j)]],
                           fontsize=cell_fs - 0.5, color="black",
                           bbox={"boxstyle": "square,pad=0.1", "facecolor": _MISSING_FACE,
                                 "edgecolor": "none"})
            elif (i, j) in cell_group:  # a number whose bytes arrived wrong
                _verify_patch(ax, j, i)
                text = f"V\n{mat[i, j]:.{digits}f}" if annotate else "V"
                _cell_text(ax, j, i, text, fontsize=cell_fs - 1, color=_VERIFY_EDGE,
                           fontweight="bold", linespacing=1.0,
                           bbox={"boxstyle": "square,pad=0.1", "facecolor": "white",
                                 "edgecolor": "none"})
            elif annotate:
                v = mat[i, j]
                _cell_text(ax, j, i, f"{v:.{digits}f}",
                           fontsize=cell_fs, color=_text_color(cmap(norm(v))))

    what, cbar_label = _VALUE_LABELS.get(value, (value, f"{value} (GB/s)"))
    if finite.size:
        cbar = fig.colorbar(im, ax=ax, shrink=0.85, pad=0.02)
        cbar.set_label(cbar_label)
        cbar.ax.tick_params(labelsize=8)

    handles: list[Any] = []
    if local:
        handles.append(Patch(facecolor=_DIAG_COLOR, label="diagonal: device-local copy, GB/s "
                             "(not on the colour scale)"))
    elif direction == "bi":
        handles.append(Patch(facecolor=_DIAG_COLOR, label="diagonal (—): same device "
                             "(local copies are on the unidirectional map)"))
    else:
        handles.append(Patch(facecolor=_DIAG_COLOR, label="diagonal (—): same device, "
                             "no local copy in this run"))
    width = int(_root(ax).get_figwidth() * 12)
    for g, reason in reasons.items():
        style = _VERIFY_STYLE if g == "V" else _MISSING_STYLE
        handles.append(Patch(**style, label=_wrap(reason, width)))
    _below_legend(ax, handles, fontsize=8)
    main = title or f"{what}, {_mode_text(direction, peer, path)}\n{size_text}"
    _set_title(ax, main, backend_note(run))
    return _finish(fig)


# ------------------------------------------------------------------------------ link / peer
def _link_frame(source: Any) -> tuple[np.ndarray, list[str] | None, str]:
    """N x N link classes (object array), device labels and a backend note."""
    if hasattr(source, "links") and hasattr(source, "labels"):  # a Topology
        mat = np.array([list(r) for r in source.links], dtype=object)
        return mat, list(source.labels), f"topology: {source.name}"
    frame: pd.DataFrame = source
    if "pattern" in frame.columns:
        frame = frame[~_eq(frame["pattern"], "local")]
    frame = frame.dropna(subset=["src", "dst", "link"])
    n = _device_count(frame) if "device_count" in _frames_meta(frame) else 0
    n = max(n, int(max(frame["src"].max(), frame["dst"].max()) + 1) if len(frame) else 0)
    mat = np.full((n, n), None, dtype=object)
    for s, d, link in frame[["src", "dst", "link"]].drop_duplicates().itertuples(index=False):
        if int(s) != int(d) and str(link) in LINK_COLORS:
            mat[int(s), int(d)] = str(link)
    for i in range(n):
        mat[i, i] = "X"
    return mat, None, backend_note(frame)


def link_matrix(table_or_topology: Any, ax: Axes | None = None, *,
                title: str | None = None,
                figsize: tuple[float, float] | None = None) -> Figure:
    """N x N link classes in npu-smi's words, one categorical colour per class.

    Takes a probe table, a run frame or a :class:`~ascend_p2p_lab.topology.model.Topology`.

    Example:
        >>> from ascend_p2p_lab.topology import load_preset
        >>> fig = link_matrix(load_preset("atlas800-9000"))
        >>> fig.axes[0].get_ylabel()
        'source device (row)'
    """
    mat, _labels, note = _link_frame(table_or_topology)
    n = mat.shape[0]
    present = [c for c in LINK_ORDER if (mat == c).any()]
    codes = np.full((n, n), np.nan)
    for k, cls in enumerate(LINK_ORDER):
        codes[mat == cls] = k
    fig, ax = _fig_ax(ax, _matrix_size(n, legend_lines=len(present), cbar=False), figsize)
    cell_fs, tick_fs = _matrix_fonts(n)
    cmap = mcolors.ListedColormap([LINK_COLORS[c] for c in LINK_ORDER]).with_extremes(
        bad=_MISSING_FACE)
    norm = mcolors.BoundaryNorm(np.arange(len(LINK_ORDER) + 1) - 0.5, len(LINK_ORDER))
    ax.imshow(np.ma.masked_invalid(codes), cmap=cmap, norm=norm, aspect="equal",
              interpolation="nearest")
    _matrix_axes(ax, n, tick_fs)
    for i in range(n):
        for j in range(n):
            cls = mat[i, j]
            if cls is None:
                _missing_patch(ax, j, i)
                _cell_text(ax, j, i, "?", fontsize=cell_fs)
                continue
            fs = cell_fs * (0.9 if len(cls) > 5 and n > 8 else 1.0)
            _cell_text(ax, j, i, cls, fontsize=fs,
                       color=_text_color(mcolors.to_rgba(LINK_COLORS[cls])))
    handles = [Patch(facecolor=LINK_COLORS[c], label=f"{c}: {LINK_MEANING[c]}") for c in present]
    if (mat == None).any():  # noqa: E711 - elementwise on an object array
        handles.append(Patch(facecolor=_MISSING_FACE, edgecolor=_MISSING_EDGE, hatch=_HATCH,
                             label="?: pair not in this table"))
    _below_legend(ax, handles, fontsize=8, ncols=2 if len(handles) > 3 else 1)
    _set_title(ax, title or "Link class per device pair (npu-smi words)", note)
    return _finish(fig)


_PEER_VALUES = {
    "can_access_peer": "aclrtDeviceCanAccessPeer(src, dst)",
    "peer_enabled": "Peer access enabled src → dst (held by this runtime)",
}


def peer_access_matrix(table: pd.DataFrame, value: str = "can_access_peer",
                       ax: Axes | None = None, *, title: str | None = None,
                       figsize: tuple[float, float] | None = None) -> Figure:
    """Yes/no matrix of a probe table column: ``can_access_peer`` or ``peer_enabled``.

    Example:
        >>> fig = peer_access_matrix(probe(rt), value="peer_enabled")  # doctest: +SKIP
    """
    if value not in _PEER_VALUES:
        raise ValueError(f"value must be one of {', '.join(_PEER_VALUES)}; got {value!r}")
    if value not in table.columns:
        raise ValueError(f"the table has no {value!r} column (is it a probe table?)")
    n = _device_count(table)
    mat = np.full((n, n), np.nan)
    for s, d, v in table[["src", "dst", value]].itertuples(index=False):
        if int(s) != int(d) and not pd.isna(v):
            mat[int(s), int(d)] = float(bool(v))
    yes_c = "#4daf4a"
    no_c = "#f4a582" if value == "can_access_peer" else "#c8c8c8"  # "off" is no fault
    fig, ax = _fig_ax(ax, _matrix_size(n, legend_lines=4, cbar=False), figsize)
    cell_fs, tick_fs = _matrix_fonts(n)
    cmap = mcolors.ListedColormap([no_c, yes_c]).with_extremes(bad=_MISSING_FACE)
    ax.imshow(np.ma.masked_invalid(mat), cmap=cmap, vmin=0, vmax=1, aspect="equal",
              interpolation="nearest")
    _matrix_axes(ax, n, tick_fs)
    for i in range(n):
        for j in range(n):
            if i == j:
                _diag_patch(ax, j, i)
                _cell_text(ax, j, i, "X", color="white", fontsize=cell_fs)
            elif np.isnan(mat[i, j]):
                _missing_patch(ax, j, i)
                _cell_text(ax, j, i, "?", fontsize=cell_fs)
            else:
                _cell_text(ax, j, i, "yes" if mat[i, j] else "no",
                           fontsize=cell_fs, color="black")
    off = ~np.eye(n, dtype=bool)
    n_yes = int(np.nansum(mat[off] == 1))
    n_no = int(np.nansum(mat[off] == 0))
    no_label = f"no ({n_no} of {n * (n - 1)})"
    if value == "can_access_peer" and "link" in table.columns:
        links = sorted(set(table.loc[~table[value].astype(bool), "link"].dropna().astype(str)))
        if links:
            no_label += f": aclrtDeviceCanAccessPeer = 0 (link {', '.join(links)})"
    handles = [Patch(facecolor=yes_c, label=f"yes ({n_yes} of {n * (n - 1)})"),
               Patch(facecolor=no_c, label=no_label),
               Patch(facecolor=_DIAG_COLOR, label="X: same device")]
    if np.isnan(mat[off]).any():
        handles.append(Patch(facecolor=_MISSING_FACE, edgecolor=_MISSING_EDGE, hatch=_HATCH,
                             label="?: pair not in this table"))
    _below_legend(ax, handles, fontsize=8)
    _set_title(ax, title or _PEER_VALUES[value], backend_note(table))
    return _finish(fig)


# ------------------------------------------------------------------------------ vs size
def _stats(df: pd.DataFrame, keys: list[str], col: str) -> pd.DataFrame:
    """Median, p10 and p90 of col per keys + size (over every sample)."""
    df = df[df[col].notna()]
    if df.empty:
        return pd.DataFrame(columns=[*keys, "size_bytes", "median", "p10", "p90"])
    g = df.groupby([*keys, "size_bytes"])[col]
    out = pd.DataFrame({"median": g.median(), "p10": g.quantile(0.10),
                        "p90": g.quantile(0.90)}).reset_index()
    return out


def _nominal_by_link(df: pd.DataFrame) -> dict[str, float]:
    out = {}
    for link, v in df.groupby("link")["nominal_GBps"].first().items():
        if pd.notna(v) and np.isfinite(v):
            out[str(link)] = float(v)
    return out


def _unmeasured_handle(df: pd.DataFrame, value: str, keys: list[str]) -> Line2D | None:
    """A legend entry naming the pairs (or links) that have no numbers, and why (their
    rows' error kinds, codes and calls)."""
    has = df.groupby(keys)[value].apply(lambda s: s.notna().any())
    bad = has[~has]
    if bad.empty:
        return None
    why = _failure_texts(df[df.set_index(keys).index.isin(bad.index)])
    label = f"{len(bad)} {'pair' if 'src' in keys else 'group'}{'s' if len(bad) != 1 else ''} " \
        "without numbers"
    if why:  # one reason a line
        more = [f"and {len(why) - 2} more kinds of error"] if len(why) > 2 else []
        label += ":\n" + "\n".join(_wrap(w, 48) for w in [*why[:2], *more])
    return Line2D([], [], color="none", marker="x", markeredgecolor="#555555", label=label)


def _mark_unverified(ax: Axes, df: pd.DataFrame, col: str, prefix: str = "") -> Line2D | None:
    """Red crosses on the points (median of col per pair and size) whose bytes arrived
    wrong, and the legend entry for them; None when every checked point was right."""
    bad = df[_verification_failed(df) & df[col].notna()]
    if bad.empty:
        return None
    pts = bad.groupby(["src", "dst", "size_bytes"], dropna=False)[col].median().reset_index()
    (mark,) = ax.plot(pts["size_bytes"], pts[col], ls="none", marker="X", ms=9, mew=1.2,
                      markerfacecolor="none", markeredgecolor=_VERIFY_EDGE, zorder=5)
    pairs = len(pts[["src", "dst"]].drop_duplicates())
    where = f"{len(pts)} point{'s' if len(pts) > 1 else ''}"
    if pairs > 1:
        where += f" of {pairs} pairs"
    mark.set_label(f"{prefix}{_failure_text(('verification', None, None))} at {where} "
                   "(drawn, not trusted)")
    return mark


def _side_legend(ax: Axes, handles: list[Any] | None = None, fontsize: float = 8) -> None:
    kw: dict[str, Any] = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0),
                          "fontsize": fontsize, "frameon": False, "borderaxespad": 0.0}
    if handles is not None:
        kw["handles"] = handles
    ax.legend(**kw)


def bandwidth_vs_size(
    run: pd.DataFrame,
    *,
    by: str = "pair",
    direction: str = "uni",
    peer: str | None = "on",
    path: str | None = None,
    ax: Axes | None = None,
    show_nominal: bool = True,
    max_legend: int = 8,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Copy bandwidth vs copy size: median line, p10-p90 band, base-2 size axis.

    ``by="pair"`` draws one line per (src, dst); above ``max_legend`` pairs the lines are
    thin, coloured by link class, without bands, and the legend has one entry per class.
    ``by="link"`` aggregates every sample of every pair of a link class. The link's
    nominal per-direction rate is a dashed line.

    Example:
        >>> fig = bandwidth_vs_size(run, by="link", peer="off")  # doctest: +SKIP
    """
    if by not in ("pair", "link"):
        raise ValueError(f"by must be 'pair' or 'link'; got {by!r}")
    sel, path = _select(run, direction=direction, peer=peer, path=path)
    fig, ax = _fig_ax(ax, (8.0, 4.6), figsize)
    handles: list[Any] = []
    many = False
    if by == "link":
        st = _stats(sel, ["link"], "bandwidth_GBps")
        npairs = sel[sel["bandwidth_GBps"].notna()].groupby("link")[["src", "dst"]].apply(
            lambda g: len(g.drop_duplicates()))
        links = set(st["link"].astype(str))
        for link in [c for c in dict.fromkeys((*LINK_ORDER, *sorted(links))) if c in links]:
            g = st[st["link"] == link].sort_values("size_bytes")
            if g.empty:
                continue
            color = _link_color(str(link))
            ax.fill_between(g["size_bytes"], g["p10"], g["p90"], color=color, alpha=0.2, lw=0)
            (line,) = ax.plot(g["size_bytes"], g["median"], color=color, marker="o", ms=3,
                              label=f"{link} ({int(npairs.get(link, 0))} pairs)")
            handles.append(line)
        unm = _unmeasured_handle(sel, "bandwidth_GBps", ["src", "dst"])
    else:
        st = _stats(sel, ["src", "dst", "link"], "bandwidth_GBps")
        pairs = st[["src", "dst", "link"]].drop_duplicates().sort_values(["src", "dst"])
        many = len(pairs) > max_legend
        seen_links: dict[str, int] = {}
        for k, (s, d, link) in enumerate(pairs.itertuples(index=False)):
            g = st[(st["src"] == s) & (st["dst"] == d)].sort_values("size_bytes")
            if many:
                color = _link_color(str(link))
                ax.plot(g["size_bytes"], g["median"], color=color, lw=0.8, alpha=0.6)
                seen_links[str(link)] = seen_links.get(str(link), 0) + 1
            else:
                color = f"C{k % 10}"
                ax.fill_between(g["size_bytes"], g["p10"], g["p90"], color=color, alpha=0.15,
                                lw=0)
                (line,) = ax.plot(g["size_bytes"], g["median"], color=color, marker="o", ms=3,
                                  label=f"{s} → {d} ({link})")
                handles.append(line)
        if many:
            for link in [c for c in LINK_ORDER if c in seen_links] + sorted(
                    set(seen_links) - set(LINK_ORDER)):
                handles.append(Line2D([], [], color=_link_color(link), lw=1.5,
                                      label=f"{link}: {seen_links[link]} pairs (medians)"))
        unm = _unmeasured_handle(sel, "bandwidth_GBps", ["src", "dst"])
    if unm is not None:
        handles.append(unm)
    unverified = _mark_unverified(ax, sel, "bandwidth_GBps")
    if unverified is not None:
        handles.append(unverified)
    top = float(sel["bandwidth_GBps"].max()) if sel["bandwidth_GBps"].notna().any() else 1.0
    if show_nominal:
        shown = set(sel.loc[sel["bandwidth_GBps"].notna(), "link"].dropna().astype(str))
        for link, nom in _nominal_by_link(sel).items():
            if link not in shown:
                continue
            h = ax.axhline(nom, color=_link_color(link), ls="--", lw=1.0,
                           label=f"{link} nominal {nom:g} GB/s")
            handles.append(h)
            top = max(top, nom)
    _size_axis(ax, sel["size_bytes"].unique())
    ax.set_ylim(0, top * 1.08 if top > 0 else 1)
    ax.set_ylabel("bandwidth per direction (GB/s)")
    ax.grid(True, which="major", alpha=0.3)
    _side_legend(ax, handles)
    band = ("median, p10-p90 band" if by == "link" or not many
            else f"median per pair (no bands above {max_legend} pairs)")
    main = title or (f"Copy bandwidth vs size, {_mode_text(direction, peer, path)}\n"
                     f"{'per link class' if by == 'link' else 'per pair'}, {band}")
    _set_title(ax, main, backend_note(run))
    return _finish(fig)


def _fit_by(sel: pd.DataFrame, by: str) -> pd.DataFrame:
    fits = results.fit_latency_bandwidth(sel)
    if fits.empty:
        return fits
    if by == "link":
        return fits.groupby("link", as_index=False)[["latency_us", "bandwidth_GBps"]].median()
    return fits


def latency_vs_size(
    run: pd.DataFrame,
    *,
    by: str = "link",
    direction: str = "uni",
    peer: str | None = "on",
    path: str | None = None,
    ax: Axes | None = None,
    fit: bool = True,
    max_legend: int = 8,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Time per copy (median of elapsed_us / copies) vs size; log2 x, log y.

    With ``fit=True`` the fitted ``t = latency + size / bandwidth``
    (:func:`ascend_p2p_lab.results.fit_latency_bandwidth`, median over the pairs of a
    link class for ``by="link"``) is overlaid as a dashed line.

    Example:
        >>> fig = latency_vs_size(run, by="pair", fit=False)  # doctest: +SKIP
    """
    if by not in ("pair", "link"):
        raise ValueError(f"by must be 'pair' or 'link'; got {by!r}")
    sel, path = _select(run, direction=direction, peer=peer, path=path)
    df = sel.copy()
    df["us_per_copy"] = df["elapsed_us"] / df["copies"].astype("float64")
    df.loc[df["bandwidth_GBps"].isna(), "us_per_copy"] = np.nan
    keys = ["link"] if by == "link" else ["src", "dst", "link"]
    st = _stats(df, keys, "us_per_copy")
    groups = st[keys].drop_duplicates().sort_values(keys)
    many = by == "pair" and len(groups) > max_legend
    fits = _fit_by(sel, by) if fit else pd.DataFrame()
    sizes = np.array(sorted(sel["size_bytes"].unique()), dtype=float)
    xs = np.geomspace(sizes.min(), sizes.max(), 64) if len(sizes) else sizes
    fig, ax = _fig_ax(ax, (8.0, 4.6), figsize)
    handles: list[Any] = []
    seen_links: dict[str, int] = {}
    for k, row in enumerate(groups.itertuples(index=False)):
        key = dict(zip(keys, row))
        mask = np.logical_and.reduce([st[c] == v for c, v in key.items()])
        g = st[mask].sort_values("size_bytes")
        link = str(key["link"])
        if many:
            color = _link_color(link)
            seen_links[link] = seen_links.get(link, 0) + 1
        else:
            color = _link_color(link) if by == "link" else f"C{k % 10}"
        label = link if by == "link" else f"{key['src']} → {key['dst']} ({link})"
        if many:
            ax.plot(g["size_bytes"], g["median"], color=color, lw=0.8, alpha=0.6)
        else:
            ax.fill_between(g["size_bytes"], g["p10"], g["p90"], color=color, alpha=0.2, lw=0)
            (line,) = ax.plot(g["size_bytes"], g["median"], color=color, marker="o", ms=4,
                              ls="none" if fit else "-", label=f"{label} median")
            handles.append(line)
        if fit and not fits.empty:
            fmask = np.logical_and.reduce([fits[c] == v for c, v in key.items()])
            f = fits[fmask]
            if len(f) and np.isfinite(f["bandwidth_GBps"].iloc[0]):
                lat, bw = float(f["latency_us"].iloc[0]), float(f["bandwidth_GBps"].iloc[0])
                (fl,) = ax.plot(xs, lat + xs / (bw * 1e3), color=color, ls="--",
                                lw=1.0 if many else 1.4, alpha=0.5 if many else 0.9,
                                label=f"{label} fit: {lat:.1f} µs + size / {bw:.1f} GB/s")
                if not many:
                    handles.append(fl)
    if many:
        for link in sorted(seen_links, key=lambda c: (*LINK_ORDER, c).index(c)):
            count = seen_links[link]
            handles.append(Line2D([], [], color=_link_color(link), lw=1.5,
                                  label=f"{link}: {count} pairs (medians)"))
        if fit:
            handles.append(Line2D([], [], color="#555555", ls="--", lw=1.0,
                                  label="fit: t = latency + size / bandwidth"))
    unm = _unmeasured_handle(sel, "bandwidth_GBps", ["src", "dst"])
    if unm is not None:
        handles.append(unm)
    unverified = _mark_unverified(ax, df, "us_per_copy")
    if unverified is not None:
        handles.append(unverified)
    _size_axis(ax, sizes)
    ax.set_yscale("log")
    lo_hi = st[["p10", "p90"]].to_numpy(dtype=float)
    lo_hi = lo_hi[np.isfinite(lo_hi) & (lo_hi > 0)]
    decades = np.log10(lo_hi.max() / lo_hi.min()) if lo_hi.size else 0.0
    subs = (1.0, 2.0, 5.0) if decades < 4 else (1.0,)
    ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=subs))
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(_us_label))
    ax.yaxis.set_minor_locator(ticker.LogLocator(base=10, subs=np.arange(2, 10)))
    ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_ylabel("time per copy (median)")
    ax.grid(True, which="major", alpha=0.3)
    _side_legend(ax, handles)
    band = (f"median per pair (no bands above {max_legend} pairs)" if many
            else "median, p10-p90 band")
    main = title or (f"Time per copy vs size, {_mode_text(direction, peer, path)}\n"
                     f"{'per link class' if by == 'link' else 'per pair'}, {band}")
    _set_title(ax, main, backend_note(run))
    return _finish(fig)


def _choose_pair(df: pd.DataFrame, src: int | None, dst: int | None,
                 prefer: pd.DataFrame | None = None) -> tuple[int, int]:
    cand = df.dropna(subset=["src", "dst"])
    if src is not None:
        cand = cand[cand["src"] == src]
    if dst is not None:
        cand = cand[cand["dst"] == dst]
    if cand.empty:
        raise ValueError(f"no pair rows for src={src!r}, dst={dst!r} in this run")
    good = cand
    if prefer is not None:
        good = cand.merge(prefer[["src", "dst"]].drop_duplicates(), on=["src", "dst"])
    good = good[good["bandwidth_GBps"].notna()]
    pick = good if not good.empty else cand
    first = pick.sort_values(["src", "dst"]).iloc[0]
    return int(first["src"]), int(first["dst"])


def _line_with_band(ax: Axes, g: pd.DataFrame, **kw: Any) -> Line2D:
    color = kw.get("color")
    ax.fill_between(g["size_bytes"], g["p10"], g["p90"], color=color, alpha=0.18, lw=0)
    kw.setdefault("ms", 3)
    (line,) = ax.plot(g["size_bytes"], g["median"], marker="o", **kw)
    return line


def peer_on_off(
    run: pd.DataFrame,
    *,
    src: int | None = None,
    dst: int | None = None,
    direction: str = "uni",
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """One pair's bandwidth vs size with peer access on (p2p) and off (direct, staged).

    A path whose copies failed gets a legend entry with the error name instead of a line.
    Without src/dst, the first pair with P2P numbers is shown.

    Example:
        >>> fig = peer_on_off(run, src=0, dst=1)  # doctest: +SKIP
    """
    pairs = run[_eq(run["pattern"], "pair") & _eq(run["direction"], direction)]
    if pairs.empty:
        raise ValueError(f"no pair rows with direction={direction!r} in this run")
    on = pairs[_eq(pairs["path"], "p2p")]
    s, d = _choose_pair(pairs, src, dst, prefer=on if not on.empty else None)
    one = pairs[(pairs["src"] == s) & (pairs["dst"] == d)]
    link = str(one["link"].dropna().iloc[0]) if one["link"].notna().any() else "?"
    fig, ax = _fig_ax(ax, (8.0, 4.6), figsize)
    handles: list[Any] = []
    styles = [("on", "p2p", "#1f77b4", "-", 3.0), ("off", "direct", "#d62728", "--", 1.5),
              ("off", "staged", "#ff7f0e", "-.", 1.5)]
    top = 0.0
    for peer, path, color, ls, lw in styles:
        part = one[_eq(one["peer"], peer) & _eq(one["path"], path)]
        label = f"peer {peer}: {_PATH_WORDS[path]}"
        if part.empty:
            handles.append(Line2D([], [], color="none", label=f"{label}: not in this run"))
            continue
        st = _stats(part, [], "bandwidth_GBps").sort_values("size_bytes")
        if not st.empty:
            handles.append(_line_with_band(ax, st, color=color, ls=ls, lw=lw, label=label))
            top = max(top, float(st["p90"].max()))
        failed = part.loc[_failure_keys(part).index]
        failed = failed[~_verification_failed(failed)]  # those have numbers: marked below
        if not failed.empty:
            why = _failure_texts(failed)
            n_sizes = failed["size_bytes"].nunique()
            what = "failed" if st.empty else f"failed at {n_sizes} sizes"
            handles.append(Line2D([], [], color="none", marker="x", markeredgecolor=color,
                                  label=_wrap(f"{label}: {what}, {'; '.join(why)}", 100)))
        unverified = _mark_unverified(ax, part, "bandwidth_GBps", prefix=f"{label}: ")
        if unverified is not None:
            handles.append(unverified)
    nominal = _nominal_by_link(one)
    if link in nominal:
        handles.append(ax.axhline(nominal[link], color="#555555", ls="--", lw=1.0,
                                  label=f"{link} nominal {nominal[link]:g} GB/s"))
        top = max(top, nominal[link])
    _size_axis(ax, one["size_bytes"].unique())
    ax.set_ylim(0, top * 1.08 if top > 0 else 1)
    ax.set_ylabel("bandwidth (GB/s)")
    ax.grid(True, which="major", alpha=0.3)
    _below_legend_plot(ax, handles)
    arrow = "→" if direction == "uni" else "↔"
    main = title or (f"Peer access on vs off: device {s} {arrow} {d} ({link}), "
                     f"{'unidirectional' if direction == 'uni' else 'bidirectional'}\n"
                     "median, p10-p90 band")
    _set_title(ax, main, backend_note(run))
    return _finish(fig)


def _below_legend_plot(ax: Axes, handles: list[Any]) -> None:
    """Legend under a line plot (below its x label)."""
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=8,
              frameon=False, ncols=1, borderaxespad=0.0)


def uni_vs_bi(
    run: pd.DataFrame,
    *,
    src: int | None = None,
    dst: int | None = None,
    peer: str | None = "on",
    path: str | None = None,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """One pair: unidirectional bandwidth per direction, bidirectional per direction and
    the bidirectional total, vs size.

    Example:
        >>> fig = uni_vs_bi(run, src=0, dst=1)  # doctest: +SKIP
    """
    uni, upath = _select(run, direction="uni", peer=peer, path=path)
    bi, bpath = _select(run, direction="bi", peer=peer, path=path)
    s, d = _choose_pair(bi, src, dst, prefer=uni)
    fwd = (uni["src"] == s) & (uni["dst"] == d)
    rev = (uni["src"] == d) & (uni["dst"] == s)
    bfwd = (bi["src"] == s) & (bi["dst"] == d)
    brev = (bi["src"] == d) & (bi["dst"] == s)
    link = str(bi.loc[bfwd, "link"].dropna().iloc[0]) if bi.loc[bfwd, "link"].notna().any() \
        else "?"
    fig, ax = _fig_ax(ax, (8.0, 4.6), figsize)
    handles: list[Any] = []
    top = 0.0
    # uni: wide and light; bi per direction: thin and dashed on top; total: black
    series = [
        (uni[fwd], "bandwidth_GBps", f"uni {s} → {d}", "#1f77b4", "-", 4.0, 0.45),
        (uni[rev], "bandwidth_GBps", f"uni {d} → {s}", "#ff7f0e", "-", 4.0, 0.45),
        (bi[bfwd], "bandwidth_GBps", f"bi {s} → {d} (while {d} → {s} runs)", "#1f77b4", "--",
         1.5, 1.0),
        (bi[brev], "bandwidth_GBps", f"bi {d} → {s} (while {s} → {d} runs)", "#ff7f0e", "--",
         1.5, 1.0),
        (bi[bfwd | brev], "bidir_total_GBps", f"bi total {s} ↔ {d}", "black", "-", 2.2, 1.0),
    ]
    for part, col, label, color, ls, lw, alpha in series:
        if part.empty:
            continue
        st = _stats(part, [], col).sort_values("size_bytes")
        if st.empty:
            why = _failure_texts(part)
            text = f"{label}: no numbers" + (f", {'; '.join(why)}" if why else "")
            handles.append(Line2D([], [], color="none", marker="x", markeredgecolor=color,
                                  label=_wrap(text, 64)))
            continue
        handles.append(_line_with_band(ax, st, color=color, ls=ls, lw=lw, alpha=alpha,
                                       label=label, ms=0 if lw > 3 else 3))
        top = max(top, float(st["p90"].max()))
        unverified = _mark_unverified(ax, part, col, prefix=f"{label}: ")
        if unverified is not None:
            handles.append(unverified)
    nominal = _nominal_by_link(bi[bfwd | brev])
    if link in nominal:
        nom = nominal[link]
        handles.append(ax.axhline(nom, color="#555555", ls="--", lw=1.0,
                                  label=f"{link} nominal per direction {nom:g} GB/s"))
        handles.append(ax.axhline(2 * nom, color="#555555", ls=":", lw=1.0,
                                  label=f"2 × nominal {2 * nom:g} GB/s"))
        top = max(top, 2 * nom)
    _size_axis(ax, pd.concat([uni["size_bytes"], bi["size_bytes"]]).unique())
    ax.set_ylim(0, top * 1.08 if top > 0 else 1)
    ax.set_ylabel("bandwidth (GB/s)")
    ax.grid(True, which="major", alpha=0.3)
    _side_legend(ax, handles)
    paths = upath if upath == bpath else f"uni {upath}, bi {bpath}"
    main = title or (f"Unidirectional vs bidirectional: devices {s} and {d} ({link}), "
                     f"peer {peer} ({paths})\nmedian, p10-p90 band")
    _set_title(ax, main, backend_note(run))
    return _finish(fig)


# ------------------------------------------------------------------------------ presets
def _split_runs(runs: Mapping[str, pd.DataFrame] | pd.DataFrame) -> dict[str, pd.DataFrame]:
    if isinstance(runs, pd.DataFrame):
        out = {}
        for name in _uniq(runs, "preset") or ["run"]:
            part = runs[_eq(runs["preset"], name)] if "preset" in runs.columns else runs
            part = part.copy()
            part.attrs = dict(runs.attrs)
            out[name] = part
        return out
    if not runs:
        raise ValueError("no runs given")
    return dict(runs)


def compare_presets(
    runs: Mapping[str, pd.DataFrame] | pd.DataFrame,
    *,
    size: int | str | None = None,
    direction: str = "uni",
    peer: str | None = "on",
    path: str | None = None,
    include_local: bool = False,
    ax: Axes | None = None,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Asymptotic bandwidth per link class, side by side per preset (or run).

    ``runs`` maps a name to a run frame, or is one frame holding several presets. Each bar
    is the median over all samples of that link class at ``size`` (default: each pair's
    largest size); the black tick over it is the class's nominal rate.

    Example:
        >>> fig = compare_presets({"910": r9000, "910B": ra2, "910C": ra3})  # doctest: +SKIP
    """
    size_b = _size_bytes(size)
    frames = _split_runs(runs)
    rows = []
    for name, frame in frames.items():
        sel, used_path = _select(frame, direction=direction, peer=peer, path=path)
        parts = [sel]
        if include_local:
            parts.append(frame[_eq(frame["pattern"], "local")])
        df = pd.concat(parts)
        df = df[df["bandwidth_GBps"].notna()]
        if size_b is not None:
            df = df[df["size_bytes"] == size_b]
        else:
            df = df[df["size_bytes"] == df.groupby(["src", "dst"])["size_bytes"]
                    .transform("max")]
        soc = _frames_meta(frame).get("soc_name") or ""
        for link, g in df.groupby("link"):
            nom = g["nominal_GBps"].dropna()
            rows.append({"name": name, "soc": soc, "link": str(link), "path": used_path,
                         "GBps": float(g["bandwidth_GBps"].median()),
                         "nominal": float(nom.iloc[0]) if len(nom) else math.nan,
                         "pairs": len(g[["src", "dst"]].drop_duplicates()),
                         "size": int(g["size_bytes"].max())})
    table = pd.DataFrame(rows)
    if table.empty:
        raise ValueError("none of the runs has numbers for this selection")
    order = {c: i for i, c in enumerate(LINK_ORDER)}
    nbars = len(table)
    fig, ax = _fig_ax(ax, (max(7.5, 1.6 + 0.75 * nbars + 0.5 * len(frames)), 5.0), figsize)
    top = float(np.nanmax(np.r_[table["GBps"].to_numpy(), table["nominal"].to_numpy()]))
    x = 0.0
    centers, names = [], []
    seen: dict[str, Any] = {}
    nominal_handle = None
    for name in frames:
        g = table[table["name"] == name].copy()
        if g.empty:
            continue
        g["o"] = g["link"].map(lambda c: order.get(c, 99))
        g = g.sort_values("o")
        start = x
        for r in g.itertuples(index=False):
            color = _link_color(r.link)
            bar = ax.bar(x, r.GBps, width=0.8, color=color, edgecolor="white")
            seen.setdefault(r.link, bar)
            text = f"{r.GBps:.0f}" if r.GBps >= 100 else f"{r.GBps:.1f}"
            if r.GBps >= 0.08 * top:  # inside the bar, under its top edge
                ax.annotate(text, (x, r.GBps), xytext=(0, -3), textcoords="offset points",
                            ha="center", va="top", fontsize=8, fontweight="bold",
                            color=_text_color(mcolors.to_rgba(color)))
            else:  # a short bar: above the bar and its nominal tick
                above = max(r.GBps, r.nominal if np.isfinite(r.nominal) else 0.0)
                ax.annotate(text, (x, above), xytext=(0, 3), textcoords="offset points",
                            ha="center", va="bottom", fontsize=8)
            if np.isfinite(r.nominal):
                (nominal_handle,) = ax.plot([x - 0.4, x + 0.4], [r.nominal, r.nominal],
                                            color="black", ls="--", lw=1.2)
            x += 1.0
        centers.append((start + x - 1.0) / 2)
        soc = g["soc"].iloc[0]
        names.append(f"{name}\n{soc}" if soc else name)
        x += 0.6
    ax.set_xticks(centers, labels=names, fontsize=9)
    ax.set_ylabel("bandwidth per direction (GB/s)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    ax.set_ylim(0, top * 1.12)
    handles = [Patch(facecolor=_link_color(c), label=f"{c}: {LINK_MEANING.get(c, c)}")
               for c in sorted(seen, key=lambda c: order.get(c, 99))]
    if nominal_handle is not None:
        handles.append(Line2D([], [], color="black", ls="--", lw=1.2, label="nominal rate"))
    _side_legend(ax, handles)
    sizes = sorted(set(table["size"]))
    size_text = (f"at {format_size(size_b)}" if size_b is not None else
                 f"largest size ({', '.join(format_size(s) for s in sizes)})")
    paths = ", ".join(dict.fromkeys(table["path"]))
    main = title or (f"Bandwidth per link class and preset, "
                     f"{_mode_text(direction, peer, paths)}\n{size_text}, median over pairs")
    _set_title(ax, main, backend_note(*frames.values()))
    return _finish(fig)


# ------------------------------------------------------------------------------ report
def _save(fig: Figure, path: Path, written: list[Path]) -> None:
    fig.savefig(path, dpi=DPI)
    written.append(path)


def report(run: pd.DataFrame, out_dir: str | Path, *, table: pd.DataFrame | None = None,
           size: int | str | None = None) -> list[Path]:
    """Write the figures that fit this run as PNGs into out_dir; return their paths.

    Heatmaps for every direction / peer / path present (plus the bidirectional total),
    the link matrix, bandwidth and latency vs size, peer on/off and uni/bi when the run
    has both. With a probe ``table``, the peer-access matrix too.

    Example:
        >>> paths = report(run, "out/figures", table=probe(rt))  # doctest: +SKIP
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    pairs = run[_eq(run["pattern"], "pair")]
    if table is not None:
        _save(link_matrix(table), out / "link_matrix.png", written)
        _save(peer_access_matrix(table), out / "peer_access.png", written)
    elif not pairs.empty:
        _save(link_matrix(run), out / "link_matrix.png", written)
    combos = _combos(run)
    for direction, peer, path in combos:
        stem = f"heatmap_{direction}_{peer}_{path}"
        _save(heatmap(run, size=size, direction=direction, peer=peer, path=path),
              out / f"{stem}.png", written)
        sel = pairs[_eq(pairs["direction"], direction) & _eq(pairs["peer"], peer)
                    & _eq(pairs["path"], path)]
        if direction == "bi" and sel["bidir_total_GBps"].notna().any():
            _save(heatmap(run, size=size, direction=direction, peer=peer, path=path,
                          value="bidir_total_GBps"), out / f"{stem}_total.png", written)
    numeric = [c for c in combos if pairs.loc[
        _eq(pairs["direction"], c[0]) & _eq(pairs["peer"], c[1]) & _eq(pairs["path"], c[2]),
        "bandwidth_GBps"].notna().any()]
    n_pairs = len(pairs[["src", "dst"]].drop_duplicates())
    by = "link" if n_pairs > 8 else "pair"
    for direction, peer, path in numeric:
        _save(bandwidth_vs_size(run, by=by, direction=direction, peer=peer, path=path),
              out / f"bandwidth_vs_size_{direction}_{peer}_{path}.png", written)
    if numeric:
        direction, peer, path = numeric[0]
        _save(latency_vs_size(run, by=by, direction=direction, peer=peer, path=path),
              out / f"latency_vs_size_{direction}_{peer}_{path}.png", written)
    uni = pairs[_eq(pairs["direction"], "uni")]
    if {"on", "off"} <= set(_uniq(uni, "peer")) and uni["bandwidth_GBps"].notna().any():
        _save(peer_on_off(run), out / "peer_on_off.png", written)
    for peer in ("on", "off"):
        have = {c[0] for c in numeric if c[1] == peer}
        if {"uni", "bi"} <= have:
            _save(uni_vs_bi(run, peer=peer), out / f"uni_vs_bi_{peer}.png", written)
    return written
