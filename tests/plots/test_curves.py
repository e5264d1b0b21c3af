"""The curves over copy size (plots.curves): bandwidth_vs_size, latency_vs_size,
peer_on_off and uni_vs_bi.

The tests check artists, labels, legends and axes, not pixels, on small simulated sweeps:
the base-2 size axis with binary units, the p10-p90 band, the dashed nominal rate, a legend
of at most six entries for 240 pairs, the latency fit (latency + size / bandwidth), hollow
rings on host-bound points, the staged path named as going through host memory, curves
that coincide said to be on top of each other, and every legend symbol drawn on the plot.

Failures are named in the legend: pairs that cannot access each other, a direct copy
refused with peer off (its ACL code), and, on an atlas800t-a2 run where the link 0->1 is
degraded, the copies 2->3 fail, 6->7 and 7->6 fail with another code and the bytes copied
4->5 arrive wrong, each failure with its code and each wrong point marked, not trusted."""

from __future__ import annotations

import matplotlib
import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep

matplotlib.use("Agg")


import matplotlib
from helpers import (
    _legend_entries,
    _legend_text,
    _no_pyplot_figures,
    host_bound_run,
)
from matplotlib.ticker import FuncFormatter

from ascend_p2p_lab import plots
from ascend_p2p_lab.measure import (
    probe,
)
from ascend_p2p_lab.plots import bandwidth_vs_size


def test_curves_ring_the_host_bound_points() -> None:
    from ascend_p2p_lab import plots

    run = host_bound_run()
    bound_sizes = sorted(
        run.samples.loc[run.samples["host_bound"].fillna(False).astype(bool), "size_bytes"].unique()
    )
    for fig in (plots.latency_vs_size(run, by="pair"), plots.bandwidth_vs_size(run)):
        ax = fig.axes[0]
        rings = [ln for ln in ax.lines if "host-bound" in str(ln.get_label())]
        assert len(rings) == 1
        assert sorted(rings[0].get_xdata()) == bound_sizes
        assert rings[0].get_markerfacecolor() == "none"
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert any("host-bound" in t for t in labels)


def _measure(preset: str, **kw):
    """Probe and sweep on a fresh simulated runtime; the ledger must be empty after close."""
    kw.setdefault("samples", 2)
    kw.setdefault("warmup", 0)
    kw.setdefault("progress", False)
    with open_runtime("sim", preset=preset) as rt:
        table = probe(rt).frame()
        run = sweep(rt, **kw)
    assert rt.acl.simulator.ledger_is_empty()
    return table, run


@pytest.fixture(scope="module")
def a2():
    """8 devices, uni+bi, peer on+off (direct fails with an ACL code), local copies."""
    return _measure(
        "atlas800t-a2",
        sizes="64KiB,4MiB",
        direction="both",
        peer="both",
        patterns=("pair", "local"),
    )


@pytest.fixture(scope="module")
def duo():
    """atlas300i-duo: only the PIX pairs can access each other."""
    return _measure(
        "atlas300i-duo", sizes="64KiB,4MiB", direction="both", peer="on", patterns=("pair", "local")
    )


@pytest.fixture(scope="module")
def a3():
    """16 devices, 240 pairs."""
    return _measure("atlas800t-a3", sizes="64KiB,4MiB", patterns=("pair",))


@pytest.fixture(scope="module")
def wide():
    """One pair at 4 KiB, 1 MiB and 1 GiB, for the size axis."""
    return _measure("atlas800t-a2", pairs="0-1,1-0", sizes="4KiB,1MiB,1GiB")[1]


#: faulty: two runtime errors that differ only in their code, one degraded link, and the
#: bytes copied 4->5 arrive wrong (verification fails, the numbers stay)
FAULTS = [
    {"kind": "degrade", "link": [0, 1], "factor": 0.5},
    {"kind": "error", "call": "rt.memcpy_async", "link": [2, 3], "code": 507013},
    {"kind": "error", "call": "rt.memcpy_async", "link": [6, 7], "code": 507899},
    {"kind": "error", "call": "rt.memcpy_async", "link": [7, 6], "code": 507899},
    {"kind": "corrupt", "link": [4, 5]},
]


@pytest.fixture(scope="module")
def faulty():
    """atlas800t-a2, peer on, uni and bi at 64 KiB and 16 MiB, with FAULTS."""
    with open_runtime("sim", preset="atlas800t-a2", faults=FAULTS) as rt:
        run = sweep(rt, sizes="64KiB,16MiB", direction="both", samples=2, progress=False)
    assert rt.acl.simulator.ledger_is_empty()
    assert set(
        run.samples.loc[run.samples["error_kind"].eq("verification").fillna(False), "src"]
    ) == {4}
    return run


def test_line_plots_mark_points_whose_bytes_arrived_wrong(faulty):
    ax = plots.bandwidth_vs_size(faulty).axes[0]
    legend = _legend_entries(ax)
    assert "verification: bytes differ at 2 points (drawn, not trusted)" in legend
    assert (
        "3 pairs without numbers: runtime: ACL_ERROR_RT_SYS_DMA (507013) from "
        "acl.rt.memcpy_async runtime: ACL_ERROR_RT_DRV_INTERNAL_ERROR (507899) from "
        "acl.rt.memcpy_async"
    ) in legend  # 2->3; 6->7 and 7->6, a reason a line
    (marks,) = [ln for ln in ax.get_lines() if ln.get_marker() == "X"]
    assert sorted(marks.get_xdata()) == [64 << 10, 16 << 20]
    ax = plots.uni_vs_bi(faulty, src=4, dst=5).axes[0]
    legend = "\n".join(_legend_entries(ax))
    assert "uni 4 → 5: verification: bytes differ at 2 points" in legend
    assert "uni 5 → 4: verification" not in legend
    ax = plots.uni_vs_bi(faulty, src=2, dst=3).axes[0]
    assert (
        "uni 2 → 3: no numbers, runtime: ACL_ERROR_RT_SYS_DMA (507013) from acl.rt.memcpy_async"
    ) in _legend_entries(ax)


# ------------------------------------------------------------------------------ vs size
def test_bandwidth_vs_size_binary_log_axis(wide):
    fig = plots.bandwidth_vs_size(wide, figsize=(6.0, 4.0))
    assert tuple(fig.get_size_inches()) == (6.0, 4.0)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    assert ax.xaxis.get_transform().base == 2
    assert isinstance(ax.xaxis.get_major_formatter(), FuncFormatter)
    fig.draw_without_rendering()
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert labels == ["4 KiB", "1 MiB", "1 GiB"]
    legend = _legend_text(ax)
    assert "0 → 1 (HCCS)" in legend and "1 → 0 (HCCS)" in legend
    nominal = [ln for ln in ax.get_lines() if "nominal" in ln.get_label()]
    assert nominal and nominal[0].get_linestyle() == "--"
    assert "GB/s" in ax.get_ylabel()
    assert "simulated: atlas800t-a2" in ax.get_title()
    assert ax.collections  # the p10-p90 bands
    _no_pyplot_figures()


def test_bandwidth_vs_size_caps_the_legend(a3):
    _table, run = a3
    ax = plots.bandwidth_vs_size(run, by="pair").axes[0]
    labels = _legend_text(ax).splitlines()
    assert len(labels) <= 6
    assert any("HCCS_SW: 224 pairs" in t for t in labels)
    assert len(ax.get_lines()) >= 240  # still one line per pair
    ax = plots.bandwidth_vs_size(run, by="link").axes[0]
    labels = _legend_text(ax).splitlines()
    assert "HCCS_SW (224 pairs)" in labels and "SIO (16 pairs)" in labels


def test_bandwidth_vs_size_names_pairs_without_numbers(duo):
    _table, run = duo
    ax = plots.bandwidth_vs_size(run, by="link").axes[0]
    assert (
        "48 pairs without numbers: cannot access peer (aclrtDeviceCanAccessPeer = 0)"
        in _legend_entries(ax)
    )


def test_latency_vs_size_with_fit(wide):
    ax = plots.latency_vs_size(wide, by="pair").axes[0]
    assert ax.get_xscale() == "log" and ax.xaxis.get_transform().base == 2
    assert ax.get_yscale() == "log"
    fits = [ln for ln in ax.get_lines() if " fit: " in ln.get_label()]
    assert len(fits) == 2 and "GB/s" in fits[0].get_label() and "µs" in fits[0].get_label()
    ax = plots.latency_vs_size(wide, fit=False).axes[0]
    assert not [ln for ln in ax.get_lines() if "fit" in ln.get_label()]


def test_peer_on_off_says_when_direct_failed(a2):
    _table, run = a2
    ax = plots.peer_on_off(run, src=2, dst=5).axes[0]
    legend = "\n".join(_legend_entries(ax))
    assert "peer on: P2P copy" in legend
    assert "staged through host memory" in legend
    assert (
        "direct device-to-device copy: failed, refused: ACL_ERROR_RT_DRV_INTERNAL_ERROR "
        "(507899) from acl.rt.memcpy_async"
    ) in legend
    assert "device 2 → 5" in ax.get_title()


def test_uni_vs_bi(a2):
    _table, run = a2
    ax = plots.uni_vs_bi(run).axes[0]
    legend = _legend_text(ax)
    for label in ("uni 0 → 1", "uni 1 → 0", "bi 0 → 1", "bi 1 → 0", "bi total 0 ↔ 1"):
        assert label in legend
    assert "2 × nominal" in legend


def test_every_legend_symbol_of_the_curves_appears_on_the_plot() -> None:
    """peer_on_off on the A2 (direct copies refused): the refused path has a legend entry
    with text only; every entry with a symbol (line or marker) matches something drawn."""
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab import plots

    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(rt, pairs="0-1,2-3", peer="both", sizes="64KiB,1MiB", samples=1, progress=False)
    for fig in (plots.peer_on_off(run), plots.bandwidth_vs_size(run, peer="off", path="direct")):
        ax = fig.axes[0]
        drawn = {line.get_marker() for line in ax.get_lines() if len(line.get_xdata())}
        symbols = [
            h.get_marker()
            for h in ax.get_legend().legend_handles
            if hasattr(h, "get_marker") and h.get_marker() not in ("", "None", " ")
        ]
        assert set(symbols) <= drawn, (symbols, drawn)


# ------------------------------------------------------------------ issue 30 (its last items)
@pytest.fixture(scope="module")
def both_run():
    """Pairs with peer access on (P2P) and off (direct and staged), over HCCS."""
    with open_runtime("sim", preset="atlas800t-a2", announce=False) as rt:
        return sweep(
            rt, pairs="0-1,1-0,2-3", sizes=["1MiB", "16MiB"], samples=2, peer="both", progress=False
        )


def _labels(fig) -> list[str]:
    return [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


@pytest.mark.parametrize("by,max_legend", [("link", 8), ("pair", 8), ("pair", 1)])
def test_the_staged_curve_says_it_goes_through_host_memory(both_run, by, max_legend) -> None:
    labels = _labels(
        bandwidth_vs_size(both_run, by=by, peer="off", path="staged", max_legend=max_legend)
    )
    lines = [t for t in labels if "→" in t or "pairs" in t]
    assert lines and all("via host memory" in t for t in lines), labels
    assert "HCCS (3 pairs)" not in labels and not any("nominal" in t for t in labels), labels


@pytest.mark.parametrize("by", ["link", "pair"])
def test_the_p2p_curve_is_the_links_with_its_nominal(both_run, by) -> None:
    labels = _labels(bandwidth_vs_size(both_run, by=by, peer="on"))
    assert not any("host memory" in t for t in labels), labels
    assert any(t.startswith("HCCS nominal") for t in labels), labels
    assert (by == "link") == ("HCCS (3 pairs)" in labels), labels


def test_curves_that_coincide_say_so_instead_of_hiding() -> None:
    """On the 310 the host-staged path is the same through a PHB or a SYS pair: the two
    lines coincide; the legend says which one is on top of which, and it is dashed."""
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab import plots

    with open_runtime("sim", preset="atlas300i-310") as rt:
        run = sweep(
            rt, pairs="0-1,0-4", peer="off", sizes="64KiB,1MiB,16MiB", samples=2, progress=False
        )
    ax = plots.bandwidth_vs_size(run, peer="off", path="staged", by="link").axes[0]
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    phb, sys_ = "PHB (1 pairs, via host memory)", "SYS (1 pairs, via host memory) = PHB, on top"
    assert texts[:2] == [phb, sys_]  # the staged path says it goes through host memory
    styles = {line.get_label(): line.get_linestyle() for line in ax.get_lines()}
    assert styles[sys_] == "--" and styles[phb] == "-"
    with open_runtime("sim", preset="atlas800t-a3") as rt:  # SIO and HCCS_SW differ
        run = sweep(rt, pairs="0-1,0-2", sizes="1MiB,16MiB", samples=2, progress=False)
    texts = [
        t.get_text()
        for t in plots.bandwidth_vs_size(run, by="link").axes[0].get_legend().get_texts()
    ]
    assert not any("on top" in t for t in texts)


def test_bandwidth_vs_size_names_the_pair_in_its_direction_with_its_p10_p90_band(wide):
    rows = wide.samples
    one = rows[(rows["src"] == 0) & (rows["dst"] == 1)]
    ax = plots.bandwidth_vs_size(one, by="pair").axes[0]
    assert "0 → 1 (HCCS)" in _legend_text(ax) and "1 → 0" not in _legend_text(ax)
    median = max(max(ln.get_ydata()) for ln in ax.get_lines() if "0 → 1" in ln.get_label())
    top = max(p.vertices[:, 1].max() for c in ax.collections for p in c.get_paths())
    assert top > median  # the band reaches p90, above the median


def test_latency_fit_line_is_latency_plus_size_over_decimal_gbps(wide):
    import re

    ax = plots.latency_vs_size(wide, by="pair").axes[0]
    fit = next(ln for ln in ax.get_lines() if " fit: " in ln.get_label())
    lat, bw = map(float, re.findall(r"([\d.]+) µs \+ size / ([\d.]+) GB/s", fit.get_label())[0])
    xs, ys = list(fit.get_xdata()), list(fit.get_ydata())
    assert ys[-1] == pytest.approx(lat + xs[-1] / (bw * 1e3), rel=5e-3)
