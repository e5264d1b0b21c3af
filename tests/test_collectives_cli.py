"""The collectives command and what reads its runs: the JSON scripts rely on, bad input
before device work, the run folder, ``report`` (the hccl_test table and figures, for an
import too: issue 30 item 8), ``compare`` of an hccl_test import against a preset or a
P2P run of the server, and predictions from a P2P run's links (``--links``)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pandas as pd
import pytest

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.run.folder import load

DATA = Path(__file__).parent / "data" / "vendor"
HCCL = DATA / "hccl-all_reduce-8p.txt"
SIM = ["--backend", "sim", "--no-progress"]
JSON_KEYS = {"operation", "ranks", "algorithm", "size_bytes", "time_us", "algbw_GBps",
             "busbw_GBps", "predicted_busbw_GBps", "bottleneck"}


def _json(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, dict]:
    status = main(args)
    return status, json.loads(capsys.readouterr().out)


def test_json_rows_are_the_documented_ones(capsys, tmp_path) -> None:
    status, data = _json(capsys, ["collectives", *SIM, "--preset", "atlas800t-a2",
                                  "--sizes", "8KiB,64MiB", "--samples", "1",
                                  "--format", "json", "--out", str(tmp_path / "run")])
    assert status == 0
    assert data["exit_status"] == 0
    rows = data["collectives"]
    assert len(rows) == 10
    assert set(rows[0]) >= JSON_KEYS
    assert [r["operation"] for r in rows[::2]] == ["all_reduce", "all_gather",
                                                   "reduce_scatter", "all_to_all", "broadcast"]
    for r in rows:
        assert r["bottleneck"] is None or (len(r["bottleneck"]) == 2
                                           and all(isinstance(d, int) for d in r["bottleneck"]))
        assert r["busbw_GBps"] == pytest.approx(r["predicted_busbw_GBps"], rel=0.1)
    assert {r["algorithm"] for r in rows if r["operation"] == "all_reduce"} == \
        {"reduce_bcast", "mesh"}  # HCCL's rule on the A2: reduce-broadcast up to 256 KiB
    saved = load(tmp_path / "run").samples
    ops = saved[saved["phase"].isna()]
    assert set(JSON_KEYS - {"bottleneck"}) | {"bottleneck_src", "bottleneck_dst"} <= \
        set(saved.columns)
    assert ops["predicted_busbw_GBps"].notna().all() and len(ops) == 10


@pytest.mark.parametrize("args,what", [
    (["--ops", "all_gather,allgather"], "unknown operation 'allgather'"),
    (["--sizes", "1 KiB-ish"], "--sizes"),
    (["--algorithm", "ring", "--ops", "all_to_all"], "ring does not build all_to_all"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, args, what) -> None:
    out = tmp_path / "run"
    assert main(["collectives", *SIM, "--out", str(out), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert what in err and len(err.splitlines()) == 1
    assert not out.exists()


def test_a_slow_link_shows_in_the_table(capsys) -> None:
    a2 = Path(__file__).parent / "data" / "a2-slow-2to5.toml"
    assert main(["collectives", *SIM, "--topology", str(a2), "--ops", "all_gather",
                 "--sizes", "256MiB", "--samples", "3"]) == 0
    text = capsys.readouterr().out
    head = next(ln for ln in text.splitlines() if "data_size(Bytes)" in ln)
    assert [c.strip() for c in head.split("|")][:5] == [
        "data_size(Bytes)", "aveg_time(us)", "alg_bandwidth(GB/s)", "bus_bandwidth(GB/s)",
        "check_result"]
    row = next(ln for ln in text.splitlines() if ln.strip().startswith("268435456"))
    assert row.rstrip().endswith("2->5")
    assert float(row.split("|")[6]) < 0.6  # the ratio: half the healthy links' prediction


def test_report_of_an_hccl_import_prints_its_table(capsys, tmp_path) -> None:
    """Issue 30 item 8: what hccl_test users read, size, time, algbw and busbw, is in
    the report of an import."""
    out = tmp_path / "hccl"
    assert main(["import", "hccl-test", str(HCCL), "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    assert "all_reduce on 8 ranks:" in text
    row = next(ln for ln in text.splitlines() if ln.strip().startswith("67108864"))
    _size, time_us, algbw, busbw, check = (c.strip() for c in row.split("|"))
    assert (time_us, algbw, check) == ("1014.90", "66.1239", "success")
    assert float(busbw) == pytest.approx(66.12394 * 1.75, abs=1e-3)


def _overlapping(ax) -> list[tuple[str, str]]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(ax.figure)
    canvas.draw()
    r = canvas.get_renderer()
    labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
    boxes = [(t.get_text(), t.get_window_extent(r)) for t in labels]
    return [(a, b) for i, (a, ba) in enumerate(boxes) for b, bb in boxes[i + 1:]
            if ba.overlaps(bb)]


def test_size_ticks_do_not_overlap() -> None:
    """Issue 30 item 8: sizes 8 KiB and 16 KiB beside 32 and 64 MiB printed their labels
    over each other ("8 KiB16 KiB")."""
    from ascend_p2p_lab.plots import collective_bandwidth

    sizes = [8 << 10, 16 << 10, 32 << 20, 64 << 20]
    rows = pd.DataFrame({"operation": "all_gather", "ranks": 4, "size_bytes": sizes,
                         "time_us": [30.0, 31.0, 700.0, 1400.0],
                         "algbw_GBps": [0.3, 0.5, 48.0, 48.0],
                         "busbw_GBps": [0.2, 0.4, 36.0, 36.0], "check_result": "success",
                         "backend": "hccl_test"})
    fig = collective_bandwidth(rows)
    assert _overlapping(fig.axes[0]) == []
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()][:1] == ["8 KiB"]


def test_report_draws_busbw_against_the_links(tmp_path) -> None:
    out = tmp_path / "run"
    assert main(["collectives", *SIM, "--ops", "all_gather,reduce_scatter", "--sizes",
                 "8KiB,8MiB", "--samples", "1", "--out", str(out)]) == 0
    assert main(["report", str(out)]) == 0
    assert {"collective_bandwidth.png", "collectives_vs_links.png"} <= \
        {p.name for p in out.iterdir()}


def test_compare_an_hccl_import_with_the_preset(capsys, tmp_path) -> None:
    out = tmp_path / "hccl"
    assert main(["import", "hccl-test", str(HCCL), "--out", str(out)]) == 0
    capsys.readouterr()
    status, data = _json(capsys, ["compare", "--against-preset", "atlas800t-a2", str(out),
                                  "--format", "json"])
    rows = pd.DataFrame(data["collectives"])
    assert len(rows) == 14 and rows["imported"].all()
    top = rows[rows["size_bytes"] == 64 << 20].iloc[0]
    # the link bound of the A2's mesh all-reduce: writes then reads over 7 links each
    assert top["of_bound"] == pytest.approx(top["busbw_GBps"] / top["bound_busbw_GBps"])
    assert 0 < top["of_bound"] < 1 and top["algorithm"] == "mesh"
    assert status == data["exit_status"] == int((rows["ratio"] < 0.9).any())
    assert main(["compare", "--against-preset", "atlas800t-a2", str(out), "--out",
                 str(tmp_path / "fig")]) == status
    assert (tmp_path / "fig" / "collectives_vs_links.png").is_file()


@pytest.fixture(scope="module")
def p2p_slow(tmp_path_factory) -> Path:
    """A P2P run of an A2 whose link 2 -> 5 runs at half speed: pairs and latency."""
    out = tmp_path_factory.mktemp("p2p") / "run"
    a2 = Path(__file__).parent / "data" / "a2-slow-2to5.toml"
    assert main(["sweep", *SIM, "--topology", str(a2), "--patterns", "pair,latency",
                 "--devices", "0-5", "--sizes", "64KiB,4MiB,64MiB", "--samples", "1",
                 "--out", str(out)]) == 0
    return out


def test_links_from_a_p2p_run_predict_the_slow_link(capsys, p2p_slow) -> None:
    """Predicted from a P2P run that saw 2 -> 5 at half speed, the mesh all-gather's
    prediction halves with it, and the prediction matches what the simulator does."""
    a2 = Path(__file__).parent / "data" / "a2-slow-2to5.toml"
    _, data = _json(capsys, ["collectives", *SIM, "--topology", str(a2), "--ops",
                                  "all_gather", "--devices", "0-5", "--sizes", "64MiB",
                                  "--samples", "1", "--links", str(p2p_slow),
                                  "--format", "json"])
    [row] = data["collectives"]
    assert data["predicted_from"].startswith("run ")
    assert row["busbw_GBps"] == pytest.approx(row["predicted_busbw_GBps"], rel=0.1)
    assert row["bottleneck"] == [2, 5]
    assert row["predicted_busbw_GBps"] < 0.6 * 5 * 26.2


def test_compare_an_import_with_a_p2p_run_of_its_server(capsys, tmp_path, p2p_slow) -> None:
    out = tmp_path / "hccl"
    assert main(["import", "hccl-test", str(DATA / "hccl-allgather_4ranks_doc-spelling.log"),
                 "--out", str(out)]) == 0
    capsys.readouterr()
    a2 = Path(__file__).parent / "data" / "a2-slow-2to5.toml"
    assert main(["compare", str(p2p_slow), str(out)]) == 2  # which server? not a preset
    assert "--topology" in capsys.readouterr().err
    _, data = _json(capsys, ["compare", str(p2p_slow), str(out), "--topology", str(a2),
                             "--format", "json"])
    assert data["predicted_from"] == f"links measured in {p2p_slow}"
    assert {r["ranks"] for r in data["collectives"]} == {4}


def test_the_slow_topology_file_is_the_preset_with_a_fault() -> None:
    from ascend_p2p_lab.topology import load_preset, load_topology_file

    a2 = load_preset("atlas800t-a2")
    slow = load_topology_file(Path(__file__).parent / "data" / "a2-slow-2to5.toml")
    assert dataclasses.replace(slow, name=a2.name, faults=(), description=a2.description,
                               sources=a2.sources) == a2
    assert [dict(f) for f in slow.faults] == [{"kind": "degrade", "link": [2, 5],
                                               "factor": 0.5}]


def test_the_table_says_what_the_samples_checks_said() -> None:
    """An op and size is failed when one of its samples failed its check, success when
    every one passed, NULL when none was checked (hccl_test's words)."""
    from ascend_p2p_lab.collectives.table import summary

    rows = pd.DataFrame({"operation": "all_gather", "ranks": 8,
                         "size_bytes": [1, 1, 2, 2, 3, 3], "time_us": 10.0,
                         "algbw_GBps": 1.0, "busbw_GBps": 0.875,
                         "check_result": ["success", "failed", "success", "success", None,
                                          None]})
    assert summary(rows)["check_result"].tolist() == ["failed", "success", "NULL"]
