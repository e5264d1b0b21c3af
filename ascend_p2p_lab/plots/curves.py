"""Curves over copy size: bandwidth and time per copy, peer on vs off, uni vs bi.

Every figure: a base-2 log size axis with binary units, a median line and a p10-p90 band
per group, the failures and untrusted points named in the legend; on bandwidth and time
per copy vs size, hollow rings mark the host-bound points. The statistics come
from :mod:`~ascend_p2p_lab.plots.prepare`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ..run import Run
from ..schema import PAIR_PATTERN
from ..vocab import P2P, STAGED, UNI
from .cells import (
    failure_keys,
    failure_texts,
    unmeasured_text,
    unverified_points,
    unverified_text,
    verification_failed,
)
from .prepare import (
    PATH_WORDS,
    backend_note,
    choose_pair,
    count_by_link,
    eq,
    first_link,
    fits_by,
    frame_of,
    host_bound_points,
    link_rank,
    mode_text,
    narrow,
    nominal_by_link,
    point_stats,
    pooled_stats,
    select,
    time_per_copy,
    wrap,
)
from .style import (
    CURVE_SIZE,
    VERIFY_EDGE,
    bandwidth_axes,
    below_plot_legend,
    fig_ax,
    finish,
    link_color,
    set_title,
    side_legend,
    size_axis,
    time_axis,
)

#: Two lines whose medians agree this closely at every size draw as one at a figure's
#: scale (the simulator's 1% jitter included): the later one says so and is dashed.
IDENTICAL_RTOL = 0.02


# ------------------------------------------------------------------------------ helpers
def _band_line(ax: Axes, g: pd.DataFrame, *, band_alpha: float = 0.18, **kw: Any) -> Line2D:
    """A median line with its p10-p90 band."""
    ax.fill_between(
        g["size_bytes"], g["p10"], g["p90"], color=kw.get("color"), alpha=band_alpha, lw=0
    )
    kw.setdefault("ms", 3)
    (line,) = ax.plot(g["size_bytes"], g["median"], marker="o", **kw)
    return line


def _class_handles(counts: dict[str, int], via: str = "") -> list[Line2D]:
    """One legend entry per link class when the pairs are too many to name."""
    return [
        Line2D([], [], color=link_color(link), lw=1.5, label=f"{link}: {n} pairs{via} (medians)")
        for link, n in counts.items()
    ]


def via_words(path: Any) -> str:
    """What a curve's label adds for the staged path (through host memory, not the link).

    Example:
        >>> via_words("staged"), via_words("p2p")
        (', via host memory', '')
    """
    return ", via host memory" if path == STAGED else ""


def _failure_handles(
    ax: Axes, sel: pd.DataFrame, col: str, *, unmeasured: bool = True, prefix: str = ""
) -> list[Line2D]:
    """Legend entries for the pairs without numbers, and red crosses (with their entry)
    on the points whose bytes arrived wrong."""
    out = []
    text = unmeasured_text(sel) if unmeasured else None
    if text is not None:
        out.append(_no_line(text))
    pts = unverified_points(sel, col)
    if not pts.empty:
        (mark,) = ax.plot(
            pts["size_bytes"],
            pts[col],
            ls="none",
            marker="X",
            ms=9,
            mew=1.2,
            markerfacecolor="none",
            markeredgecolor=VERIFY_EDGE,
            zorder=5,
        )
        mark.set_label(unverified_text(pts, prefix))
        out.append(mark)
    return out


def _host_bound_handles(
    ax: Axes, sel: pd.DataFrame, keys: list[str], col: str, *, fitted: bool = False
) -> list[Line2D]:
    """Hollow rings (and their legend entry) on the points that have a host-bound sample
    (``host_bound``: enqueueing took at least ``host_bound_ratio`` of the window, so the
    host may have set the pace; the fit leaves them out)."""
    pts = host_bound_points(sel, keys, col)
    if pts.empty:
        return []
    (ring,) = ax.plot(
        pts["size_bytes"],
        pts[col],
        ls="none",
        marker="o",
        ms=9,
        mew=1.2,
        markerfacecolor="none",
        markeredgecolor="#333333",
        zorder=4,
    )
    n = len(pts)
    ring.set_label(
        f"host-bound ({n} point{'s' if n != 1 else ''})" + (", not fitted" if fitted else "")
    )
    return [ring]


def _no_line(label: str, color: str | None = None) -> Line2D:
    """A legend entry for a series that has no line (it failed, or was not measured):
    text only, no symbol, since nothing on the plot stands for it."""
    return Line2D([], [], color="none", marker="", label=label)


# ------------------------------------------------------------------------------ bandwidth
def _link_lines(ax: Axes, sel: pd.DataFrame, via: str = "") -> list[Any]:
    """One median line and band per link class, over every sample of its pairs (``via``:
    the path's words when it is not the link, :func:`via_words`)."""
    st = pooled_stats(sel, ["link"], "bandwidth_GBps")
    npairs = (
        sel[sel["bandwidth_GBps"].notna()]
        .groupby("link")[["src", "dst"]]
        .apply(lambda g: len(g.drop_duplicates()))
    )
    handles = []
    for link in sorted(set(st["link"].astype(str)), key=link_rank):
        g = st[st["link"] == link].sort_values("size_bytes")
        handles.append(
            _band_line(
                ax,
                g,
                color=link_color(link),
                band_alpha=0.2,
                label=f"{link} ({int(npairs.get(link, 0))} pairs{via})",
            )
        )
    return handles


def _pair_lines(
    ax: Axes, sel: pd.DataFrame, max_legend: int, via: str = ""
) -> tuple[list[Any], bool]:
    """One line per pair: with bands and names up to ``max_legend`` pairs, else thin and
    coloured by link class. Returns the legend handles and whether there were many."""
    st = point_stats(sel)
    pairs = st[["src", "dst", "link"]].drop_duplicates().sort_values(["src", "dst"])
    many = len(pairs) > max_legend
    handles = []
    for k, (s, d, link) in enumerate(pairs.itertuples(index=False)):
        g = st[(st["src"] == s) & (st["dst"] == d)].sort_values("size_bytes")
        if many:
            ax.plot(g["size_bytes"], g["median"], color=link_color(str(link)), lw=0.8, alpha=0.6)
        else:
            handles.append(
                _band_line(
                    ax, g, color=f"C{k % 10}", band_alpha=0.15, label=f"{s} → {d} ({link}{via})"
                )
            )
    if many:
        handles = _class_handles(count_by_link(pairs["link"]), via)
    return handles, many


def name_hidden_lines(handles: list[Any]) -> list[str]:
    """A line drawn over an earlier one with the same points (within
    ``IDENTICAL_RTOL``) hides it: both stay in the legend, the later saying so, dashed so
    that the one under it shows through. Returns the labels changed."""
    seen: list[tuple[Any, np.ndarray, np.ndarray]] = []
    changed = []
    for h in handles:
        if not isinstance(h, Line2D) or not len(h.get_xdata()):
            continue
        x, y = np.asarray(h.get_xdata(), float), np.asarray(h.get_ydata(), float)
        under = next(
            (
                o
                for o, ox, oy in seen
                if ox.shape == x.shape
                and np.array_equal(ox, x)
                and np.allclose(oy, y, rtol=IDENTICAL_RTOL, equal_nan=True)
            ),
            None,
        )
        if under is None:
            seen.append((h, x, y))
            continue
        h.set_label(f"{h.get_label()} = {under.get_label().split(' (')[0]}, on top")
        h.set_linestyle("--")
        changed.append(h.get_label())
    return changed


def _nominal_lines(ax: Axes, sel: pd.DataFrame, top: float) -> tuple[list[Any], float]:
    """Dashed nominal rates of the link classes that have numbers; the new y top."""
    shown = set(sel.loc[sel["bandwidth_GBps"].notna(), "link"].dropna().astype(str))
    handles = []
    for link, nom in nominal_by_link(sel).items():
        if link in shown:
            handles.append(
                ax.axhline(
                    nom,
                    color=link_color(link),
                    ls="--",
                    lw=1.0,
                    label=f"{link} nominal {nom:g} GB/s",
                )
            )
            top = max(top, nom)
    return handles, top


def bandwidth_vs_size(
    run: Run,
    *,
    by: str = "pair",
    direction: str = "uni",
    peer: str | None = "on",
    path: str | None = None,
    initiator: str | None = None,
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
    nominal per-direction rate is a dashed line. ``initiator`` keeps one side's copies
    of a run that has pulls and pushes.

    Example:
        >>> fig = bandwidth_vs_size(run, by="link", peer="off")  # doctest: +SKIP
    """
    run = frame_of(run)
    if by not in ("pair", "link"):
        raise ValueError(f"by must be 'pair' or 'link'; got {by!r}")
    sel, path = select(run, direction=direction, peer=peer, path=path, initiator=initiator)
    fig, ax = fig_ax(ax, CURVE_SIZE, figsize)
    many, via = False, via_words(path)
    if by == "link":
        handles = _link_lines(ax, sel, via)
    else:
        handles, many = _pair_lines(ax, sel, max_legend, via)
    name_hidden_lines(handles)
    handles += _failure_handles(ax, sel, "bandwidth_GBps")
    handles += _host_bound_handles(
        ax, sel, ["link"] if by == "link" else ["src", "dst"], "bandwidth_GBps"
    )
    top = float(sel["bandwidth_GBps"].max()) if sel["bandwidth_GBps"].notna().any() else 1.0
    if show_nominal:
        nominal, top = _nominal_lines(ax, sel, top)
        handles += nominal
    bandwidth_axes(ax, sel["size_bytes"].unique(), top, "bandwidth per direction (GB/s)")
    side_legend(ax, handles)
    band = (
        "median, p10-p90 band"
        if by == "link" or not many
        else f"median per pair (no bands above {max_legend} pairs)"
    )
    main = title or (
        f"Copy bandwidth vs size, {mode_text(direction, peer, path, initiator)}\n"
        f"{'per link class' if by == 'link' else 'per pair'}, {band}"
    )
    set_title(ax, main, backend_note(run))
    return finish(fig)


# ------------------------------------------------------------------------------ latency
def _time_lines(
    ax: Axes,
    st: pd.DataFrame,
    fits: pd.DataFrame,
    keys: list[str],
    *,
    by: str,
    many: bool,
    fit: bool,
    xs: np.ndarray,
) -> list[Any]:
    """Per group: the median time per copy (markers only under a fit), its band, and the
    fitted ``latency + size / bandwidth`` dashed; thin lines without names if ``many``."""
    handles = []
    for k, row in enumerate(st[keys].drop_duplicates().sort_values(keys).itertuples(index=False)):
        key = dict(zip(keys, row))
        g = st[np.logical_and.reduce([st[c] == v for c, v in key.items()])]
        g = g.sort_values("size_bytes")
        link = str(key["link"])
        color = link_color(link) if many or by == "link" else f"C{k % 10}"
        label = link if by == "link" else f"{key['src']} → {key['dst']} ({link})"
        if many:
            ax.plot(g["size_bytes"], g["median"], color=color, lw=0.8, alpha=0.6)
        else:
            handles.append(
                _band_line(
                    ax,
                    g,
                    color=color,
                    band_alpha=0.2,
                    ms=4,
                    ls="none" if fit else "-",
                    label=f"{label} median",
                )
            )
        f = (
            fits[np.logical_and.reduce([fits[c] == v for c, v in key.items()])]
            if fit and not fits.empty
            else fits.iloc[:0]
        )
        if len(f) and np.isfinite(f["bandwidth_GBps"].iloc[0]):
            lat, bw = float(f["latency_us"].iloc[0]), float(f["bandwidth_GBps"].iloc[0])
            (fl,) = ax.plot(
                xs,
                lat + xs / (bw * 1e3),
                color=color,
                ls="--",
                lw=1.0 if many else 1.4,
                alpha=0.5 if many else 0.9,
                label=f"{label} fit: {lat:.1f} µs + size / {bw:.1f} GB/s",
            )
            if not many:
                handles.append(fl)
    return handles


def latency_vs_size(
    run: Run,
    *,
    by: str = "link",
    direction: str = "uni",
    peer: str | None = "on",
    path: str | None = None,
    initiator: str | None = None,
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
    run = frame_of(run)
    if by not in ("pair", "link"):
        raise ValueError(f"by must be 'pair' or 'link'; got {by!r}")
    sel, path = select(run, direction=direction, peer=peer, path=path, initiator=initiator)
    df = time_per_copy(sel)
    keys = ["link"] if by == "link" else ["src", "dst", "link"]
    st = pooled_stats(df, keys, "us_per_copy")
    groups = st[keys].drop_duplicates()
    many = by == "pair" and len(groups) > max_legend
    sizes = np.array(sorted(sel["size_bytes"].unique()), dtype=float)
    xs = np.geomspace(sizes.min(), sizes.max(), 64) if len(sizes) else sizes
    fig, ax = fig_ax(ax, CURVE_SIZE, figsize)
    handles = _time_lines(
        ax, st, fits_by(sel, by) if fit else pd.DataFrame(), keys, by=by, many=many, fit=fit, xs=xs
    )
    if many:
        handles += _class_handles(count_by_link(groups["link"]))
        if fit:
            handles.append(
                Line2D(
                    [],
                    [],
                    color="#555555",
                    ls="--",
                    lw=1.0,
                    label="fit: t = latency + size / bandwidth",
                )
            )
    handles += _failure_handles(ax, df, "us_per_copy")
    handles += _host_bound_handles(ax, df, keys, "us_per_copy", fitted=fit)
    size_axis(ax, sizes)
    time_axis(ax, st[["p10", "p90"]].to_numpy(dtype=float))
    ax.set_ylabel("time per copy (median)")
    ax.grid(True, which="major", alpha=0.3)
    side_legend(ax, handles)
    band = (
        f"median per pair (no bands above {max_legend} pairs)" if many else "median, p10-p90 band"
    )
    main = title or (
        f"Time per copy vs size, {mode_text(direction, peer, path, initiator)}\n"
        f"{'per link class' if by == 'link' else 'per pair'}, {band}"
    )
    set_title(ax, main, backend_note(run))
    return finish(fig)


# ------------------------------------------------------------------------------ one pair
_ON_OFF_STYLES = [
    ("on", "p2p", "#1f77b4", "-", 3.0),
    ("off", "direct", "#d62728", "--", 1.5),
    ("off", "staged", "#ff7f0e", "-.", 1.5),
]


def _on_off_series(ax: Axes, part: pd.DataFrame, label: str, **kw: Any) -> tuple[list[Any], float]:
    """One path of peer_on_off: its line, its failures; the legend handles and top."""
    handles: list[Any] = []
    top = 0.0
    st = point_stats(part).sort_values("size_bytes")
    if not st.empty:
        handles.append(_band_line(ax, st, label=label, **kw))
        top = float(st["p90"].max())
    failed = part.loc[failure_keys(part).index]
    failed = failed[~verification_failed(failed)]  # those have numbers: marked below
    if not failed.empty:
        why = failure_texts(failed)
        what = "failed" if st.empty else f"failed at {failed['size_bytes'].nunique()} sizes"
        handles.append(_no_line(wrap(f"{label}: {what}, {'; '.join(why)}", 100), kw["color"]))
    handles += _failure_handles(ax, part, "bandwidth_GBps", unmeasured=False, prefix=f"{label}: ")
    return handles, top


def peer_on_off(
    run: Run,
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
    run = frame_of(run)
    mode = eq(run["pattern"], PAIR_PATTERN) & eq(run["direction"], direction)
    pairs = narrow(run, ("src", "dst", "path", "bandwidth_GBps"), mode)  # to choose from
    if pairs.empty:
        raise ValueError(f"no pair rows with direction={direction!r} in this run")
    on = pairs[eq(pairs["path"], P2P)]
    s, d = choose_pair(pairs, src, dst, prefer=on if not on.empty else None)
    one = run[mode & (run["src"] == s) & (run["dst"] == d)]  # every column of its rows
    link = first_link(one)
    fig, ax = fig_ax(ax, CURVE_SIZE, figsize)
    handles: list[Any] = []
    top = 0.0
    for peer, path, color, ls, lw in _ON_OFF_STYLES:
        part = one[eq(one["peer"], peer) & eq(one["path"], path)]
        label = f"peer {peer}: {PATH_WORDS[path]}"
        if part.empty:
            handles.append(Line2D([], [], color="none", label=f"{label}: not in this run"))
            continue
        more, part_top = _on_off_series(ax, part, label, color=color, ls=ls, lw=lw)
        handles += more
        top = max(top, part_top)
    nominal = nominal_by_link(one)
    if link in nominal:
        handles.append(
            ax.axhline(
                nominal[link],
                color="#555555",
                ls="--",
                lw=1.0,
                label=f"{link} nominal {nominal[link]:g} GB/s",
            )
        )
        top = max(top, nominal[link])
    bandwidth_axes(ax, one["size_bytes"].unique(), top, "bandwidth (GB/s)")
    below_plot_legend(ax, handles)
    arrow = "→" if direction == UNI else "↔"
    main = title or (
        f"Peer access on vs off: device {s} {arrow} {d} ({link}), "
        f"{'unidirectional' if direction == UNI else 'bidirectional'}\n"
        "median, p10-p90 band"
    )
    set_title(ax, main, backend_note(run))
    return finish(fig)


def _uni_bi_series(uni: pd.DataFrame, bi: pd.DataFrame, s: int, d: int) -> list[tuple]:
    """(rows, column, label, colour, line style, width, alpha) of uni_vs_bi's lines: uni
    wide and light; bi per direction thin and dashed on top; the total black."""

    def one(df: pd.DataFrame, a: int, b: int) -> pd.DataFrame:
        return df[(df["src"] == a) & (df["dst"] == b)]

    both = bi[((bi["src"] == s) & (bi["dst"] == d)) | ((bi["src"] == d) & (bi["dst"] == s))]
    col = "bandwidth_GBps"
    return [
        (one(uni, s, d), col, f"uni {s} → {d}", "#1f77b4", "-", 4.0, 0.45),
        (one(uni, d, s), col, f"uni {d} → {s}", "#ff7f0e", "-", 4.0, 0.45),
        (one(bi, s, d), col, f"bi {s} → {d} (while {d} → {s} runs)", "#1f77b4", "--", 1.5, 1.0),
        (one(bi, d, s), col, f"bi {d} → {s} (while {s} → {d} runs)", "#ff7f0e", "--", 1.5, 1.0),
        (both, "bidir_total_GBps", f"bi total {s} ↔ {d}", "black", "-", 2.2, 1.0),
    ]


def _nominal_pair(ax: Axes, link: str, nominal: dict[str, float]) -> tuple[list[Any], float]:
    """The nominal rate per direction (dashed) and twice it (dotted); the new y top."""
    if link not in nominal:
        return [], 0.0
    nom = nominal[link]
    return [
        ax.axhline(
            nom,
            color="#555555",
            ls="--",
            lw=1.0,
            label=f"{link} nominal per direction {nom:g} GB/s",
        ),
        ax.axhline(2 * nom, color="#555555", ls=":", lw=1.0, label=f"2 × nominal {2 * nom:g} GB/s"),
    ], 2 * nom


def uni_vs_bi(
    run: Run,
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
    run = frame_of(run)
    uni, upath = select(run, direction="uni", peer=peer, path=path)
    bi, bpath = select(run, direction="bi", peer=peer, path=path)
    s, d = choose_pair(bi, src, dst, prefer=uni)
    link = first_link(bi[(bi["src"] == s) & (bi["dst"] == d)])
    fig, ax = fig_ax(ax, CURVE_SIZE, figsize)
    handles: list[Any] = []
    top = 0.0
    series = _uni_bi_series(uni, bi, s, d)
    for part, col, label, color, ls, lw, alpha in series:
        if part.empty:
            continue
        st = (
            point_stats(part) if col == "bandwidth_GBps" else pooled_stats(part, [], col)
        ).sort_values("size_bytes")
        if st.empty:
            why = failure_texts(part)
            text = f"{label}: no numbers" + (f", {'; '.join(why)}" if why else "")
            handles.append(_no_line(wrap(text, 64), color))
            continue
        handles.append(
            _band_line(
                ax, st, color=color, ls=ls, lw=lw, alpha=alpha, label=label, ms=0 if lw > 3 else 3
            )
        )
        top = max(top, float(st["p90"].max()))
        handles += _failure_handles(ax, part, col, unmeasured=False, prefix=f"{label}: ")
    nominal, nominal_top = _nominal_pair(ax, link, nominal_by_link(series[-1][0]))
    handles += nominal
    top = max(top, nominal_top)
    bandwidth_axes(
        ax, pd.concat([uni["size_bytes"], bi["size_bytes"]]).unique(), top, "bandwidth (GB/s)"
    )
    side_legend(ax, handles)
    paths = upath if upath == bpath else f"uni {upath}, bi {bpath}"
    main = title or (
        f"Unidirectional vs bidirectional: devices {s} and {d} ({link}), "
        f"peer {peer} ({paths})\nmedian, p10-p90 band"
    )
    set_title(ax, main, backend_note(run))
    return finish(fig)
