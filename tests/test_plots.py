"""plots.py: artists, labels and files, not pixels. Small simulated sweeps only."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import subprocess
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from ascend_p2p_lab import open_runtime, plots
from ascend_p2p_lab.measure import probe, sweep
from ascend_p2p_lab.plots.style import VERIFY_HATCH
from ascend_p2p_lab.topology import load_preset


def _measure(preset: str, **kw):
    """Probe and sweep on a fresh simulated runtime; the ledger must be empty after close."""
    kw.setdefault("samples", 2)
    kw.setdefault("warmup", 0)
    kw.setdefault("progress", False)
    with open_runtime("sim", preset=preset) as rt:
        table = probe(rt)
        run = sweep(rt, **kw)
    assert rt.acl.simulator.ledger_is_empty()
    return table, run


@pytest.fixture(scope="module")
def a2():
    """8 devices, uni+bi, peer on+off (direct fails with an ACL code), local copies."""
    return _measure("atlas800t-a2", sizes="64KiB,4MiB", direction="both", peer="both",
                    patterns=("pair", "local"))


@pytest.fixture(scope="module")
def duo():
    """atlas300i-duo: only the PIX pairs can access each other."""
    return _measure("atlas300i-duo", sizes="64KiB,4MiB", direction="both", peer="on",
                    patterns=("pair", "local"))


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
FAULTS = [{"kind": "degrade", "link": [0, 1], "factor": 0.5},
          {"kind": "error", "call": "rt.memcpy_async", "link": [2, 3], "code": 507013},
          {"kind": "error", "call": "rt.memcpy_async", "link": [6, 7], "code": 507899},
          {"kind": "error", "call": "rt.memcpy_async", "link": [7, 6], "code": 507899},
          {"kind": "corrupt", "link": [4, 5]}]


@pytest.fixture(scope="module")
def faulty():
    """atlas800t-a2, peer on, uni and bi at 64 KiB and 16 MiB, with FAULTS."""
    with open_runtime("sim", preset="atlas800t-a2", faults=FAULTS) as rt:
        run = sweep(rt, sizes="64KiB,16MiB", direction="both", samples=2, progress=False)
    assert rt.acl.simulator.ledger_is_empty()
    assert set(run.loc[run["error_kind"].eq("verification").fillna(False), "src"]) == {4}
    return run


def _texts(ax) -> list[str]:
    return [t.get_text() for t in ax.texts]


def _legend_text(ax) -> str:
    leg = ax.get_legend()
    return "\n".join(t.get_text() for t in leg.get_texts()) if leg else ""


def _legend_entries(ax) -> list[str]:
    """The legend's entries, each on one line (long ones are wrapped in the figure)."""
    leg = ax.get_legend()
    return [" ".join(t.get_text().split()) for t in leg.get_texts()] if leg else []


def _hatched(ax) -> int:
    return sum(1 for p in ax.patches if p.get_hatch())


def _text_at(ax, x: int, y: int) -> str:
    """The cell text at data position (x = destination column, y = source row)."""
    (text,) = [t.get_text() for t in ax.texts if tuple(t.get_position()) == (x, y)]
    return text


def _words(fig) -> tuple[list[tuple[float, float, str]], str, str]:
    """What a figure says: its texts with their positions, its legend and its title."""
    ax = fig.axes[0]
    texts = [(*map(float, t.get_position()), t.get_text()) for t in ax.texts]
    return texts, _legend_text(ax), ax.get_title()


def _reworded(run, unique: bool = False):
    """The run with every error sentence replaced (by one word, or one per row)."""
    out = run.copy()
    new = ("reworded " + out.index.astype(str)) if unique else "reworded"
    out["error"] = out["error"].where(out["error"].isna(), new)
    return out


def _no_pyplot_figures() -> None:
    assert plt.get_fignums() == []


# ------------------------------------------------------------------------------ heatmap
def test_heatmap_annotated_matrix(a2):
    _table, run = a2
    fig = plots.heatmap(run, figsize=(7.0, 6.5))
    assert isinstance(fig, Figure)
    assert tuple(fig.get_size_inches()) == (7.0, 6.5)
    assert fig.dpi == 100
    ax = fig.axes[0]
    texts = _texts(ax)
    assert len(texts) == 8 * 8  # 56 numbers + 8 local-copy figures on the diagonal
    assert all(t.replace(".", "").isdigit() for t in texts)
    assert {(t.get_ha(), t.get_va()) for t in ax.texts} == {("center", "center")}
    assert ax.get_ylabel() == "source device (row)"
    assert ax.get_xlabel() == "destination device (column)"
    cbar_ax = fig.axes[1]
    assert "GB/s" in cbar_ax.get_ylabel()
    title = ax.get_title()
    assert "simulated: atlas800t-a2" in title
    assert "at 4 MiB (largest size)" in title
    assert "device-local copy" in _legend_text(ax)
    assert _hatched(ax) == 0
    _no_pyplot_figures()


def test_heatmap_marks_unreachable_pairs(duo):
    _table, run = duo
    ax = plots.heatmap(run).axes[0]
    texts = _texts(ax)
    assert len(texts) == 64
    assert texts.count("n/a") == 48
    assert _hatched(ax) == 48
    assert "n/a: cannot access peer (aclrtDeviceCanAccessPeer = 0), link SYS [48 cells]" \
        in _legend_entries(ax)
    _no_pyplot_figures()


def test_heatmap_link_classes_of_unreachable_cells_come_from_the_link_column(duo):
    _table, run = duo
    run = run.copy()
    unreachable = run["error_kind"].eq("unreachable").fillna(False)
    run.loc[unreachable & (run["src"] < 2), "link"] = "PHB"  # the text still says SYS
    legend = _legend_entries(plots.heatmap(run).axes[0])
    assert "n/a: cannot access peer (aclrtDeviceCanAccessPeer = 0), link PHB, SYS [48 cells]" \
        in legend


def test_heatmap_names_acl_error_when_direct_copies_fail(a2):
    _table, run = a2
    fig = plots.heatmap(run, peer="off", path="direct")
    ax = fig.axes[0]
    assert _texts(ax).count("E1") == 56
    assert _hatched(ax) == 56
    assert ("E1 refused: ACL_ERROR_RT_DRV_INTERNAL_ERROR (507899) from acl.rt.memcpy_async "
            "[56 cells]") in _legend_entries(ax)
    assert "no pair measured at any size" in ax.get_title()  # its diagonal: local copies
    assert len(fig.axes) == 1  # no colour bar without numbers


def test_heatmap_one_code_per_kind_code_and_call(faulty):
    ax = plots.heatmap(faulty).axes[0]
    legend = _legend_entries(ax)
    # more cells first: 6->7 and 7->6 (507899), then 2->3 (507013)
    assert legend[1] == ("E1 runtime: ACL_ERROR_RT_DRV_INTERNAL_ERROR (507899) from "
                         "acl.rt.memcpy_async [2 cells]")
    assert legend[2] == ("E2 runtime: ACL_ERROR_RT_SYS_DMA (507013) from acl.rt.memcpy_async "
                         "[1 cell]")
    assert _text_at(ax, 7, 6) == _text_at(ax, 6, 7) == "E1"
    assert _text_at(ax, 3, 2) == "E2"
    assert _texts(ax).count("E1") == 2 and _texts(ax).count("E2") == 1
    assert not any(t.startswith("n/") for t in _texts(ax))


def test_heatmap_marks_a_number_whose_bytes_arrived_wrong(faulty):
    ax = plots.heatmap(faulty).axes[0]
    img = np.ma.masked_invalid(ax.images[0].get_array())
    assert not img.mask[4, 5]  # the number is kept ...
    text = _text_at(ax, 5, 4)
    assert text.startswith("V\n") and float(text[2:]) == pytest.approx(img[4, 5], abs=0.051)
    framed = [p for p in ax.patches if p.get_hatch() == VERIFY_HATCH]
    assert [tuple(p.get_xy()) for p in framed] == [(5 - 0.45, 4 - 0.45)]  # ... but marked
    assert float(_text_at(ax, 4, 5)) == pytest.approx(img[5, 4], abs=0.051)  # 5->4 is fine
    assert ("V verification: bytes differ (bandwidth measured, not trusted) [1 cell]"
            in _legend_entries(ax))
    assert _text_at(plots.heatmap(faulty, annotate=False).axes[0], 5, 4) == "V"
    # a bidirectional total holds both directions' bytes: both cells of the pair
    ax = plots.heatmap(faulty, direction="bi", value="bidir_total_GBps").axes[0]
    assert _text_at(ax, 5, 4).startswith("V\n") and _text_at(ax, 4, 5).startswith("V\n")
    assert ("V verification: bytes differ (bandwidth measured, not trusted) [2 cells]"
            in _legend_entries(ax))


def test_heatmap_without_error_kinds_reads_no_text(faulty):
    run = faulty.copy()  # as a run saved before error kinds loads: text only
    for col in ("error_kind", "error_code", "error_call"):
        run[col] = pd.NA
    ax = plots.heatmap(run).axes[0]
    assert _text_at(ax, 3, 2) == _text_at(ax, 7, 6) == "E1"
    assert "E1 error without error_kind (a run saved before error kinds) [3 cells]" \
        in _legend_entries(ax)


def test_rewording_errors_changes_no_figure(a2, duo, faulty):
    size = {"figsize": (9.0, 8.0)}  # no layout passes: the words are what is compared
    figures = [
        (faulty, lambda r: plots.heatmap(r, **size)),
        (faulty, lambda r: plots.heatmap(r, direction="bi", **size)),
        (faulty, lambda r: plots.heatmap(r, direction="bi", value="bidir_total_GBps", **size)),
        (faulty, lambda r: plots.bandwidth_vs_size(r, **size)),
        (faulty, lambda r: plots.latency_vs_size(r, fit=False, **size)),
        (faulty, lambda r: plots.uni_vs_bi(r, src=4, dst=5, **size)),
        (faulty, lambda r: plots.uni_vs_bi(r, src=2, dst=3, **size)),
        (a2[1], lambda r: plots.heatmap(r, peer="off", path="direct", **size)),
        (a2[1], lambda r: plots.peer_on_off(r, src=2, dst=5, **size)),
        (duo[1], lambda r: plots.heatmap(r, **size)),
        (duo[1], lambda r: plots.bandwidth_vs_size(r, by="link", **size)),
    ]
    for run, draw in figures:
        assert run["error"].notna().any()
        before = _words(draw(run))
        assert _words(draw(_reworded(run))) == before
        assert _words(draw(_reworded(run, unique=True))) == before
        plt.close("all")
    assert "reworded" not in _legend_text(plots.heatmap(_reworded(faulty)).axes[0])


def test_line_plots_mark_points_whose_bytes_arrived_wrong(faulty):
    ax = plots.bandwidth_vs_size(faulty).axes[0]
    legend = _legend_entries(ax)
    assert "verification: bytes differ at 2 points (drawn, not trusted)" in legend
    assert ("3 pairs without numbers: runtime: ACL_ERROR_RT_SYS_DMA (507013) from "
            "acl.rt.memcpy_async runtime: ACL_ERROR_RT_DRV_INTERNAL_ERROR (507899) from "
            "acl.rt.memcpy_async") in legend  # 2->3; 6->7 and 7->6, a reason a line
    (marks,) = [ln for ln in ax.get_lines() if ln.get_marker() == "X"]
    assert sorted(marks.get_xdata()) == [64 << 10, 16 << 20]
    ax = plots.uni_vs_bi(faulty, src=4, dst=5).axes[0]
    legend = "\n".join(_legend_entries(ax))
    assert "uni 4 → 5: verification: bytes differ at 2 points" in legend
    assert "uni 5 → 4: verification" not in legend
    ax = plots.uni_vs_bi(faulty, src=2, dst=3).axes[0]
    assert ("uni 2 → 3: no numbers, runtime: ACL_ERROR_RT_SYS_DMA (507013) from "
            "acl.rt.memcpy_async") in _legend_entries(ax)


def test_heatmap_diagonal_without_local_copies(a3):
    _table, run = a3
    ax = plots.heatmap(run).axes[0]  # the a3 run has no local pattern
    assert _texts(ax).count("—") == 16
    assert "same device" in _legend_text(ax)


def test_heatmap_legible_at_16_devices(a3):
    _table, run = a3
    fig = plots.heatmap(run)
    ax = fig.axes[0]
    texts = ax.texts
    assert len(texts) == 16 * 16
    numbers = [t for t in texts if t.get_text() != "—"]
    assert all("." not in t.get_text() for t in numbers)  # fewer digits
    assert max(t.get_fontsize() for t in texts) <= 7.5
    assert max(t.get_fontsize() for t in ax.get_xticklabels()) <= 8
    assert "simulated: atlas800t-a3" in ax.get_title()


def test_heatmap_size_value_and_errors(a2):
    _table, run = a2
    ax = plots.heatmap(run, size="64KiB").axes[0]
    assert "at 64 KiB" in ax.get_title()
    fig = plots.heatmap(run, direction="bi", value="bidir_total_GBps")
    assert "both directions" in fig.axes[1].get_ylabel()
    assert "GB/s" in fig.axes[1].get_ylabel()
    with pytest.raises(ValueError, match="direction='bi'"):
        plots.heatmap(run, value="bidir_total_GBps")
    with pytest.raises(ValueError, match="not in this run"):
        plots.heatmap(run, size="1GiB")
    with pytest.raises(ValueError, match="this run has"):
        plots.heatmap(run, peer="off", path="p2p")


def test_heatmap_on_given_axes_uses_its_figure(a2):
    _table, run = a2
    fig = Figure(figsize=(12, 5), dpi=100)
    left, _right = fig.subplots(1, 2)
    assert plots.heatmap(run, ax=left) is fig
    assert tuple(fig.get_size_inches()) == (12.0, 5.0)
    _no_pyplot_figures()


# ------------------------------------------------------------------------------ link / peer
def test_link_matrix_from_topology_and_table(a2, duo):
    fig = plots.link_matrix(load_preset("atlas800-9000"))
    ax = fig.axes[0]
    texts = _texts(ax)
    assert texts.count("X") == 8 and texts.count("HCCS") == 24 and texts.count("SYS") == 32
    legend = _legend_text(ax)
    assert "HCCS:" in legend and "SYS:" in legend and "X: self" in legend
    assert "topology: atlas800-9000" in ax.get_title()
    ax = plots.link_matrix(duo[0]).axes[0]
    assert _texts(ax).count("PIX") == 8
    assert "simulated: atlas300i-duo" in ax.get_title()
    colours = {k: v for k, v in plots.LINK_COLORS.items()}
    assert set(colours) >= {"HCCS", "HCCS_SW", "SIO", "PIX", "PXB", "PHB", "SYS", "UB", "NA",
                            "X"}
    assert len(set(colours.values())) == len(colours)


def test_peer_access_matrix(duo):
    table, _run = duo
    ax = plots.peer_access_matrix(table).axes[0]
    texts = _texts(ax)
    assert texts.count("yes") == 8 and texts.count("no") == 48 and texts.count("X") == 8
    assert "aclrtDeviceCanAccessPeer" in ax.get_title()
    assert "link SYS" in _legend_text(ax)
    ax = plots.peer_access_matrix(table, value="peer_enabled").axes[0]
    assert _texts(ax).count("no") == 56
    with pytest.raises(ValueError):
        plots.peer_access_matrix(table, value="link")


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
    assert ("48 pairs without numbers: cannot access peer (aclrtDeviceCanAccessPeer = 0)"
            in _legend_entries(ax))


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
    assert ("direct device-to-device copy: failed, refused: ACL_ERROR_RT_DRV_INTERNAL_ERROR "
            "(507899) from acl.rt.memcpy_async") in legend
    assert "device 2 → 5" in ax.get_title()


def test_uni_vs_bi(a2):
    _table, run = a2
    ax = plots.uni_vs_bi(run).axes[0]
    legend = _legend_text(ax)
    for label in ("uni 0 → 1", "uni 1 → 0", "bi 0 → 1", "bi 1 → 0", "bi total 0 ↔ 1"):
        assert label in legend
    assert "2 × nominal" in legend


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


# ------------------------------------------------------------------------------ report
def test_report_writes_pngs(tmp_path):
    table, run = _measure("atlas800t-a2", pairs="0-1,1-0", sizes="64KiB,4MiB")
    paths = plots.report(run, tmp_path / "figs", table=table)
    assert [p.name for p in paths] == [
        "link_matrix.png", "peer_access.png", "heatmap_uni_on_p2p.png",
        "bandwidth_vs_size_uni_on_p2p.png", "latency_vs_size_uni_on_p2p.png"]
    for p in paths:
        assert p.parent == tmp_path / "figs"
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    _no_pyplot_figures()


def test_report_covers_what_the_run_has(a2, tmp_path, monkeypatch):
    table, run = a2
    saved: list[tuple[str, int]] = []

    def fake_savefig(self, path, **kw):  # the choice of figures, without rendering PNGs
        saved.append((Path(path).name, kw.get("dpi")))
        Path(path).write_bytes(b"")

    monkeypatch.setattr(Figure, "savefig", fake_savefig)
    paths = plots.report(run, tmp_path, table=table)
    names = {p.name for p in paths}
    assert names == {name for name, _ in saved}
    assert {dpi for _, dpi in saved} == {100}
    assert {"heatmap_uni_on_p2p.png", "heatmap_uni_off_direct.png",
            "heatmap_uni_off_staged.png", "heatmap_bi_on_p2p.png",
            "heatmap_bi_on_p2p_total.png", "heatmap_bi_off_direct.png",
            "bandwidth_vs_size_uni_off_staged.png", "peer_on_off.png",
            "uni_vs_bi_on.png"} <= names
    # peer-off direct copies all failed on A2: a heatmap of the failure, no curve
    assert "bandwidth_vs_size_uni_off_direct.png" not in names
    assert all(p.exists() for p in paths)


def test_figures_are_deterministic_in_size(duo):
    table, _run = duo
    a = plots.peer_access_matrix(table).get_size_inches()
    b = plots.peer_access_matrix(table).get_size_inches()
    assert np.allclose(a, b)


def test_core_package_does_not_import_matplotlib():
    code = ("import sys, ascend_p2p_lab, ascend_p2p_lab.measure, ascend_p2p_lab.results; "
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
