"""plots.cells: what a matrix figure shows, cell by cell, as data, without drawing.

- heatmap_data: each cell's state (value, failed, unverified, not measured, diagonal),
  its code and legend line (E1 with the ACL name, code and call, or what a failure has
  when it lacks them; V; n/m), its value (that of results.matrix), the size text and the
  note; a bidirectional failure marks both cells. It reads only the columns it needs and
  gives what it gives from every column.
- The diagonal holds the device-local copy on the device paths only, not on the staged
  path; a refused map says what its diagonal holds or that it has no numbers.
- A sweep of devices 1, 3 and 6 gives 3 x 3 matrices and heatmap, as the terminal does.
- heatmap_texts, unverified_points, unverified_text, unmeasured_text, and the link and
  peer frames with their texts and legends (an unknown class told from a pair not
  measured).
- Importing plots loads no runtime, measurement or simulator module, and plots.prepare
  and plots.cells import without matplotlib.

Asymmetric on purpose (a symmetric fixture passes with rows and columns swapped): only
the link 0->1 is degraded, only the copy 2->3 fails."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import _rows, asymmetric_a2_run, columns_given

from ascend_p2p_lab import open_runtime, results
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.plots import cells, prepare
from ascend_p2p_lab.plots.cells import heatmap_data


def test_the_link_legend_tells_an_unknown_class_from_a_pair_not_measured():
    from ascend_p2p_lab.plots.cells import link_frame, link_legend, link_texts
    from ascend_p2p_lab.schema import to_frame

    rows = to_frame(
        [
            {"pattern": "pair", "src": 0, "dst": 1, "link": "HCCS", "size_bytes": 4},
            {"pattern": "pair", "src": 1, "dst": 0, "size_bytes": 4},
        ]
    )
    links, _ = link_frame(rows)
    assert (links.loc[0, 1], links.loc[1, 0]) == ("HCCS", "?")
    legend = dict(link_legend(links))
    assert "class not named" in legend["?"] and "n/m" not in legend
    rows = to_frame([{"pattern": "pair", "src": 0, "dst": 2, "link": "HCCS", "size_bytes": 4}])
    links, _ = link_frame(rows)
    _, texts, _ = link_texts(links)
    assert texts.loc[1, 2] == "n/m" and "not in this table" in dict(link_legend(links))["n/m"]


PACKAGE = Path(prepare.__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def run():
    """The asymmetric run (0->1 at half speed, 2->3 failing), the pairs 0<->1 and 2<->3
    only."""
    return asymmetric_a2_run(pairs="0-1,1-0,2-3,3-2")


# ------------------------------------------------------------------------------ cell states
def test_cell_states_keep_rows_as_sources(run):
    data = cells.heatmap_data(run.frame())
    states = data.cells
    assert states.index.names == ["src", "dst"] and len(states) == 8 * 8
    slow, fast = states.loc[(0, 1)], states.loc[(1, 0)]
    assert slow["state"] == fast["state"] == "value" and slow["code"] == fast["code"] == ""
    assert slow["value"] == pytest.approx(fast["value"] / 2, rel=0.1)
    failed, fine = states.loc[(2, 3)], states.loc[(3, 2)]
    assert (failed["state"], failed["code"]) == ("failed", "E1")
    assert (failed["error_kind"], failed["error_code"], failed["error_call"]) == (
        "runtime",
        507013,
        "acl.rt.memcpy_async",
    )
    assert np.isnan(failed["value"])
    assert (fine["state"], fine["code"]) == ("value", "") and np.isfinite(fine["value"])
    assert pd.isna(fine["error_kind"]) and pd.isna(fine["error_code"])
    assert states.loc[(4, 5), "code"] == "n/m"  # not in this run
    assert states.loc[(0, 0), "state"] == "diagonal"
    assert data.legend[0] == ("n/m", "n/m: not measured in this run [52 cells]")
    assert data.legend[1] == (
        "E1",
        "E1 runtime: ACL_ERROR_RT_SYS_DMA (507013) from acl.rt.memcpy_async [1 cell]",
    )


def test_cell_values_are_the_results_matrix(run):
    data = cells.heatmap_data(run.frame())
    expected = results.matrix(
        run, value="bandwidth_GBps", direction="uni", peer="on", path="p2p", device_count=8
    )
    off = ~np.eye(8, dtype=bool)
    assert data.values.index.name == "src" and data.values.columns.name == "dst"
    np.testing.assert_array_equal(data.values.to_numpy()[off], expected.to_numpy()[off])
    assert data.values.loc[0, 1] == data.cells.loc[(0, 1), "value"]
    assert data.path == "p2p" and data.size_text == "at 16 MiB (largest size)"
    assert data.note == "simulated: atlas800t-a2"


def test_the_matrix_is_taken_from_the_columns_it_reads(run, monkeypatch):
    """heatmap_data hands results.matrix the columns it reads (a selection of ~60
    columns costs five times one of ten), and the cells are those of the whole run."""
    frame = run.frame()
    real = results.matrix
    given = columns_given(monkeypatch, results, "matrix")
    for value, direction in (("bandwidth_GBps", "uni"), ("bidir_total_GBps", "bi")):
        data = cells.heatmap_data(frame, value=value, direction=direction)
        assert set(given[-1]) == {*results.MATRIX_READS, value}
        whole = real(frame, value=value, direction=direction, peer="on", path="p2p")
        off = ~np.eye(8, dtype=bool)
        np.testing.assert_array_equal(data.values.to_numpy()[off], whole.to_numpy()[off])


def test_the_cells_are_taken_from_the_columns_they_read(run, monkeypatch):
    """heatmap_data selects its mode's rows with the columns the cells read
    (CELL_COLUMNS_READ and the value): the same cells, legend and title as from every
    column, for failed, unverified and measured cells alike."""
    unverified = _rows([(0, 1, 4096, 10.0), (0, 1, 65536, 20.0), (1, 0, 65536, 21.0)])
    unverified.loc[1, "verified"] = False
    unkinded = _rows([(0, 1, 4096, 10.0), (1, 0, 4096, 12.0)])  # an error text, no kind
    unkinded.loc[0, ["bandwidth_GBps", "error"]] = [np.nan, "an old run's failure"]
    cases = [
        (run.frame(), {}),
        (run.frame(), {"direction": "bi", "value": "bidir_total_GBps"}),
        (unverified, {}),
        (unkinded, {}),
    ]
    narrowed = [cells.heatmap_data(frame, **kw) for frame, kw in cases]
    given: list[list[str]] = []
    real = cells.select

    def recorded(*a, **kw):
        df, path = real(*a, **kw)
        given.append(list(df.columns))
        return df, path

    monkeypatch.setattr(cells, "select", recorded)
    cells.heatmap_data(run.frame())
    assert set(given[0]) == {*cells.CELL_COLUMNS_READ, "bandwidth_GBps"}
    monkeypatch.setattr(cells, "CELL_COLUMNS_READ", tuple(run.frame().columns))
    for (frame, kw), data in zip(cases, narrowed):
        whole = cells.heatmap_data(frame, **kw)
        pd.testing.assert_frame_equal(data.cells, whole.cells)
        assert (data.legend, data.size_text) == (whole.legend, whole.size_text)


def test_bidirectional_failure_marks_both_cells(run):
    states = cells.heatmap_data(run.frame(), direction="bi").cells
    assert states.loc[(2, 3), "code"] == states.loc[(3, 2), "code"] == "E1"
    assert states.loc[(0, 1), "value"] < states.loc[(1, 0), "value"]
    total = cells.heatmap_data(run.frame(), direction="bi", value="bidir_total_GBps").values
    assert total.loc[0, 1] == total.loc[1, 0]


def test_cell_texts_and_kinds(run):
    data = cells.heatmap_data(run.frame())
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
    assert cells.unverified_text(points) == (
        "verification: bytes differ at 1 point (drawn, not trusted)"
    )
    assert states.loc[(0, 1), "value"] == cells.heatmap_data(frame, size=65536).values.loc[0, 1]
    assert cells.heatmap_data(frame, size=4096).cells.loc[(0, 1), "state"] == "value"


# ------------------------------------------------------------------------------ link / peer
def test_link_and_peer_frames_keep_rows_as_sources():
    table = pd.DataFrame(
        {
            "src": [0, 1, 0, 2],
            "dst": [1, 0, 2, 0],
            "link": ["PIX", "HCCS", "SYS", "SYS"],
            "can_access_peer": [True, False, True, True],
        }
    )
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
    code += (
        "\nimport json, sys\nprint(json.dumps(sorted(m for m in sys.modules "
        f"if m.startswith({_FORBIDDEN!r}))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_plots_imports_no_runtime_measure_or_simulator():
    """The plots package's own imports: the parent package's __init__ left out."""
    code = _BARE_PACKAGES.format(packages=[("ascend_p2p_lab", str(PACKAGE))])
    assert _forbidden_after(code + "import ascend_p2p_lab.plots") == []


def test_import_plots_in_a_fresh_interpreter():
    assert _forbidden_after("import ascend_p2p_lab.plots") == []
    assert _forbidden_after("import ascend_p2p_lab") == []  # open_runtime is lazy


def test_data_preparation_needs_no_matplotlib():
    packages = [("ascend_p2p_lab", str(PACKAGE)), ("ascend_p2p_lab.plots", str(PACKAGE / "plots"))]
    code = (
        _BARE_PACKAGES.format(packages=packages)
        + "sys.modules['matplotlib'] = None  # importing it raises ImportError\n"
        + "import ascend_p2p_lab.plots.prepare, ascend_p2p_lab.plots.cells"
    )
    assert _forbidden_after(code) == []


def test_a_failure_without_call_or_code_is_named_by_what_it_has():
    frame = _rows([(0, 1, 4096, 10.0), (1, 0, 4096, 10.0), (2, 3, 4096, 10.0)])
    frame.loc[0, ["bandwidth_GBps", "error", "error_kind", "error_code"]] = [
        np.nan,
        "text",
        "runtime",
        507899,
    ]
    frame.loc[2, ["bandwidth_GBps", "error", "error_kind"]] = [np.nan, "text", "missing_call"]
    data = cells.heatmap_data(frame)
    assert data.cells.loc[(0, 1), "code"] == "E1" and data.cells.loc[(2, 3), "code"] == "E2"
    assert [text for _code, text in data.legend[1:]] == [
        "E1 runtime: ACL_ERROR_RT_DRV_INTERNAL_ERROR (507899) [1 cell]",
        "E2 missing_call: the installed pyACL lacks a call this point needs [1 cell]",
    ]


def test_the_local_copy_sits_on_the_diagonal_of_device_paths_only() -> None:
    """p2p and direct copies go device to device: their matrices show the device-local
    copy on the diagonal; the host-staged path does not (620 GB/s beside 20 says nothing)."""
    from ascend_p2p_lab.matrices import run_matrices
    from ascend_p2p_lab.results import matrix

    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(
            rt,
            pairs="0-1",
            peer="both",
            patterns=("pair", "local"),
            sizes="16MiB",
            samples=1,
            progress=False,
        )
    local = run.samples[run.samples["pattern"] == "local"].set_index("src")["bandwidth_GBps"]
    by_path = {m.path: m.frame for m in run_matrices(run) if m.pattern == "pair"}
    assert set(by_path) == {"p2p", "direct", "staged"}
    assert by_path["p2p"].loc[0, 0] == pytest.approx(local[0])  # (direct: refused on A2)
    assert pd.isna(by_path["staged"].to_numpy().diagonal()).all()
    assert pd.isna(matrix(run, path="staged", peer="off").to_numpy().diagonal()).all()
    assert matrix(run, path="p2p", peer="on").loc[1, 1] == pytest.approx(local[1])
    assert by_path["staged"].loc[0, 1] > 0
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab.plots.cells import heatmap_data

    staged = heatmap_data(run.frame(), peer="off", path="staged")
    p2p = heatmap_data(run.frame(), peer="on", path="p2p")
    assert staged.cells.iat[0, 0] != p2p.cells.iat[0, 0]


def test_figures_show_the_devices_asked_for_as_the_terminal_does() -> None:
    """--devices 1,3,6 on an 8-device server: the heatmap and the link matrix are 3 x 3,
    labelled 1, 3, 6, like the terminal's matrices, not 8 x 8 with 58 empty cells."""
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab import plots
    from ascend_p2p_lab.matrices import run_matrices
    from ascend_p2p_lab.plots.cells import heatmap_data, link_frame

    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(rt, devices="1,3,6", sizes="1MiB", samples=1, progress=False)
    assert run_matrices(run)[0].devices == [1, 3, 6]
    data = heatmap_data(run.frame())
    assert list(data.values.index) == list(data.values.columns) == [1, 3, 6]
    assert data.values.loc[3, 6] > 0 and pd.isna(data.values.loc[3, 3])
    assert list(link_frame(run)[0].index) == [1, 3, 6]
    ax = plots.heatmap(run).axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "3", "6"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["1", "3", "6"]


# ------------------------------------------------------------------ issue 30 (its last items)
def _run(patterns: tuple[str, ...]):
    with open_runtime("sim", preset="atlas800t-a2", announce=False) as rt:
        return sweep(
            rt,
            pairs="0-1,2-3",
            sizes=["1MiB", "16MiB"],
            samples=2,
            peer="both",
            patterns=patterns,
            devices=(0, 1, 2, 3),
            progress=False,
        ).frame()


@pytest.fixture(scope="module")
def with_local():
    return _run(("pair", "local"))


def test_a_refused_map_with_local_copies_says_what_its_diagonal_holds(with_local) -> None:
    data = heatmap_data(with_local, peer="off", path="direct")
    assert data.cells.query("state == 'diagonal'")["value"].notna().all()
    assert "no numbers" not in data.size_text and "diagonal" in data.size_text


def test_a_refused_map_without_local_copies_says_no_numbers() -> None:
    data = heatmap_data(_run(("pair",)), peer="off", path="direct")
    assert data.size_text == "no numbers at any size"


def test_a_map_with_pair_numbers_names_its_size(with_local) -> None:
    assert heatmap_data(with_local, peer="on").size_text == "at 16 MiB (largest size)"


def test_a_pair_with_one_number_is_measured():
    """unmeasured_text counts the pairs none of whose rows has a number (one grouped
    ``any``): 0->1 has one number among NaNs, 1->0 and 2->0 none; 0->2 all numbers."""
    frame = _rows([(0, 1, 4096, np.nan), (0, 1, 65536, 20.0), (1, 0, 4096, np.nan)])
    frame = pd.concat([frame, _rows([(1, 0, 65536, np.nan), (2, 0, 4096, np.nan)])])
    frame = pd.concat([frame, _rows([(0, 2, 4096, 5.0)])], ignore_index=True)
    assert cells.unmeasured_text(frame) == "2 pairs without numbers"
    assert cells.unmeasured_text(frame[frame["src"] == 0]) is None


def test_no_unverified_point_is_the_empty_frame_of_points():
    """Without a point whose bytes arrived wrong, unverified_points gives the frame its
    grouping gives (taken without grouping): the same columns, dtypes and index."""
    frame = _rows([(0, 1, 4096, 10.0), (1, 0, 65536, 21.0)])
    bad = frame[frame["verified"].eq(False).fillna(False).astype(bool)]
    grouped = bad.groupby(["src", "dst", "size_bytes"], dropna=False)["bandwidth_GBps"]
    pd.testing.assert_frame_equal(
        cells.unverified_points(frame, "bandwidth_GBps"), grouped.median().reset_index()
    )
