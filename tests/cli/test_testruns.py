"""Tests as data: transfers in the compact form, test files, the run and patterns
commands, and what the model says a set of simultaneous copies measures."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from helpers import BAD_FILES, GOOD

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.patterns.builtin import AS_FILES, DECLARATIONS
from ascend_p2p_lab.runtime import open_runtime


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_files_exit_2_with_file_and_line(case, tmp_path, capsys):
    text, line, words = BAD_FILES[case]
    path = tmp_path / "bad.toml"
    path.write_text(text)
    out = tmp_path / "run"
    status = main(
        [
            "run",
            str(path),
            "--preset",
            "atlas800t-a2",
            "--samples",
            "1",
            "--no-progress",
            "--out",
            str(out),
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2
    assert len([e for e in err if "error" in e]) == 1
    assert f"{path}:{line}:" in err[-1] and words in err[-1], err
    assert not out.exists()  # nothing measured, nothing saved


def test_three_transfers_at_once_on_a2(tmp_path, capsys):
    """A pull, a push and a host copy at once: three verified rows, push slower than
    pull (the model's writes), and an aggregate equal to their bytes over the window."""
    path = tmp_path / "t.toml"
    path.write_text(GOOD)
    out = tmp_path / "run"
    status = main(
        [
            "run",
            str(path),
            "--preset",
            "atlas800t-a2",
            "--samples",
            "3",
            "--no-progress",
            "--out",
            str(out),
            "--format",
            "json",
        ]
    )
    assert status == 0
    data = json.loads(capsys.readouterr().out)
    from ascend_p2p_lab.results import load_run

    run = load_run(out)
    big = run[run["size_bytes"] == 256 << 20]
    each = big[big["transfer"].notna()]
    agg = big[big["transfer"].isna()]
    assert sorted(set(each["transfer"])) == [0, 1, 2] and len(agg) == 3
    assert each["verified"].all() and agg["verified"].all()
    assert each["test"].eq("three").all()
    med = each.groupby("transfer")["bandwidth_GBps"].median()
    assert med[1] < 0.9 * med[0]  # push (2->3 by 2) slower than pull (0->1)
    assert list(each.groupby("transfer")["initiator"].first()) == ["dst", "src", "dst"]
    for sample, rows in each.groupby("sample"):
        window = agg[agg["sample"] == sample].iloc[0]
        moved = (rows["bandwidth_GBps"] * rows["elapsed_us"]).sum()  # bytes * 1e-3
        assert math.isclose(window["bandwidth_GBps"] * window["elapsed_us"], moved, rel_tol=1e-9)
        assert window["elapsed_us"] >= rows["elapsed_us"].max()
    # HCCS's paper rate for the device copies; the host link's figure in the preset is a
    # measurement (ascend-dmi), not a paper rate: no nominal for the host copy nor for
    # an aggregate that holds it
    assert agg["nominal_GBps"].isna().all()
    nominal = each.groupby("transfer")["nominal_GBps"].first()
    assert list(nominal[:2]) == [28.0, 28.0] and math.isnan(nominal[2])
    alone = _alone("atlas800t-a2")  # each copy measured by itself: links not shared
    for k in (0, 1, 2):
        assert med[k] == pytest.approx(alone[k], rel=0.05), (k, med[k], alone[k])
    values = [v for v in data["values"] if v["size_bytes"] == 256 << 20]
    assert [v["what"] for v in values] == ["0->1", "2->3", "host->4", "all"]
    assert all(v["median_GBps"] is not None for v in values)


def _alone(preset: str) -> list[float]:
    """The pull 0->1, the push 2->3 and host->4 each measured alone (pair, h2d)."""
    with open_runtime("sim", preset, seed=5) as rt:
        pull = sweep(rt, pairs=[(0, 1)], sizes="256MiB", samples=3, progress=False)
        push = sweep(rt, pairs=[(2, 3)], sizes="256MiB", samples=3, initiator="src", progress=False)
        host = sweep(rt, patterns=["h2d"], devices=[4], sizes="256MiB", samples=3, progress=False)
    return [float(r["bandwidth_GBps"].median()) for r in (pull, push, host)]


def test_patterns_lists_every_declaration(capsys):
    assert main(["patterns"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(DECLARATIONS)


def test_a_built_in_test_runs_by_name(capsys):
    assert (
        main(
            [
                "run",
                "ring",
                "--preset",
                "atlas800t-a2",
                "--devices",
                "0-3",
                "--sizes",
                "4MiB",
                "--samples",
                "1",
                "--no-progress",
                "--format",
                "json",
            ]
        )
        == 0
    )
    values = json.loads(capsys.readouterr().out)["values"]
    assert [v["what"] for v in values] == ["0->1", "1->2", "2->3", "3->0", "all"]
    assert set(AS_FILES) >= {"a2a", "ring", "ring-bi", "scaling"}


def test_a_failing_test_gives_every_transfer_its_reason_and_exit_1(capsys, tmp_path):
    """A copy error on the 2->3 link: the test's transfers and aggregate carry the
    failure as data, the values list says why for each, and the exit status is 1."""
    src = Path(__file__).resolve().parents[2] / "ascend_p2p_lab/topology/presets"
    topo = tmp_path / "faulty.toml"
    topo.write_text(
        (src / "atlas800t-a2.toml").read_text()
        + '\n[[fault]]\nkind = "error"\ncall = "rt.memcpy_async"\n'
        "link = [2, 3]\ncode = 507013\n"
    )
    path = tmp_path / "t.toml"
    path.write_text(GOOD)
    status = main(
        [
            "run",
            str(path),
            "--backend",
            "sim",
            "--topology",
            str(topo),
            "--samples",
            "1",
            "--no-progress",
            "--format",
            "json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    assert status == 1 == data["exit_status"]
    values = [v for v in data["values"] if v["size_bytes"] == 256 << 20]
    assert [v["what"] for v in values] == ["0->1", "2->3", "host->4", "all"]
    assert all(v["median_GBps"] is None and v["kind"] == "runtime" for v in values)
    assert data["failures"][0]["code"] == 507013


def test_compare_against_a_preset_reruns_a_test_file(tmp_path, capsys):
    """compare --against-preset re-runs a run's tests from its run.json params."""
    path = tmp_path / "t.toml"
    path.write_text(GOOD)
    out = tmp_path / "run"
    assert (
        main(
            [
                "run",
                str(path),
                "--preset",
                "atlas800t-a2",
                "--samples",
                "2",
                "--sizes",
                "4MiB",
                "--no-progress",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["compare", "--against-preset", "atlas800t-a2", str(out)]) == 0
    text = capsys.readouterr().out
    assert "4 points compared" in text, text  # three transfers and the aggregate
