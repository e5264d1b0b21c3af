"""``ascend-p2p-lab run`` (``cli/cmd_run.py``): a test file or a built-in test by name,
every transfer and each test's aggregate, bad files with FILE:LINE and exit 2, a failing
test's reasons, and a rerun that resumes every test from its checkpoint.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from helpers import (
    BAD_FILES,
    GOOD,
)

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.history import HistoryStore
from ascend_p2p_lab.measure import (
    execute,
    sweep,
)
from ascend_p2p_lab.patterns.builtin import AS_FILES
from ascend_p2p_lab.run import Run


def _alone(preset: str) -> list[float]:
    """The pull 0->1, the push 2->3 and host->4 each measured alone (pair, h2d)."""
    with open_runtime("sim", preset, seed=5) as rt:
        pull = sweep(rt, pairs=[(0, 1)], sizes="256MiB", samples=3, progress=False)
        push = sweep(rt, pairs=[(2, 3)], sizes="256MiB", samples=3, initiator="src", progress=False)
        host = sweep(rt, patterns=["h2d"], devices=[4], sizes="256MiB", samples=3, progress=False)
    return [float(r.samples["bandwidth_GBps"].median()) for r in (pull, push, host)]


def test_a_rerun_with_the_checkpoint_resumes_every_test(tmp_path, monkeypatch):
    """A test file's run with --checkpoint, interrupted after its first test: the rerun
    into the same folder resumes it and gives the rows of an uninterrupted run."""

    path = tmp_path / "t.toml"
    path.write_text(GOOD + GOOD.split("\n", 2)[2].replace('"three"', '"again"'))
    ckpt = tmp_path / "ck"
    common = [
        "run",
        str(path),
        "--preset",
        "atlas800t-a2",
        "--samples",
        "1",
        "--sizes",
        "1MiB",
        "--no-progress",
        "--format",
        "json",
    ]
    assert main([*common, "--out", str(tmp_path / "a")]) == 0
    ran: list[str] = []

    def counted(ctx, test, run=execute.measure_test):  # Ctrl-C as the second test starts
        if len(ran) == 1:
            raise KeyboardInterrupt
        ran.append(test.key)
        return run(ctx, test)

    monkeypatch.setattr(execute, "measure_test", counted)
    resume = [*common, "--checkpoint", str(ckpt), "--out", str(tmp_path / "b")]
    assert main(resume) == 130
    monkeypatch.undo()
    assert main(resume) == 0

    a, b = Run.load(tmp_path / "a").frame(), Run.load(tmp_path / "b").frame()
    assert b.attrs["run"]["resumed_blocks"] == 1 and sorted(set(b["test"])) == ["again", "three"]
    cols = ["test", "transfer", "src", "dst", "bandwidth_GBps"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    assert not ckpt.exists()  # removed once the whole run is saved


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

    run = Run.load(out).frame()
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


def test_a_built_in_test_runs_by_name(capsys, tmp_path):
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
                "--history",
                str(tmp_path / "h.db"),
            ]
        )
        == 0
    )
    records = HistoryStore(tmp_path / "h.db").read()  # --history: the test's points
    assert set(records["command"]) == {"run"} and len(records) >= 1
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


def test_a_test_files_die_links_run_and_a_cross_card_one_is_refused_at_its_line(
    tmp_path, capsys
) -> None:
    good = tmp_path / "die.toml"
    good.write_text(
        'schema_version = 1\n\n[[test]]\nname = "c3"\nsizes = ["64MiB"]\n'
        'transfers = ["7->6"]\ndie_link = "both"\ndie_split = 0.6\n'
    )
    out = tmp_path / "run"
    argv = ["--backend", "sim", "--preset", "atlas800t-a3", "--no-progress", "--samples", "1"]
    assert main(["run", str(good), *argv, "--out", str(out)]) == 0
    rows = Run.load(out).frame()
    assert set(rows["die_link"]) == {"both"} and set(rows["test"]) == {"c3/both/0.6"}
    bad = tmp_path / "bad.toml"
    bad.write_text(
        'schema_version = 1\n\n[[test]]\nname = "x"\nsizes = ["1MiB"]\n'
        'transfers = ["5->6"]\ndie_link = "hccs"\n'
    )
    capsys.readouterr()
    assert main(["run", str(bad), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert f"{bad}:7:" in err and "5->6 is not between the two dies of one card" in err
