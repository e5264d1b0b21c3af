"""The figures that fit a run, written as PNG files (what ``ascend-p2p-lab report`` does)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from .aggregates import aggregate_bars, aggregate_stats, card_heatmap
from .curves import bandwidth_vs_size, latency_vs_size, peer_on_off, uni_vs_bi
from .heatmaps import heatmap, link_matrix, peer_access_matrix
from .host import HOST_DIRECTIONS, host_bandwidth_vs_size
from .prepare import combos, distinct, eq, mode_rows, pair_count
from .style import save_png


def _save(fig: Figure, path: Path, written: list[Path]) -> None:
    save_png(fig, path)
    written.append(path)


def report(run: pd.DataFrame, out_dir: str | Path, *, table: pd.DataFrame | None = None,
           size: int | str | None = None) -> list[Path]:
    """Write the figures that fit this run as PNGs into out_dir; return their paths.

    Heatmaps for every direction / peer / path present (plus the bidirectional total),
    the link matrix, bandwidth and latency vs size, peer on/off and uni/bi when the run
    has both, the latency matrix (time per copy at the smallest size) when it has the
    latency pattern, host <-> device bandwidth vs size when it has h2d or d2h numbers,
    aggregate bars for fan-outs, groups and cards, and the card matrices. With a probe
    ``table``, the peer-access matrix too.

    Example:
        >>> paths = report(run, "out/figures", table=probe(rt))  # doctest: +SKIP
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    pairs = run[eq(run["pattern"], "pair")]
    if table is not None:
        _save(link_matrix(table), out / "link_matrix.png", written)
        _save(peer_access_matrix(table), out / "peer_access.png", written)
    elif not pairs.empty:
        _save(link_matrix(run), out / "link_matrix.png", written)
    modes = combos(run)
    for direction, peer, path in modes:
        stem = f"heatmap_{direction}_{peer}_{path}"
        _save(heatmap(run, size=size, direction=direction, peer=peer, path=path),
              out / f"{stem}.png", written)
        if direction == "bi" and mode_rows(pairs, direction, peer, path)[
                "bidir_total_GBps"].notna().any():
            _save(heatmap(run, size=size, direction=direction, peer=peer, path=path,
                          value="bidir_total_GBps"), out / f"{stem}_total.png", written)
    numeric = [c for c in modes if mode_rows(pairs, *c)["bandwidth_GBps"].notna().any()]
    by = "link" if pair_count(pairs) > 8 else "pair"
    for direction, peer, path in numeric:
        _save(bandwidth_vs_size(run, by=by, direction=direction, peer=peer, path=path),
              out / f"bandwidth_vs_size_{direction}_{peer}_{path}.png", written)
    if numeric:
        direction, peer, path = numeric[0]
        _save(latency_vs_size(run, by=by, direction=direction, peer=peer, path=path),
              out / f"latency_vs_size_{direction}_{peer}_{path}.png", written)
    uni = pairs[eq(pairs["direction"], "uni")]
    if {"on", "off"} <= set(distinct(uni, "peer")) and uni["bandwidth_GBps"].notna().any():
        _save(peer_on_off(run), out / "peer_on_off.png", written)
    for peer in ("on", "off"):
        if {"uni", "bi"} <= {c[0] for c in numeric if c[1] == peer}:
            _save(uni_vs_bi(run, peer=peer), out / f"uni_vs_bi_{peer}.png", written)
    latency = run[eq(run["pattern"], "latency") & run["latency_us"].notna()]
    for peer, path in sorted(set(zip(latency["peer"], latency["path"]))):
        part = latency[(latency["peer"] == peer) & (latency["path"] == path)]
        smallest = int(part["size_bytes"].min())  # a copy's fixed cost, as in notebook 6
        _save(heatmap(run, size=smallest, value="latency_us", pattern="latency", peer=peer,
                      path=path), out / f"latency_{peer}_{path}.png", written)
    host = run[run["pattern"].isin(list(HOST_DIRECTIONS)).fillna(False).astype(bool)]
    if host["bandwidth_GBps"].notna().any():
        _save(host_bandwidth_vs_size(run), out / "host_bandwidth_vs_size.png", written)
    if not aggregate_stats(run).empty:
        _save(aggregate_bars(run), out / "aggregates.png", written)
    _cards(run, out, written)
    return written


def _cards(run: pd.DataFrame, out: Path, written: list[Path]) -> None:
    """The card matrix of each direction measured (bi: with both directions' total)."""
    cards = run[eq(run["pattern"], "card") & run["bandwidth_GBps"].notna()]
    for direction in distinct(cards, "direction"):
        _save(card_heatmap(run, direction=direction), out / f"card_{direction}.png", written)
        if direction == "bi":
            _save(card_heatmap(run, direction="bi", value="bidir_total_GBps"),
                  out / "card_bi_total.png", written)
