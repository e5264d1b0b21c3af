"""``ascend-p2p-lab report`` (``cli/cmd_report.py``): the figures and summary of a saved
run, its own or imported, and damaged result files refused in one line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from helpers import _copy_run, one_line, run_cli, saved_processes_run

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.measure import (
    sweep,
)
from ascend_p2p_lab.results import (
    ResultsError,
)
from ascend_p2p_lab.run import Run

QUICK: dict[str, Any] = {
    "samples": 1,
    "warmup": 1,
    "min_sample_us": 20.0,
    "max_copies": 2,
    "progress": False,
}


# ------------------------------------------------------------------------- result files
@pytest.fixture(scope="module")
def saved_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with open_runtime("sim", "atlas300i-duo") as rt:
        frame = sweep(rt, pairs="0-1,0-2", sizes="4KiB,1MiB", **QUICK)
    return Run.of(frame).save(tmp_path_factory.mktemp("runs") / "run")


# ---------------------------------------------------------------- item 10: pull apart from push
@pytest.fixture(scope="module")
def processes_run(tmp_path_factory):
    return saved_processes_run(tmp_path_factory.mktemp("ipc") / "run")


DATA = Path(__file__).resolve().parents[1] / "data" / "vendor"


TOPO = Path(__file__).resolve().parents[1] / "data" / "npu-smi-topo-910b3-8npu.txt"


def imported(tmp_path: Path, capture: str, name: str = "dmi") -> Path:
    out = tmp_path / name
    assert (
        main(
            ["import", "dmi", str(DATA / capture), str(TOPO), "--size", "256MiB", "--out", str(out)]
        )
        == 0
    )
    return out


@pytest.mark.parametrize(
    "damage, match",
    [
        (
            lambda d: (d / "samples.parquet").write_bytes(
                (d / "samples.parquet").read_bytes()[:-9]
            ),
            "cannot read samples",
        ),
        (lambda d: (d / "samples.parquet").write_bytes(b""), "cannot read samples"),
        (
            lambda d: (
                (d / "samples.parquet").unlink(),
                (d / "samples.csv").write_text(
                    "".join((d / "samples.csv").read_text().splitlines(keepends=True)[:-2])
                ),
            ),
            "truncated?",
        ),
        (
            lambda d: (
                (d / "samples.parquet").unlink(),
                (d / "samples.csv").write_bytes((d / "samples.csv").read_bytes()[:-300]),
            ),
            "samples",
        ),
        (
            lambda d: (
                (d / "samples.parquet").unlink(),
                (d / "samples.csv").write_text(
                    (d / "samples.csv").read_text().replace(",4096,", ",four,", 1)
                ),
            ),
            "column size_bytes holds text, not whole numbers",
        ),
        (
            lambda d: ((d / "samples.parquet").unlink(), (d / "samples.csv").unlink()),
            "no samples.parquet or samples.csv",
        ),
        (lambda d: (d / "run.json").write_text('{"rows": 3'), "run.json:1: malformed JSON"),
        (lambda d: (d / "run.json").write_bytes(b"\xff\xfe"), "run.json: not UTF-8 text"),
        (
            lambda d: (d / "run.json").write_text(
                json.dumps({**json.loads((d / "run.json").read_text()), "rows": 3})
            ),
            "run.json says 3",
        ),
    ],
)
def test_damaged_result_files(
    saved_run: Path, tmp_path: Path, damage: Any, match: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy_run(saved_run, tmp_path / "run")
    damage(folder)
    with pytest.raises(ResultsError) as info:
        Run.load(folder).frame()
    assert match in one_line(info.value)
    assert main(["report", str(folder), "--out", str(tmp_path / "rep")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and match in err and "Traceback" not in err


def test_processes_curves_are_drawn_per_initiator(processes_run, planned_report):
    assert main(["report", str(processes_run)]) == 0
    files = json.loads((processes_run / "report.json").read_text())["files"]
    curves = sorted(f for f in files if f.startswith("bandwidth_vs_size"))
    assert curves == [
        "bandwidth_vs_size_uni_on_p2p_pull.png",
        "bandwidth_vs_size_uni_on_p2p_push.png",
    ]
    assert {"heatmap_uni_on_p2p_pull.png", "heatmap_uni_on_p2p_push.png"} <= set(files)


def test_report_on_imported_runs_writes_their_figures(tmp_path, planned_report):
    """Which figures each import's report gets (planned, not drawn: how they look is
    tests/plots/, their real reports tests/acceptance/test_seams.py)."""
    run = imported(tmp_path, "dmi-a2-p2p-lowered-2to5.txt")
    assert main(["report", str(run)]) == 0
    listed = json.loads((run / "report.json").read_text())["files"]
    assert "heatmap_uni_on_p2p.png" in listed and "heatmap_bi_on_p2p_total.png" in listed
    hccl = tmp_path / "hccl"
    assert (
        main(["import", "hccl-test", str(DATA / "hccl-all_reduce-8p.txt"), "--out", str(hccl)]) == 0
    )
    assert main(["report", str(hccl)]) == 0
    assert json.loads((hccl / "report.json").read_text())["files"] == [
        "summary.csv",
        "collective_bandwidth.png",
    ]
    misc = tmp_path / "misc"
    assert (
        main(
            [
                "import",
                "dmi",
                *(
                    str(DATA / f)
                    for f in (
                        "dmi-a2-h2d-step.txt",
                        "dmi-a2-d2h-fixed.txt",
                        "dmi-json-bandwidths.json",
                        "dmi-json-latency.json",
                        "dmi-dg.json",
                    )
                ),
                "--out",
                str(misc),
            ]
        )
        == 0
    )
    assert main(["report", str(misc)]) == 0
    assert "host_bandwidth_vs_size.png" in json.loads((misc / "report.json").read_text())["files"]


def test_report_of_an_interrupted_run_is_not_itself_interrupted(
    capsys, tmp_path, monkeypatch
) -> None:
    """An interrupted run, reported: exit 1 (an incomplete run), never 130; no "saved to"
    (report saves no run); "1 figure", not "1 figures"; a --format help that reads."""
    out_dir = tmp_path / "run"
    assert (
        run_cli(
            capsys,
            "sweep",
            "--backend",
            "sim",
            "--pairs",
            "0-1",
            "--sizes",
            "4KiB",
            "--samples",
            "1",
            "--no-progress",
            "--out",
            str(out_dir),
        )[0]
        == 0
    )
    meta = json.loads((out_dir / "run.json").read_text())
    (out_dir / "run.json").write_text(json.dumps({**meta, "interrupted": True}))
    import ascend_p2p_lab.plots as plots

    def one_figure(run, out, table=None, **_):
        (out / "one.png").write_bytes(b"png")
        return [out / "one.png"]

    monkeypatch.setattr(plots, "report", one_figure)
    code, out, _ = run_cli(capsys, "report", str(out_dir))
    assert code == 1
    assert "interrupted: the rows measured so far are kept" in out
    assert "saved to" not in out and f"read from {out_dir}" in out
    assert "and 1 figure:" in out and "1 figures" not in out
    code, out, _ = run_cli(capsys, "report", str(out_dir), "--format", "json")
    data = json.loads(out)
    assert code == 1 == data["exit_status"] and data["saved_to"] is None
    assert data["read_from"] == str(out_dir)
    from ascend_p2p_lab.cli import build_parser

    report = build_parser()._subparsers._group_actions[0].choices["report"]
    text = next(a.help for a in report._actions if "--format" in a.option_strings)
    assert text.startswith("table (default): the summary and every N x N matrix; json: ")
    assert text.endswith("; the figures are written either way") and "(json" not in text


# ------------------------------------------------------- report --history: an item's history
BIG, SMALL = "pair uni on pull 0->1 1 MiB", "pair uni on pull 0->1 4 KiB"


def _history_of(run_dir: Path, db: Path) -> tuple[str, float]:
    """A store of host a2: ten earlier runs of the run's two 0->1 items (the 1 MiB one
    sinking from 14 to 11 GB/s, the 4 KiB one at 0.25), then the run's own records; and a
    host b7 whose 1 MiB item is at 99 GB/s (neither may show in the other's figure). The
    run's id and its 1 MiB value."""
    from ascend_p2p_lab.history import HistoryStore, run_records
    from ascend_p2p_lab.run.folder import load

    run = load(run_dir)
    store = HistoryStore(db)
    for day in range(10):
        store.append(
            pd.DataFrame(
                {"item": [BIG, SMALL], "value": [14.0 if day < 6 else 11.0, 0.25], "unit": "GB/s"}
            ),
            **_when("a2", f"old{day}", f"2026-01-{day + 1:02d}T00:00:00+00:00"),
        )
    store.append(
        pd.DataFrame({"item": [BIG], "value": [99.0], "unit": "GB/s"}),
        **_when("b7", "other", "2026-01-15T00:00:00+00:00"),
    )
    own = run_records(run).drop(columns=["host"], errors="ignore")  # as sweep --history
    store.append(own, **_when("a2", run.meta.run_id, "2026-01-20T00:00:00+00:00"))
    return run.meta.run_id, float(own.set_index("item").loc[BIG, "value"])


def _when(host: str, run_id: str, time: str) -> dict[str, Any]:
    return {"run_id": run_id, "command": "sweep", "host": host, "model": "m", "time": time}


def test_report_history_draws_the_runs_item_over_time_with_its_band(
    saved_run, tmp_path, capsys, planned_report
):
    """The figure is the history of host a2's 1 MiB item (not the 4 KiB one's, not host
    b7's), with its baseline band and the run marked: pixel for pixel the figure
    item_history draws of exactly those values; listed in the manifest (so the next
    report clears it). The run's own figures are planned, not drawn (planned_report)."""
    import matplotlib.image as mpimg
    import numpy as np

    from ascend_p2p_lab.history import trends
    from ascend_p2p_lab.plots import item_history

    run = _copy_run(saved_run, tmp_path / "run")
    _, value = _history_of(run, tmp_path / "h.db")
    code, out, _ = run_cli(
        capsys, "report", str(run), "--history", str(tmp_path / "h.db"), "--item", "0->1 1 MiB"
    )
    assert code == 0, out
    files = json.loads((run / "report.json").read_text())["files"]
    drawn = [f for f in files if f.startswith("history_")]
    assert drawn == ["history_a2_pair_uni_on_pull_0-_1_1_MiB.png"]
    times = [f"2026-01-{d + 1:02d}T00:00:00+00:00" for d in range(10)]
    values = pd.DataFrame(
        {
            "time": [*times, "2026-01-20T00:00:00+00:00"],
            "value": [14.0] * 6 + [11.0] * 4 + [value],
            "verdict": None,
        }
    )
    base = trends(values.assign(host="a2", item=BIG)).iloc[0]["baseline"]
    assert base["median"] == 14.0  # the ten earlier values', the 99 of b7 not among them
    want = item_history(
        values, base, item=BIG, host="a2", unit="GB/s", mark="2026-01-20T00:00:00+00:00"
    )
    want.savefig(tmp_path / "want.png", dpi=100)
    got = mpimg.imread(run / drawn[0])
    assert np.array_equal(got, mpimg.imread(tmp_path / "want.png"))


def test_report_history_without_item_draws_each_of_the_runs_items(
    saved_run, tmp_path, capsys, planned_report
):
    run = _copy_run(saved_run, tmp_path / "run")
    _history_of(run, tmp_path / "h.db")
    code, out, _ = run_cli(capsys, "report", str(run), "--history", str(tmp_path / "h.db"))
    assert code == 0, out
    # the run's 0->2 points have no value (the Duo's 0 and 2 have no P2P): nothing to draw
    assert sorted(p.name for p in run.glob("history_*.png")) == [
        "history_a2_pair_uni_on_pull_0-_1_1_MiB.png",
        "history_a2_pair_uni_on_pull_0-_1_4_KiB.png",
    ]


@pytest.mark.parametrize(
    "case, match",
    [
        ("not in the store", "no record of run"),
        ("no such item", "--item 3->4: no item of run"),
        ("too many", "recorded 2 items; choose at most 1 with --item"),
        ("item alone", "--item: only with --history DB"),
        ("foreign", "not a history store"),
        ("missing", "no such history store"),
    ],
)
def test_report_history_bad_input_is_one_line_and_loses_nothing(
    case, match, saved_run, tmp_path, capsys, monkeypatch
):
    from ascend_p2p_lab.cli import cmd_report

    run = _copy_run(saved_run, tmp_path / "run")
    (run / "summary.csv").write_text("an earlier report's\n")  # what a report would clear
    (run / "report.json").write_text('{"run_id": null, "files": ["summary.csv"]}\n')
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    db = tmp_path / "h.db"
    _history_of(run, db)
    argv = ["report", str(run), "--history", str(db)]
    if case == "not in the store":
        from ascend_p2p_lab.history import HistoryStore

        db.unlink()
        HistoryStore(db)
    elif case == "no such item":
        argv += ["--item", "3->4"]
    elif case == "too many":
        monkeypatch.setattr(cmd_report, "MAX_HISTORY_FIGURES", 1)
    elif case == "item alone":
        argv = ["report", str(run), "--item", "0->1"]
    elif case == "foreign":
        db.write_bytes(b"not sqlite at all" * 10)
    else:
        db.unlink()
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and match in err and len(err.strip().splitlines()) == 1, err
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before
