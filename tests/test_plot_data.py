"""plots.prepare and plots.cells: what the figures show, as data, without drawing.

Asymmetric on purpose (a symmetric fixture passes with rows and columns swapped): only
the link 0->1 is degraded, only the copy 2->3 fails.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import asymmetric_a2_run

from ascend_p2p_lab import results
from ascend_p2p_lab.plots import cells, prepare
from ascend_p2p_lab.run import Run, RunMeta

PACKAGE = Path(prepare.__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def run():
    """The asymmetric run (0->1 at half speed, 2->3 failing), the pairs 0<->1 and 2<->3
    only."""
    return asymmetric_a2_run(pairs="0-1,1-0,2-3,3-2")


def _rows(points: list[tuple[int, int, int, float]]) -> pd.DataFrame:
    """A run frame of unidirectional P2P rows (src, dst, size, bandwidth), 4 devices."""
    return Run(results.to_frame(
        [{"backend": "sim", "preset": "test", "src": s, "dst": d, "link": "HCCS",
          "pattern": "pair", "direction": "uni", "peer": "on", "path": "p2p",
          "initiator": "src", "size_bytes": size, "copies": 1, "sample": k,
          "elapsed_us": size / (bw * 1e3), "bandwidth_GBps": bw, "verified": True}
         for k, (s, d, size, bw) in enumerate(points)]), RunMeta(device_count=4)).frame()


# ------------------------------------------------------------------------------ cell states
def test_cell_states_keep_rows_as_sources(run):
    data = cells.heatmap_data(run)
    states = data.cells
    assert states.index.names == ["src", "dst"] and len(states) == 8 * 8
    slow, fast = states.loc[(0, 1)], states.loc[(1, 0)]
    assert slow["state"] == fast["state"] == "value" and slow["code"] == fast["code"] == ""
    assert slow["value"] == pytest.approx(fast["value"] / 2, rel=0.1)
    failed, fine = states.loc[(2, 3)], states.loc[(3, 2)]
    assert (failed["state"], failed["code"]) == ("failed", "E1")
    assert (failed["error_kind"], failed["error_code"], failed["error_call"]) == (
        "runtime", 507013, "acl.rt.memcpy_async")
    assert np.isnan(failed["value"])
    assert (fine["state"], fine["code"]) == ("value", "") and np.isfinite(fine["value"])
    assert pd.isna(fine["error_kind"]) and pd.isna(fine["error_code"])
    assert states.loc[(4, 5), "code"] == "n/m"  # not in this run
    assert states.loc[(0, 0), "state"] == "diagonal"
    assert data.legend[0] == ("n/m", "n/m: not measured in this run [52 cells]")
    assert data.legend[1] == ("E1", "E1 runtime: ACL_ERROR_RT_SYS_DMA (507013) from "
                                     "acl.rt.memcpy_async [1 cell]")


def test_cell_values_are_the_results_matrix(run):
    data = cells.heatmap_data(run)
    expected = results.matrix(run, value="bandwidth_GBps", direction="uni", peer="on",
                              path="p2p", device_count=8)
    off = ~np.eye(8, dtype=bool)
    assert data.values.index.name == "src" and data.values.columns.name == "dst"
    np.testing.assert_array_equal(data.values.to_numpy()[off], expected.to_numpy()[off])
    assert data.values.loc[0, 1] == data.cells.loc[(0, 1), "value"]
    assert data.path == "p2p" and data.size_text == "at 16 MiB (largest size)"
    assert data.note == "simulated: atlas800t-a2"


def test_bidirectional_failure_marks_both_cells(run):
    states = cells.heatmap_data(run, direction="bi").cells
    assert states.loc[(2, 3), "code"] == states.loc[(3, 2), "code"] == "E1"
    assert states.loc[(0, 1), "value"] < states.loc[(1, 0), "value"]
    total = cells.heatmap_data(run, direction="bi", value="bidir_total_GBps").values
    assert total.loc[0, 1] == total.loc[1, 0]


def test_cell_texts_and_kinds(run):
    data = cells.heatmap_data(run)
    texts, kinds = cells.heatmap_texts(data.cells, 8)
    assert texts.shape == kinds.shape == (8, 8)
    assert (texts.loc[2, 3], kinds.loc[2, 3]) == ("E1", "code")
    assert kinds.loc[3, 2] == "value"
    assert float(texts.loc[0, 1]) == pytest.approx(data.values.loc[0, 1], abs=0.051)
    assert (texts.loc[0, 0], kinds.loc[0, 0]) == ("—", "self")
    texts, _kinds = cells.heatmap_texts(data.cells, 8, annotate=False)
    assert texts.loc[0, 1] == "" and texts.loc[2, 3] == "E1"


def test_untrusted_number_and_unverified_points():
    frame = _rows([(0, 1, 4096, 10.0), (0, 1, 65536, 20.0), (1, 0, 65536, 21.0)])
    frame.loc[1, "verified"] = False  # 0->1 at 64 KiB: the bytes arrived wrong
    states = cells.heatmap_data(frame).cells
    assert (states.loc[(0, 1), "state"], states.loc[(0, 1), "code"]) == ("unverified", "V")
    assert states.loc[(0, 1), "value"] == 20.0
    assert states.loc[(1, 0), "state"] == "value"
    points = cells.unverified_points(frame, "bandwidth_GBps")
    assert points[["src", "dst", "size_bytes"]].to_numpy().tolist() == [[0, 1, 65536]]
    assert cells.unverified_text(points) == ("verification: bytes differ at 1 point "
                                             "(drawn, not trusted)")
    assert states.loc[(0, 1), "value"] == cells.heatmap_data(frame, size=65536).values.loc[0, 1]
    assert cells.heatmap_data(frame, size=4096).cells.loc[(0, 1), "state"] == "value"


# ------------------------------------------------------------------------------ sizes
def test_largest_size_per_pair():
    frame = _rows([(0, 1, 4096, 10.0), (0, 1, 65536, 20.0), (0, 1, 65536, 22.0),
                   (1, 0, 4096, 11.0)])
    largest = prepare.at_size(frame)
    assert largest[["src", "dst", "size_bytes"]].to_numpy().tolist() == [
        [0, 1, 65536], [0, 1, 65536], [1, 0, 4096]]
    assert prepare.at_size(frame, 4096)["bandwidth_GBps"].tolist() == [10.0, 11.0]
    assert prepare.at_size(frame, keys=["src"])["size_bytes"].tolist() == [65536, 65536, 4096]
    assert prepare.size_text(frame, None) == "at each pair's largest size"
    assert prepare.size_text(frame[frame["src"] == 0], None) == "at 64 KiB (largest size)"
    assert prepare.size_text(frame, 4096) == "at 4 KiB"
    # the heatmap shows what results.matrix takes as each pair's largest size
    values = cells.heatmap_data(frame).values
    assert values.loc[0, 1] == 21.0 and values.loc[1, 0] == 11.0
    table = prepare.preset_table({"t": frame}, size=None, direction="uni", peer="on",
                                 path=None, include_local=False)
    assert table[["link", "GBps", "pairs", "size"]].to_numpy().tolist() == [
        ["HCCS", 20.0, 2, 65536]]  # median over 22, 20 (0->1) and 11 (1->0)


def test_point_stats_are_results_summarize(run):
    sel, _path = prepare.select(run, direction="uni", peer="on", path=None)
    stats = prepare.point_stats(sel)
    summary = results.summarize(sel).dropna(subset=["bandwidth_GBps_median"])
    assert len(stats) == len(summary) == 3  # 0->1, 1->0, 3->2; 2->3 has no numbers
    np.testing.assert_array_equal(stats["median"], summary["bandwidth_GBps_median"])
    np.testing.assert_array_equal(stats["p90"], summary["bandwidth_GBps_p90"])


def test_select_explains_what_the_run_has(run):
    with pytest.raises(ValueError, match=r"this run has .*: uni/on/p2p, bi/on/p2p"):
        prepare.select(run, direction="uni", peer="off", path="direct")
    assert prepare.combos(run) == [("uni", "on", "p2p"), ("bi", "on", "p2p")]


# ------------------------------------------------------------------------------ link / peer
def test_link_and_peer_frames_keep_rows_as_sources():
    table = pd.DataFrame({"src": [0, 1, 0, 2], "dst": [1, 0, 2, 0],
                          "link": ["PIX", "HCCS", "SYS", "SYS"],
                          "can_access_peer": [True, False, True, True]})
    links, note = cells.link_frame(table)
    assert links.loc[0, 1] == "PIX" and links.loc[1, 0] == "HCCS"
    assert links.loc[1, 2] is None and links.loc[2, 2] == "X"
    assert [c for c, _text in cells.link_legend(links)] == ["HCCS", "PIX", "SYS", "X", "n/m"]
    assert note == prepare.backend_note(table)
    peer = cells.peer_frame(table, "can_access_peer")
    assert peer.loc[0, 1] == 1.0 and peer.loc[1, 0] == 0.0 and np.isnan(peer.loc[1, 2])
    texts, kinds = cells.peer_texts(peer)
    assert (texts.loc[0, 1], texts.loc[1, 0], texts.loc[1, 1]) == ("yes", "no", "X")
    assert (kinds.loc[1, 2], kinds.loc[1, 1]) == ("unknown", "self")
    legend = dict(cells.peer_legend(table, peer, "can_access_peer"))
    assert legend["no"] == "no (1 of 6): aclrtDeviceCanAccessPeer = 0 (link HCCS)"


def test_link_colours_name_the_link_classes():
    from ascend_p2p_lab.plots import LINK_COLORS, LINK_ORDER

    assert tuple(LINK_COLORS) == LINK_ORDER == prepare.LINK_ORDER


# ------------------------------------------------------------------------------ imports
_FORBIDDEN = ("ascend_p2p_lab.runtime", "ascend_p2p_lab.measure", "ascend_p2p_lab.sim")
_BARE_PACKAGES = """
import sys, types
for name, path in {packages!r}:
    module = types.ModuleType(name)  # the package without running its __init__
    module.__path__ = [path]
    sys.modules[name] = module
"""


def _forbidden_after(code: str) -> list[str]:
    """The runtime, measurement and simulator modules loaded after running ``code`` in a
    fresh interpreter."""
    code += ("\nimport json, sys\nprint(json.dumps(sorted(m for m in sys.modules "
             f"if m.startswith({_FORBIDDEN!r}))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_plots_imports_no_runtime_measure_or_simulator():
    """The plots package's own imports: the parent package's __init__ left out."""
    code = _BARE_PACKAGES.format(packages=[("ascend_p2p_lab", str(PACKAGE))])
    assert _forbidden_after(code + "import ascend_p2p_lab.plots") == []


def test_import_plots_in_a_fresh_interpreter():
    assert _forbidden_after("import ascend_p2p_lab.plots") == []
    assert _forbidden_after("import ascend_p2p_lab") == []  # open_runtime is lazy


def test_data_preparation_needs_no_matplotlib():
    packages = [("ascend_p2p_lab", str(PACKAGE)),
                ("ascend_p2p_lab.plots", str(PACKAGE / "plots"))]
    code = (_BARE_PACKAGES.format(packages=packages)
            + "sys.modules['matplotlib'] = None  # importing it raises ImportError\n"
            + "import ascend_p2p_lab.plots.prepare, ascend_p2p_lab.plots.cells")
    assert _forbidden_after(code) == []


def test_a_failure_without_call_or_code_is_named_by_what_it_has():
    frame = _rows([(0, 1, 4096, 10.0), (1, 0, 4096, 10.0), (2, 3, 4096, 10.0)])
    frame.loc[0, ["bandwidth_GBps", "error", "error_kind", "error_code"]] = [
        np.nan, "text", "runtime", 507899]
    frame.loc[2, ["bandwidth_GBps", "error", "error_kind"]] = [np.nan, "text", "missing_call"]
    data = cells.heatmap_data(frame)
    assert data.cells.loc[(0, 1), "code"] == "E1" and data.cells.loc[(2, 3), "code"] == "E2"
    assert [text for _code, text in data.legend[1:]] == [
        "E1 runtime: ACL_ERROR_RT_DRV_INTERNAL_ERROR (507899) [1 cell]",
        "E2 missing_call: the installed pyACL lacks a call this point needs [1 cell]"]
