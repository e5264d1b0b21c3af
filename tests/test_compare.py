"""compare: run-vs-run bandwidth ratios, the points below a threshold, the verdict.

The degraded run halves one direction only (0 -> 1; 1 -> 0 stays clean), so a
comparison, a terminal matrix or a heatmap that swaps source and destination cannot pass.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import build_parser, main
from ascend_p2p_lab.comparison import (
    DEFAULT_THRESHOLD,
    LOST_RATIO,
    check_threshold,
    compare,
    ratio_grid,
    to_dict,
    to_json,
    unmatched,
)
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.results import save_run

PRESET = "atlas800t-a2"
SEED = 0
SIZE = 16 << 20
PAIRS = "0-1,1-0"
#: 0 -> 1 at half speed; 1 -> 0 untouched
DEGRADE = [{"kind": "degrade", "link": [0, 1], "factor": 0.5}]
#: every copy 0 -> 1 fails with ACL_ERROR_RT_SYS_DMA
FAIL = [{"kind": "error", "call": "rt.memcpy_async", "link": [0, 1], "code": 507013}]
#: the bytes 0 -> 1 arrive wrong (at full speed: the rows have a bandwidth)
CORRUPT = [{"kind": "corrupt", "link": [0, 1]}]


def _run(faults: list | None = None, pairs: str = PAIRS, sizes: object = (SIZE,),
         preset: str = PRESET) -> pd.DataFrame:
    with open_runtime("sim", preset=preset, seed=SEED, faults=faults or []) as rt:
        return sweep(rt, pairs=pairs, sizes=list(sizes), samples=2, progress=False)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[pd.DataFrame, Path]]:
    """clean, clean2 (another clean run), degraded, failing, corrupt, other (2-3, 3-2),
    wider (0-1, 1-0, 2-3): each frame with its saved folder."""
    root = tmp_path_factory.mktemp("runs")
    frames = {"clean": _run(), "clean2": _run(), "degraded": _run(DEGRADE),
              "failing": _run(FAIL), "corrupt": _run(CORRUPT), "other": _run(pairs="2-3,3-2"),
              "wider": _run(pairs="0-1,1-0,2-3")}
    return {name: (frame, save_run(frame, root / name)) for name, frame in frames.items()}


def _cli(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# ----------------------------------------------------------------------- the library
def test_compare_names_exactly_the_degraded_direction(runs) -> None:
    cmp = compare(runs["clean"][0], runs["degraded"][0])
    assert len(cmp) == 2
    below = cmp[cmp["below"]]
    assert list(zip(below["src"], below["dst"])) == [(0, 1)]
    by_pair = cmp.set_index(["src", "dst"])["ratio"]
    assert by_pair[(0, 1)] == pytest.approx(0.5, abs=0.05)
    assert by_pair[(1, 0)] == pytest.approx(1.0, abs=0.05)
    assert not cmp.set_index(["src", "dst"]).loc[(1, 0), "below"]
    row = cmp.set_index(["src", "dst"]).loc[(0, 1)]
    assert row["ratio"] == pytest.approx(row["run_GBps"] / row["baseline_GBps"])


def test_clean_against_clean_has_nothing_below(runs) -> None:
    cmp = compare(runs["clean"][0], runs["clean2"][0])
    assert len(cmp) == 2 and not cmp["below"].any()
    assert cmp["ratio"].to_numpy() == pytest.approx([1.0, 1.0], abs=0.05)


def test_below_is_strictly_less_than_the_threshold(runs) -> None:
    same = compare(runs["clean"][0], runs["clean"][0], threshold=1.0)
    assert (same["ratio"] == 1.0).all() and not same["below"].any()
    strict = compare(runs["clean"][0], runs["degraded"][0], threshold=0.3)
    assert not strict["below"].any()


def test_a_point_lost_in_the_run_counts_as_below(runs) -> None:
    cmp = compare(runs["clean"][0], runs["failing"][0]).set_index(["src", "dst"])
    lost = cmp.loc[(0, 1)]
    assert lost["below"] and lost["ratio"] == LOST_RATIO and math.isnan(lost["run_GBps"])
    assert lost["run_error_kind"] == "runtime"
    assert not cmp.loc[(1, 0), "below"]
    # the other way round (the baseline failed) is no regression: listed, not compared
    back = compare(runs["failing"][0], runs["clean"][0])
    assert list(zip(back["src"], back["dst"])) == [(1, 0)]
    missing = unmatched(runs["failing"][0], runs["clean"][0])
    assert missing[["src", "dst", "reason"]].values.tolist() == [
        [0, 1, "not_measured_in_baseline"]]


def test_rows_with_an_error_kind_are_not_measurements(runs) -> None:
    corrupt = runs["corrupt"][0]
    assert corrupt[corrupt["src"] == 0]["bandwidth_GBps"].notna().all()  # fast, but wrong
    cmp = compare(runs["clean"][0], corrupt).set_index(["src", "dst"])
    assert cmp.loc[(0, 1), "below"] and cmp.loc[(0, 1), "ratio"] == LOST_RATIO
    assert cmp.loc[(0, 1), "run_error_kind"] == "verification"
    assert not cmp.loc[(1, 0), "below"]


def test_points_in_one_run_only_are_listed_not_dropped(runs) -> None:
    cmp = compare(runs["clean"][0], runs["wider"][0])
    assert len(cmp) == 2
    missing = unmatched(runs["clean"][0], runs["wider"][0])
    assert missing[["src", "dst", "reason"]].values.tolist() == [[2, 3, "only_in_run"]]
    missing = unmatched(runs["wider"][0], runs["clean"][0])
    assert missing[["src", "dst", "reason"]].values.tolist() == [[2, 3, "only_in_baseline"]]
    assert compare(runs["clean"][0], runs["other"][0]).empty


@pytest.mark.parametrize("bad", [0, -0.5, 1.0001, 2, math.nan, math.inf, "0.9", True, None])
def test_threshold_outside_zero_to_one_is_refused(bad) -> None:
    with pytest.raises(ValueError, match="threshold") as info:
        check_threshold(bad)
    assert "\n" not in str(info.value)


def test_threshold_is_checked_by_compare(runs) -> None:
    with pytest.raises(ValueError, match="threshold"):
        compare(runs["clean"][0], runs["clean"][0], threshold=0)


def test_ratio_grid_rows_are_sources(runs) -> None:
    grid = ratio_grid(compare(runs["clean"][0], runs["degraded"][0]))
    assert grid.ratios.shape == (8, 8) and grid.size == SIZE and grid.path == "p2p"
    assert grid.ratios.loc[0, 1] == pytest.approx(0.5, abs=0.05)
    assert grid.ratios.loc[1, 0] == pytest.approx(1.0, abs=0.05)
    assert grid.below.to_numpy().sum() == 1 and grid.below.loc[0, 1]
    assert math.isnan(grid.ratios.loc[2, 3])


def test_json_has_the_documented_keys_and_null_for_nan(runs) -> None:
    cmp = compare(runs["clean"][0], runs["failing"][0])
    text = to_json(cmp, unmatched(runs["clean"][0], runs["failing"][0]))
    data = json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in JSON"))
    assert {"below", "pairs_compared", "threshold", "baseline_run_id", "run_id"} <= set(data)
    assert data["threshold"] == DEFAULT_THRESHOLD and data["pairs_compared"] == 2
    assert data["baseline_run_id"] == runs["clean"][0].attrs["run"]["run_id"]
    assert data["run_id"] == runs["failing"][0].attrs["run"]["run_id"]
    (point,) = data["below"]
    assert {"src", "dst", "direction", "peer", "size_bytes", "ratio"} <= set(point)
    assert (point["src"], point["dst"], point["size_bytes"]) == (0, 1, SIZE)
    assert point["ratio"] == 0.0 and point["run_GBps"] is None
    assert to_dict(compare(runs["clean"][0], runs["clean2"][0]))["below"] == []


# ----------------------------------------------------------------------- the figure
def test_ratio_heatmap_marks_exactly_cell_0_1(runs) -> None:
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab.plots import ratio_heatmap
    from ascend_p2p_lab.plots.ratiomap import marked_cells

    fig = ratio_heatmap(compare(runs["clean"][0], runs["degraded"][0]))
    ax = fig.axes[0]
    assert marked_cells(ax) == [(0, 1)]
    image = ax.images[0].get_array()
    assert image[0, 1] == pytest.approx(0.5, abs=0.05)
    assert image[1, 0] == pytest.approx(1.0, abs=0.05)
    assert ax.images[0].norm.vcenter == 1.0
    bold = [(t.get_position(), t.get_text()) for t in ax.texts if t.get_fontweight() == "bold"]
    assert [pos for pos, _text in bold] == [(1, 0)]  # text at x = column 1, y = row 0
    assert float(bold[0][1]) == pytest.approx(0.5, abs=0.05)
    assert "row -> column" in ax.get_title()
    fig = ratio_heatmap(compare(runs["clean"][0], runs["degraded"][0]), threshold=0.3)
    assert marked_cells(fig.axes[0]) == []


def test_ratio_heatmap_marks_a_lost_point(runs) -> None:
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab.plots import ratio_heatmap
    from ascend_p2p_lab.plots.ratiomap import LOST_TEXT, marked_cells

    fig = ratio_heatmap(compare(runs["clean"][0], runs["failing"][0]))
    assert marked_cells(fig.axes[0]) == [(0, 1)]
    assert [t.get_position() for t in fig.axes[0].texts if t.get_text() == LOST_TEXT] == [(1, 0)]


# ----------------------------------------------------------------------- the command
def test_cli_exits_1_naming_exactly_the_degraded_direction(runs, capsys) -> None:
    code, out, _ = _cli(capsys, "compare", runs["clean"][1], runs["degraded"][1])
    assert code == 1
    listed = [line.split() for line in out.splitlines() if " -> " in line and "GB/s" in line]
    assert [(w[0], w[2]) for w in listed] == [("0", "1")]
    assert "BELOW: 1 of 2 points below 0.9 x baseline" in out
    grid = {line.split()[0]: line.split()[1:] for line in out.splitlines()
            if line[:1].isdigit() and len(line.split()) == 9}
    assert grid["0"][1].endswith("*") and not grid["1"][0].endswith("*")
    assert float(grid["0"][1][:-1]) == pytest.approx(0.5, abs=0.05)
    assert float(grid["1"][0]) == pytest.approx(1.0, abs=0.05)


def test_cli_exits_0_for_clean_against_clean(runs, capsys) -> None:
    code, out, _ = _cli(capsys, "compare", runs["clean"][1], runs["clean2"][1])
    assert code == 0
    assert "OK: all 2 points at or above 0.9 x baseline" in out


def test_cli_json_parses_and_names_the_link(runs, capsys) -> None:
    code, out, _ = _cli(capsys, "compare", runs["clean"][1], runs["degraded"][1],
                        "--format", "json")
    assert code == 1
    data = json.loads(out)
    assert [(p["src"], p["dst"], p["direction"], p["peer"]) for p in data["below"]] == [
        (0, 1, "uni", "on")]
    assert data["pairs_compared"] == 2 and data["threshold"] == 0.9


def test_cli_lost_point_exits_1(runs, capsys) -> None:
    code, out, _ = _cli(capsys, "compare", runs["clean"][1], runs["failing"][1])
    assert code == 1
    assert "0 -> 1  uni  peer on (p2p)  16 MiB  lost (runtime)" in out


@pytest.mark.parametrize("threshold", ["0", "-1", "2", "nan", "inf", "abc"])
def test_cli_bad_threshold_exits_2(runs, capsys, threshold) -> None:
    code, out, err = _cli(capsys, "compare", runs["clean"][1], runs["degraded"][1],
                          f"--threshold={threshold}")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "threshold" in err


def test_cli_bad_input_exits_2(runs, capsys, tmp_path) -> None:
    clean, other = runs["clean"][1], runs["other"][1]
    assert _cli(capsys, "compare", clean, tmp_path / "nope")[0] == 2
    code, _, err = _cli(capsys, "compare", clean, other)
    assert code == 2 and "no measured point in common" in err
    assert _cli(capsys, "compare", clean)[0] == 2
    assert _cli(capsys, "compare", clean, clean, "--against-preset", PRESET)[0] == 2
    (tmp_path / "file").write_text("x")
    assert _cli(capsys, "compare", clean, clean, "--out", tmp_path / "file")[0] == 2


def test_cli_checks_its_output_folder_and_preset_before_any_work(runs, capsys,
                                                                 tmp_path) -> None:
    (tmp_path / "file").write_text("x")  # a folder inside a file can never be written
    code, out, err = _cli(capsys, "compare", runs["clean"][1], runs["degraded"][1],
                          "--out", tmp_path / "file" / "figs")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--out" in err and "cannot write there" in err
    code, out, err = _cli(capsys, "compare", "--against-preset", "nosuch", runs["clean"][1])
    assert code == 2 and out == "" and err.count("\n") == 1  # no "simulating ..." first
    assert "--against-preset nosuch: no such preset" in err


def test_cli_writes_the_ratio_heatmap(runs, capsys, tmp_path) -> None:
    pytest.importorskip("matplotlib")
    code, out, _ = _cli(capsys, "compare", runs["clean"][1], runs["degraded"][1],
                        "--out", tmp_path / "figs")
    assert code == 1
    png = tmp_path / "figs" / "ratio_uni_on_p2p.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and str(png) in out


def test_cli_against_the_same_preset_gives_ratios_near_1(runs, capsys) -> None:
    code, out, err = _cli(capsys, "compare", "--against-preset", PRESET, runs["clean"][1],
                          "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["run_id"] == runs["clean"][0].attrs["run"]["run_id"]
    assert data["baseline_source"] == f"simulated {PRESET}"
    assert data["points_compared"] == 2 and data["below"] == []
    # the prediction measured the run's plan: below lists the degraded direction only
    code, out, _ = _cli(capsys, "compare", "--against-preset", PRESET, runs["degraded"][1],
                        "--format", "json")
    data = json.loads(out)
    assert code == 1 and [(p["src"], p["dst"]) for p in data["below"]] == [(0, 1)]
    assert data["below"][0]["ratio"] == pytest.approx(0.5, abs=0.05)


def test_against_preset_ratios_are_1_point_by_point(runs, capsys) -> None:
    from ascend_p2p_lab.cli.compare import _predict

    predicted, _ = _predict(runs["clean"][0], runs["clean"][1], PRESET)
    assert predicted.meta.params == runs["clean"][0].attrs["run"]["params"]
    cmp = compare(predicted, runs["clean"][0])
    assert cmp["ratio"].to_numpy() == pytest.approx([1.0, 1.0], abs=0.02)


def test_parser_default_is_the_library_default() -> None:
    args = build_parser().parse_args(["compare", "a", "b"])
    assert args.threshold == DEFAULT_THRESHOLD and args.format == "table"
    assert args.against_preset is None and args.out is None


def test_cli_lists_points_one_run_lacks(runs, capsys) -> None:
    code, out, _ = _cli(capsys, "compare", runs["clean"][1], runs["wider"][1])
    assert code == 0
    assert "2 -> 3  uni  peer on (p2p)  16 MiB  the baseline did not plan this point" in out
    assert "(1 points not compared, above)" in out
