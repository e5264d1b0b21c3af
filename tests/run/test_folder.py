"""Run folders (run.folder) and what the commands record in them.

- Saving and loading: oversized result files are refused; a Ctrl-C while saving leaves
  the old run whole, and one between the renames never leaves a mix of old and new;
  run.json carries a schema version, and a newer or a missing one is refused; saving a
  whole run removes its own checkpoint and no other.
- Runs saved by older releases (tests/data/run_v1 and run_v2) load and report, and their
  folders are left as they were.
- An imported run is an ordinary run (issue 30): a host table without a device takes its
  ID column as the device; the server's device count, preset and link classes are
  recorded as far as they are known, not guessed; each import records the plan a re-run
  needs and compares with a preset; a card matrix imported as device pairs is named in a
  warning the run keeps; check --run takes the run's own preset.
- The collectives command's JSON rows are the documented ones, and its folder holds them.
- A sweep --processes run keeps pull and push, in process and across processes, apart in
  its matrices and its report.
- A run of refusals only is a result that report reads; the aggregates figure draws a
  nominal legend only when there is a nominal.

Fixtures are asymmetric (each device or pair its own figure; card 2->5 lowered, 5->2
not), so an import that swaps ends or keys a row by its position cannot pass."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from helpers import (
    A3_PAIR,
    QUICK_3,
    QUICK_6,
    SIM,
    _check_json,
    _compare_json,
    _copy_run,
    _failing,
    _json,
    _open,
    assert_released,
    run_json,
    saved_processes_run,
    write,
)

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.matrices import run_matrices
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.results import (
    ResultsError,
)
from ascend_p2p_lab.run import Run
from ascend_p2p_lab.run import folder as run_folder
from ascend_p2p_lab.run.folder import load

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


def test_oversized_result_files_are_refused(
    saved_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import ascend_p2p_lab.run.folder as F
    import ascend_p2p_lab.run.samples as S

    folder = _copy_run(saved_run, tmp_path / "run")
    monkeypatch.setattr(S, "MAX_SAMPLES_BYTES", 100)
    with pytest.raises(ResultsError, match=r"samples\.parquet: larger than 100 bytes"):
        Run.load(folder).frame()
    monkeypatch.setattr(F, "MAX_RUN_JSON_BYTES", 10)
    with pytest.raises(ResultsError, match=r"run\.json: larger than 10 bytes"):
        Run.load(folder).frame()


JSON_KEYS = {
    "operation",
    "ranks",
    "algorithm",
    "size_bytes",
    "time_us",
    "algbw_GBps",
    "busbw_GBps",
    "predicted_busbw_GBps",
    "bottleneck",
}


def test_json_rows_are_the_documented_ones(capsys, tmp_path) -> None:
    status, data = _json(
        capsys,
        [
            "collectives",
            *SIM,
            "--preset",
            "atlas800t-a2",
            "--sizes",
            "8KiB,64MiB",
            "--samples",
            "1",
            "--format",
            "json",
            "--out",
            str(tmp_path / "run"),
        ],
    )
    assert status == 0
    assert data["exit_status"] == 0
    rows = data["collectives"]
    assert len(rows) == 10
    assert set(rows[0]) >= JSON_KEYS
    assert [r["operation"] for r in rows[::2]] == [
        "all_reduce",
        "all_gather",
        "reduce_scatter",
        "all_to_all",
        "broadcast",
    ]
    for r in rows:
        assert r["bottleneck"] is None or (
            len(r["bottleneck"]) == 2 and all(isinstance(d, int) for d in r["bottleneck"])
        )
        assert r["busbw_GBps"] == pytest.approx(r["predicted_busbw_GBps"], rel=0.1)
    assert {r["algorithm"] for r in rows if r["operation"] == "all_reduce"} == {
        "reduce_bcast",
        "mesh",
    }  # HCCL's rule on the A2: reduce-broadcast up to 256 KiB
    saved = load(tmp_path / "run").samples
    ops = saved[saved["phase"].isna()]
    assert set(JSON_KEYS - {"bottleneck"}) | {"bottleneck_src", "bottleneck_dst"} <= set(
        saved.columns
    )
    assert ops["predicted_busbw_GBps"].notna().all() and len(ops) == 10


# ---------------------------------------------------------------- item 10: pull apart from push
@pytest.fixture(scope="module")
def processes_run(tmp_path_factory):
    return saved_processes_run(tmp_path_factory.mktemp("ipc") / "run")


def test_processes_matrices_keep_pull_and_push_apart(processes_run, capsys, planned_report):
    from ascend_p2p_lab.run.folder import load

    run = load(processes_run)
    rows = run.samples
    med = (
        rows[rows["size_bytes"] == 64 << 20]
        .groupby(["process_mode", "initiator", "src", "dst"])["bandwidth_GBps"]
        .median()
    )
    got = {(m.process_mode, m.initiator): m.frame.loc[0, 1] for m in run_matrices(run)}
    assert set(got) == {(mode, ini) for mode in ("in_process", "ipc") for ini in ("dst", "src")}
    for (mode, ini), value in got.items():
        assert value == pytest.approx(med[(mode, ini, 0, 1)])
    assert got[("in_process", "src")] < 0.8 * got[("in_process", "dst")]  # a push is slower
    code, data = run_json(capsys, ["report", str(processes_run), "--format", "json"])
    assert code == 0
    titles = [m["title"] for m in data["matrices"]]
    assert any("pulled by the destination" in t and "across processes" in t for t in titles)
    assert {(m["process_mode"], m["initiator"]) for m in data["matrices"]} == set(got)


DATA = Path(__file__).resolve().parents[1] / "data" / "vendor"


TOPO = Path(__file__).resolve().parents[1] / "data" / "npu-smi-topo-910b3-8npu.txt"


#: ascend-dmi --bw -t h2d -s 512MiB without -d: one row per device, ID = the device.
H2D_ALL_DEVICES = """\
ID    Size(Bytes)    Execute Times    Bandwidth(GB/s)    Elapsed Time(us)
0     536870912      40               24.81              865576.4
1     536870912      40               24.62              872256.1
2     536870912      40               23.10              929646.7
3     536870912      40               24.70              869431.1
"""


def imported(tmp_path: Path, name: str, *argv: str) -> Path:
    out = tmp_path / name
    assert main(["import", *argv, "--out", str(out)]) == 0
    return out


# ---------------------------------------------------------------- item 1: ID is the device
def test_a_host_table_without_a_device_takes_its_id_column_as_the_device(tmp_path):
    cap = write(tmp_path, "h2d.txt", H2D_ALL_DEVICES)
    run = load(imported(tmp_path, "h2d", "dmi", str(cap), "--type", "h2d"))
    got = dict(zip(run.samples["dst"].astype(int), run.samples["bandwidth_GBps"]))
    assert got == {0: 24.81, 1: 24.62, 2: 23.10, 3: 24.70}
    assert run.samples["src"].isna().all()
    assert main(["report", str(tmp_path / "h2d")]) == 0
    files = json.loads((tmp_path / "h2d" / "report.json").read_text())["files"]
    assert "host_bandwidth_vs_size.png" in files


# ---------------------------------------------------------------- item 5: the server's size
def test_a_one_pair_import_does_not_guess_the_server_size(tmp_path):
    cap = write(tmp_path, "pair.txt", A3_PAIR)
    run = load(imported(tmp_path, "pair", "dmi", str(cap)))
    assert run.meta.device_count is None  # not 4 (the highest id + 1)


def test_an_import_with_a_preset_records_the_server(tmp_path):
    cap = write(tmp_path, "pair.txt", A3_PAIR)
    run = load(imported(tmp_path, "pair", "dmi", str(cap), "--preset", "atlas800t-a3"))
    assert (run.meta.device_count, run.meta.preset) == (16, "atlas800t-a3")
    assert set(run.samples["link"]) == {"SIO"}  # the preset names 2->3's class
    assert "atlas800t-a3" in run.meta.link_classes_from


def test_an_import_with_a_topology_capture_records_its_device_count(tmp_path):
    run = load(imported(tmp_path, "p2p", "dmi", str(DATA / "dmi-a2-p2p-pair-step.txt"), str(TOPO)))
    assert run.meta.device_count == 8


def test_a_host_table_import_is_compared_device_by_device(tmp_path, capsys):
    run = imported(tmp_path, "h2d", "dmi", str(DATA / "dmi-a2-h2d-step.txt"))
    plans = load(run).meta.params["plans"]
    assert [(p["patterns"], p["devices"], len(p["sizes"])) for p in plans] == [(["h2d"], [0], 25)]
    code, data = _compare_json(capsys, run, "atlas800t-a2")
    assert code in (0, 1) and data["points_compared"] == 25 and data["unmatched"] == []


def test_a_latency_import_is_compared_on_its_time_per_copy(tmp_path, capsys):
    run = imported(tmp_path, "lat", "dmi", str(DATA / "dmi-json-latency.json"))
    rows = load(run).samples
    assert list(rows["bandwidth_GBps"]) == pytest.approx([512 / 4.8e3, 512 / 5.1e3])
    code, data = _compare_json(capsys, run, "atlas800t-a2")
    assert code in (0, 1) and data["points_compared"] == 2


def test_a_mixed_import_plans_each_family_at_its_own_sizes(tmp_path, capsys):
    run = imported(
        tmp_path,
        "mix",
        "dmi",
        str(DATA / "dmi-a2-p2p-pair-step.txt"),
        str(DATA / "dmi-a2-d2h-fixed.txt"),
    )
    plans = load(run).meta.params["plans"]
    assert [
        (p["patterns"], p.get("directions"), p.get("pairs"), p.get("devices"), p["sizes"])
        for p in plans
    ] == [
        (["pair"], ["uni"], [[7, 6]], None, [2, 2097152, 33554432]),
        (["pair"], ["bi"], [[7, 6]], None, [33554432]),
        (["d2h"], None, None, [3], [536870912]),
    ]
    code, data = _compare_json(capsys, run, "atlas800t-a2")
    assert code in (0, 1) and data["points_compared"] == 5  # 3 uni, the bi total, the d2h
    # the simulator's other direction of the bi pair: DMI's total covers both
    assert [(u["src"], u["dst"], u["direction"]) for u in data["unmatched"]] == [(6, 7, "bi")]


def test_an_hccl_import_records_its_collective_plan(tmp_path):
    run = load(imported(tmp_path, "hccl", "hccl-test", str(DATA / "hccl-all_reduce-8p.txt")))
    (plan,) = run.meta.params["plans"]
    assert (plan["operation"], plan["ranks"], plan["sizes"][0], len(plan["sizes"])) == (
        "all_reduce",
        8,
        8192,
        14,
    )


# ---------------------------------------------------------------- items 4, 23: check --run
def _card_capture(tmp_path: Path) -> Path:
    """The A3 card matrix with card 2 -> 5 (uni) lowered to 200 GB/s; 5 -> 2 kept."""
    text = (DATA / "dmi-a3-p2p-card.txt").read_text().splitlines()
    row = text[5].split()
    assert row[0] == "2"
    row[6] = "200.00"
    text[5] = "  ".join(row)
    return write(tmp_path, "card.txt", "\n".join(text) + "\n")


def test_check_run_takes_the_runs_own_preset(tmp_path, capsys):
    """An A3 run judged without --preset: against the A3's criteria, not the A2's."""
    from ascend_p2p_lab import open_runtime
    from ascend_p2p_lab.measure import sweep
    from ascend_p2p_lab.run.folder import save

    with open_runtime("sim", preset="atlas800t-a3") as rt:
        run = sweep(rt, pairs="0-1,1-0,0-2", sizes=["64MiB"], samples=2, progress=False)
    assert run.meta.device_count == 16
    save(run, tmp_path / "a3")
    code, report = _check_json(capsys, "--run", str(tmp_path / "a3"))
    assert code == 0, report
    judged = {
        (i["src"], i["dst"], i["link"])
        for i in report["items"]
        if i["kind"] == "bandwidth" and i["status"] == "PASS"
    }
    assert judged == {(0, 1, "SIO"), (1, 0, "SIO"), (0, 2, "HCCS_SW")}
    card = imported(
        tmp_path,
        "card",
        "dmi",
        str(_card_capture(tmp_path)),
        "--size",
        "256MiB",
        "--card",
        "--preset",
        "atlas800t-a3",
    )
    code, report = _check_json(capsys, "--run", str(card))
    assert code == 1 and _failing(report) == {"aggregate card cards 4,5->10,11"}


# ---------------------------------------------------------------- item 6: a card matrix as pairs
def test_a_card_matrix_imported_as_device_pairs_is_named(tmp_path, capsys):
    text = (DATA / "dmi-a3-p2p-card.txt").read_text().splitlines()
    cap = write(tmp_path, "p2p.txt", "\n".join(text[1:]) + "\n")  # no "-m card" line
    run = load(imported(tmp_path, "r", "dmi", str(cap), "--size", "256MiB"))
    err = capsys.readouterr().err
    assert "329.61 GB/s" in err and "--card" in err and "p2p.txt:" in err
    assert len(err.strip().splitlines()) == 1
    assert run.meta.warnings == (err.strip().removeprefix("ascend-p2p-lab: warning: "),)
    # an A2 matrix says nothing
    run = load(imported(tmp_path, "a2", "dmi", str(DATA / "dmi-a2-p2p.txt"), "--size", "256MiB"))
    assert capsys.readouterr().err == "" and run.meta.warnings == ()


def test_aggregates_figure_draws_a_nominal_legend_only_with_a_nominal(tmp_path):
    from ascend_p2p_lab.plots import aggregate_bars

    run = load(
        imported(tmp_path, "card", "dmi", str(DATA / "dmi-a3-p2p-card.txt"), "--size", "256MiB")
    )
    labels = [t.get_text() for t in aggregate_bars(run).axes[0].get_legend().get_texts()]
    assert not any("nominal" in t for t in labels), labels


def test_a_run_of_refusals_only_is_a_result_not_nothing(tmp_path, capsys):
    """Pairs that cannot reach each other have no number, and that is a result."""
    from ascend_p2p_lab import open_runtime
    from ascend_p2p_lab.measure import sweep
    from ascend_p2p_lab.run.folder import save

    with open_runtime("sim", preset="atlas300i-310") as rt:
        pairs = [
            (a, b)
            for a in range(rt.device_count)
            for b in range(rt.device_count)
            if a != b and not rt.can_access_peer(a, b)
        ][:2]
        run = sweep(rt, pairs=pairs, sizes=["1MiB"], samples=2, progress=False)
    assert run.samples["bandwidth_GBps"].isna().all()
    save(run, tmp_path / "r")
    capsys.readouterr()
    assert main(["report", str(tmp_path / "r")]) == 0


QUICK_2 = {"samples": 2, "warmup": 1, "progress": False}


def test_saving_a_whole_run_removes_its_checkpoint_and_no_other(tmp_path: Path) -> None:
    ckpt = tmp_path / "c.ckpt"
    with open_runtime("sim", "atlas800t-a2") as rt:
        whole = sweep(rt, pairs="0-1", sizes="4KiB", checkpoint=ckpt, **QUICK_2)
    run_folder.save(whole.replace(finished_checkpoint=None), tmp_path / "a")
    assert ckpt.exists()  # a run that does not say it is whole leaves the file
    run_folder.save(whole, tmp_path / "b")
    assert not ckpt.exists()
    assert run_folder.load(tmp_path / "b").meta.finished_checkpoint is None


V1 = Path(__file__).resolve().parents[1] / "data" / "run_v1"


# ---- run schema 2, saved by the release before the run became a value (3732bd0) ----
V2 = Path(__file__).resolve().parents[1] / "data" / "run_v2"


@pytest.mark.parametrize("fixture", [V1, V2], ids=["run_v1", "run_v2"])
def test_the_report_command_reads_every_older_run(fixture, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab.cli import main
    from ascend_p2p_lab.run import folder as run_folder

    folder = tmp_path / "run"
    shutil.copytree(fixture, folder)
    assert main(["report", str(folder)]) == 0
    out = capsys.readouterr().out
    assert f"run {json.loads((fixture / 'run.json').read_text())['run_id']} on " in out
    manifest = json.loads((folder / "report.json").read_text())
    assert any(name.endswith(".png") for name in manifest["files"])
    run = run_folder.load(folder)  # the folder's run is untouched by its report
    assert run.meta.schema_version == json.loads((fixture / "run.json").read_text()).get(
        "schema_version", 1
    )
    assert len(run) == json.loads((fixture / "run.json").read_text())["rows"]


def test_interrupt_while_saving_leaves_no_half_written_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _open() as rt:
        first = sweep(rt, pairs="0-1", **QUICK_3)
        Run.of(first).save(tmp_path / "run")
        real = pd.DataFrame.to_csv

        def interrupted_csv(self: pd.DataFrame, *args: Any, **kwargs: Any) -> Any:
            raise KeyboardInterrupt("Ctrl-C while writing samples.csv")

        second = sweep(rt, pairs="2-3", **QUICK_3)
        assert set(zip(second.samples.src, second.samples.dst)) == {(2, 3)}
        assert_released(rt, {})
        monkeypatch.setattr(pd.DataFrame, "to_csv", interrupted_csv)
        with pytest.raises(KeyboardInterrupt):
            Run.of(second).save(tmp_path / "run")
        monkeypatch.setattr(pd.DataFrame, "to_csv", real)
    assert not list((tmp_path / "run").glob(".*"))  # no temporary file left
    # the old run, whole:
    pd.testing.assert_frame_equal(
        Run.load(tmp_path / "run").samples, first.samples
    )  # the old run, whole


def test_interrupt_between_renames_leaves_no_mixed_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _open() as rt:
        first = sweep(rt, pairs="0-1", **QUICK_3)
        second = sweep(rt, pairs="2-3", **QUICK_3)
    Run.of(first).save(tmp_path / "run")
    real = Path.replace
    calls = {"n": 0}

    def replace(self: Path, target: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 2:  # samples.parquet is new, samples.csv not yet
            raise KeyboardInterrupt
        return real(self, target)

    monkeypatch.setattr(Path, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        Run.of(second).save(tmp_path / "run")
    monkeypatch.setattr(Path, "replace", real)

    with pytest.raises(ResultsError, match=r"run\.json: missing"):
        Run.load(tmp_path / "run").frame()  # never new samples under the old run.json
    assert not list((tmp_path / "run").glob(".*"))
    Run.of(second).save(tmp_path / "run")
    pd.testing.assert_frame_equal(Run.load(tmp_path / "run").samples, second.samples)


# ---------------------------------------------------------------- schema versions
def test_run_json_carries_a_schema_version_that_load_run_checks(tmp_path) -> None:
    from ascend_p2p_lab.results import RUN_SCHEMA_VERSION

    with open_runtime("sim") as rt:
        run = sweep(rt, pairs="0-1", **QUICK_6)
    Run.of(run).save(tmp_path)
    meta = json.loads((tmp_path / "run.json").read_text())
    assert meta["schema_version"] == RUN_SCHEMA_VERSION == 3  # 3: every field, parts
    meta["schema_version"] = 4
    (tmp_path / "run.json").write_text(json.dumps(meta))
    with pytest.raises(ResultsError, match="run schema version 4 is newer"):
        Run.load(tmp_path).frame()
    del meta["schema_version"]  # required: a 0.x package keeps no unversioned runs
    (tmp_path / "run.json").write_text(json.dumps(meta))
    with pytest.raises(ResultsError, match=r"run\.json:1: field 'schema_version': missing"):
        Run.load(tmp_path).frame()
