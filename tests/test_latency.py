"""The latency pattern: time per copy of back-to-back copies per ordered pair.

The fixture is asymmetric by construction, so that a transposed matrix or a swapped
src/dst cannot pass: on atlas800-9000 (HCCS inside a group of four, SYS across) it
measures 0 -> 1 and 1 -> 0 (HCCS, 0 -> 1 degraded to a quarter of its bandwidth) and
0 -> 4 (SYS) but not 4 -> 0. At 4 bytes a copy costs the link's modelled latency; at
64 KiB the degraded direction adds four times the transfer time of the healthy one.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from ascend_p2p_lab import open_runtime, results
from ascend_p2p_lab.measure import make_spec, sweep
from ascend_p2p_lab.measure.plan import plan_tests
from ascend_p2p_lab.patterns.builtin import DECLARATIONS
from ascend_p2p_lab.patterns.model import needs
from ascend_p2p_lab.units import DEFAULT_SIZES, parse_sizes

PRESET = "atlas800-9000"
DEGRADE = 0.25
FAULTS = [{"kind": "degrade", "link": [0, 1], "factor": DEGRADE}]
SIZES = [4, 65536]
PAIRS = "0-1,1-0,0-4"


@pytest.fixture(scope="module")
def lab() -> tuple[pd.DataFrame, dict[tuple[int, int], tuple[float, float]]]:
    """The run and, per measured pair, the preset's (latency_us, bandwidth_GBps)."""
    with open_runtime("sim", preset=PRESET, faults=FAULTS) as rt:
        run = sweep(rt, pairs=PAIRS, patterns=("latency",), sizes=SIZES, samples=2,
                    progress=False)
        topo = rt.topology
        model = {}
        for a, b in [(0, 1), (1, 0), (0, 4)]:
            lc = topo.link_classes[rt.link_class(a, b)]
            model[(a, b)] = (lc.latency_us, lc.bandwidth_GBps)
    return run, model


def modelled_us(model: dict, pair: tuple[int, int], size: int) -> float:
    """What the simulator charges per copy: the link's latency plus the transfer."""
    lat, bw = model[pair]
    factor = DEGRADE if pair == (0, 1) else 1.0
    return lat + size / (bw * factor * 1e3)


def test_rows_are_latency_rows_with_a_time_per_copy(lab) -> None:
    run, _ = lab
    assert set(run["pattern"]) == {"latency"}
    assert run["error_kind"].isna().all()
    assert len(run) == 3 * len(SIZES) * 2  # pairs x sizes x samples
    per_copy = run["elapsed_us"] / run["copies"].astype(float)
    np.testing.assert_allclose(run["latency_us"].to_numpy(float), per_copy.to_numpy(float))
    assert (run["copies"] > 1).all()  # back to back: many copies per window
    assert run["host_bound"].notna().all()  # event-timed rows keep the host-bound flag
    assert run["latency_us"].dtype == "float64"


def test_latency_matrix_matches_the_modelled_links(lab) -> None:
    run, model = lab
    for size in SIZES:
        mat = results.matrix(run, size, value="latency_us", pattern="latency")
        assert mat.index.name == "src" and mat.columns.name == "dst"
        for pair in model:
            assert mat.loc[pair] == pytest.approx(modelled_us(model, pair, size), rel=0.03), \
                (size, pair)
        assert math.isnan(mat.loc[4, 0])  # never measured: a transposed matrix has it
    small = results.matrix(run, 4, value="latency_us", pattern="latency")
    assert small.loc[0, 4] > 1.3 * small.loc[0, 1]  # SYS 15 us, HCCS 10 us
    big = results.matrix(run, 65536, value="latency_us", pattern="latency")
    assert big.loc[0, 1] > 1.4 * big.loc[1, 0]  # the degraded direction is slower


def test_matrix_refuses_a_size_the_rows_lack(lab) -> None:
    run, _ = lab
    with pytest.raises(ValueError) as err:
        results.matrix(run, 8, value="latency_us", pattern="latency")
    text = str(err.value)
    assert "\n" not in text and "8" in text and "4, 65536" in text
    with pytest.raises(ValueError, match="4, 65536"):
        results.matrix(run, 4096, value="latency_us", pattern="latency")


def test_the_latency_matrix_is_inferred_or_refused_never_empty(lab) -> None:
    run, _ = lab
    inferred = results.matrix(run, 4, value="latency_us")  # the latency pattern
    pd.testing.assert_frame_equal(
        inferred, results.matrix(run, 4, value="latency_us", pattern="latency"))
    assert inferred.notna().sum().sum() > 0
    with pytest.raises(ValueError, match=r"no 'pair' row has latency_us.*'latency'"):
        results.matrix(run, 4, value="latency_us", pattern="pair")


def test_the_declaration_gives_its_value_and_needs() -> None:
    decl = DECLARATIONS["latency"]
    assert decl.description and decl.per_copy and decl.values == "per_copy"
    with open_runtime("sim", preset=PRESET) as rt:
        spec = make_spec(rt, pairs="0-1", patterns="latency", sizes=4, peer="both")
        tests = plan_tests(rt, spec)
        assert [t.path for t in tests] == ["p2p", "direct", "staged"]
        assert {t.values for t in tests} == {"per_copy"}
        on = tests[0]
        assert "event_timing" in needs(on, spec.timing, spec.verify)
        assert "event_timing" not in needs(on, "host", spec.verify)  # blocking copies


def test_latency_alone_defaults_to_one_small_copy() -> None:
    with open_runtime("sim", preset=PRESET) as rt:
        assert make_spec(rt, pairs="0-1", patterns="latency").sizes == (4,)
        mixed = make_spec(rt, pairs="0-1", patterns=("pair", "latency"))
        assert mixed.sizes == tuple(parse_sizes(DEFAULT_SIZES))
        assert make_spec(rt, pairs="0-1", patterns="latency", sizes=[4, 4096]).sizes == (4, 4096)


def test_host_timing_and_peer_off() -> None:
    """Host timing: blocking copies (call + link + return); peer off on an A2, whose
    direct copies are refused: a refused row and a staged latency row, as for pairs."""
    with open_runtime("sim", preset=PRESET) as rt:
        run = sweep(rt, pairs="0-4", patterns="latency", sizes=[4], samples=2,
                    timing="host", progress=False)
        host = rt.topology.host
        lat = rt.topology.link_classes["SYS"].latency_us
    assert (run["timing"] == "host").all() and run["host_bound"].isna().all()
    want = host.api_us + lat + host.sync_return_us
    assert run["latency_us"].median() == pytest.approx(want, rel=0.03)
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        off = sweep(rt, pairs="0-1", patterns="latency", sizes=[4], samples=2, peer="off",
                    progress=False)
    direct = off[off["path"] == "direct"]
    staged = off[off["path"] == "staged"]
    assert (direct["error_kind"] == "refused").all() and direct["latency_us"].isna().all()
    assert len(staged) == 2 and (staged["latency_us"] > 0).all()
    assert (off["peer"] == "off").all() and (off["pattern"] == "latency").all()


def test_runs_saved_before_latency_load(lab, tmp_path) -> None:
    run, _ = lab
    folder = results.save_run(run, tmp_path / "run")
    (folder / "samples.parquet").unlink()
    csv = pd.read_csv(folder / "samples.csv", keep_default_na=False, na_values=[""])
    csv.drop(columns=["latency_us"]).to_csv(folder / "samples.csv", index=False)
    back = results.load_run(folder)
    assert back["latency_us"].dtype == "float64" and back["latency_us"].isna().all()
    assert list(back.columns) == list(results.COLUMNS)
    folder = results.save_run(run, tmp_path / "again")
    again = results.load_run(folder)
    np.testing.assert_allclose(again["latency_us"], run["latency_us"])


def test_heatmap_in_microseconds(lab) -> None:
    from ascend_p2p_lab.plots import heatmap
    from ascend_p2p_lab.plots.cells import heatmap_data

    run, model = lab
    data = heatmap_data(run, value="latency_us", pattern="latency", size=4)
    assert data.values.loc[0, 4] == pytest.approx(modelled_us(model, (0, 4), 4), rel=0.03)
    assert data.cells.loc[(4, 0), "state"] == "not_measured"
    fig = heatmap(run, value="latency_us", pattern="latency", size=4)
    ax, cbar_ax = fig.axes[0], fig.axes[1]
    assert "µs" in cbar_ax.get_ylabel() and "GB/s" not in cbar_ax.get_ylabel()
    assert "lower is better" in cbar_ax.get_ylabel()
    assert "latency" in ax.get_title().lower()
    assert ax.images[0].cmap.name.endswith("_r")  # bright = fast, as on bandwidth maps
    texts = {t.get_text() for t in ax.texts}
    assert "15.1" in texts or "15.0" in texts  # one decimal for tens of µs
    elapsed = heatmap(run, value="elapsed_us", pattern="latency", size=4)
    assert "(µs)" in elapsed.axes[1].get_ylabel()


def host_bound_run() -> pd.DataFrame:
    """A slow host on an A2: enqueueing small copies takes most of each window."""
    with open_runtime("sim", preset="atlas800t-a2",
                      faults=[{"kind": "slow_host", "factor": 3.0}]) as rt:
        return sweep(rt, pairs="0-1", sizes="4KiB,64KiB,1MiB,4MiB", samples=2,
                     progress=False)


def test_fit_leaves_out_host_bound_samples_and_says_so() -> None:
    run = host_bound_run()
    bound = run["host_bound"].fillna(False).astype(bool)
    assert 0 < bound.sum() < len(run)
    fit = results.fit_latency_bandwidth(run)
    assert len(fit) == 1
    assert fit["host_bound_left_out"].iloc[0] == bound.sum()
    assert fit["sizes"].iloc[0] == run.loc[~bound, "size_bytes"].nunique()
    kept = results.fit_latency_bandwidth(run, keep_host_bound=True)
    assert kept["host_bound_left_out"].iloc[0] == 0 and kept["sizes"].iloc[0] == 4
    only_bound = results.fit_latency_bandwidth(run[bound])
    assert only_bound["host_bound_left_out"].iloc[0] == bound.sum()
    assert math.isnan(only_bound["latency_us"].iloc[0])
    # a group whose key has a missing device (a fan-out's dst) is counted once, too
    fanout = run.assign(pattern="one_to_all", dst=pd.Series(pd.NA, index=run.index,
                                                              dtype="Int64"))
    for frame in (fanout, fanout[bound]):
        fit = results.fit_latency_bandwidth(frame)
        assert len(fit) == 1 and fit["host_bound_left_out"].iloc[0] == bound.sum()


def test_curves_ring_the_host_bound_points() -> None:
    from ascend_p2p_lab import plots

    run = host_bound_run()
    bound_sizes = sorted(run.loc[run["host_bound"].fillna(False).astype(bool),
                                 "size_bytes"].unique())
    for fig in (plots.latency_vs_size(run, by="pair"), plots.bandwidth_vs_size(run)):
        ax = fig.axes[0]
        rings = [ln for ln in ax.lines if "host-bound" in str(ln.get_label())]
        assert len(rings) == 1
        assert sorted(rings[0].get_xdata()) == bound_sizes
        assert rings[0].get_markerfacecolor() == "none"
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert any("host-bound" in t for t in labels)


def test_report_draws_the_latency_matrix_at_the_smallest_size(lab, tmp_path,
                                                              monkeypatch) -> None:
    from ascend_p2p_lab import plots
    from ascend_p2p_lab.plots import reports

    run, _model = lab
    asked: list[dict] = []
    real = reports.heatmap

    def spy(frame, **kwargs):
        asked.append(kwargs)
        return real(frame, **kwargs)

    monkeypatch.setattr(reports, "heatmap", spy)
    paths = plots.report(run, tmp_path)
    latency = [p for p in paths if p.name.startswith("latency_on_")]
    assert [p.name for p in latency] == ["latency_on_p2p.png"]
    drawn = [k for k in asked if k.get("value") == "latency_us"]
    assert len(drawn) == 1 and drawn[0]["size"] == min(SIZES)
    assert drawn[0]["pattern"] == "latency"
