"""plots.py: artists, labels and files, not pixels. Small simulated sweeps only."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import pytest

from ascend_p2p_lab import open_runtime, plots
from ascend_p2p_lab.measure import probe, sweep


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


def test_compare_presets(a2, duo, a3):
    runs = {"910B": a2[1], "310P": duo[1], "910C": a3[1]}
    fig = plots.compare_presets(runs)
    ax = fig.axes[0]
    assert len(ax.patches) == 1 + 1 + 2  # HCCS | PIX | HCCS_SW, SIO
    title = ax.get_title()
    assert "simulated: atlas800t-a2, atlas300i-duo, atlas800t-a3" in title
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[0].startswith("910B")
    one = plots.compare_presets(a2[1])
    assert len(one.axes[0].patches) == 1


def test_compare_presets_draws_each_runs_bars_over_its_own_name(a2, duo, a3):
    import matplotlib.colors as mcolors

    from ascend_p2p_lab.plots.style import link_color

    fig = plots.compare_presets({"910B": a2[1], "310P": duo[1], "910C": a3[1]})
    ax = fig.axes[0]
    faces = [mcolors.to_hex(p.get_facecolor()) for p in ax.patches]
    links = ["HCCS", "PIX", "HCCS_SW", "SIO"]  # 910B's one class, 310P's, 910C's two
    assert faces == [mcolors.to_hex(link_color(k)) for k in links]
    xs = [p.get_x() + p.get_width() / 2 for p in ax.patches]
    centers = list(ax.get_xticks())
    assert centers[0] == pytest.approx(xs[0])  # 910B's label under 910B's one bar
    assert centers[2] == pytest.approx((xs[2] + xs[3]) / 2)  # 910C's under its two
