"""The run as a value (issue 28 item 3): typed metadata checked where it is made, a Run
that selection, concatenation and pickling cannot strip of it, one module of run
folders, sweep() writing nothing, and DataFrame.attrs holding at most a convenience copy.
"""

from __future__ import annotations

import ast
import inspect
import json
import pickle
from pathlib import Path

import pandas as pd
import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.cli import main
from ascend_p2p_lab.measure import sweep, sweep_processes, sweep_processes_run, sweep_run
from ascend_p2p_lab.results import ResultsError, load_run, save_run
from ascend_p2p_lab.run import RUN_SCHEMA_VERSION, Run, RunMeta
from ascend_p2p_lab.run import folder as run_folder
from ascend_p2p_lab.run.meta import FIELDS
from ascend_p2p_lab.schema import to_frame
from ascend_p2p_lab.terminal import print_summary, run_status

PACKAGE = Path(__file__).resolve().parent.parent / "ascend_p2p_lab"
QUICK = {"samples": 2, "warmup": 1, "progress": False}


@pytest.fixture(scope="module")
def two_sweeps() -> tuple[Run, Run]:
    """Two sweeps of one server: pairs, then host copies and local copies."""
    with open_runtime("sim", "atlas800t-a2") as rt:
        pairs = sweep_run(rt, pairs="0-1,1-0,2-3", sizes="1MiB,16MiB", **QUICK)
        host = sweep_run(rt, devices="0-3", patterns=("h2d", "local"), sizes="1MiB,16MiB",
                         **QUICK)
    return pairs, host


# ------------------------------------------------------------------------ RunMeta
#: A value of the wrong type for every kind of field.
WRONG = {"text or null": 5, "true or false": "yes", "true, false or null": 1,
         "an object": [1], "an object or null": "x", "a list of texts": [1],
         "a list of objects": ["x"], "an object (the sweep's parameters)": "x"}


@pytest.mark.parametrize("field", [f for f in FIELDS], ids=lambda f: f.name)
def test_run_meta_refuses_a_wrong_type_where_it_is_made(field) -> None:
    what = field.metadata["what"]
    bad = WRONG.get(what, "eight")  # the counts and whole numbers: text
    with pytest.raises(ValueError) as info:
        RunMeta(**{field.name: bad})
    message = str(info.value)
    assert message.startswith(f"{field.name} must be {what}; got ") and "\n" not in message
    with pytest.raises(ValueError, match=f"^{field.name} must be"):
        RunMeta.from_dict({field.name: bad})  # the same check on the way in from run.json


def test_unknown_keys_are_kept_and_written_back(tmp_path: Path) -> None:
    meta = RunMeta.from_dict({"run_id": "r1", "note": "cables reseated", "extra": {"a": 1}})
    assert meta.extra == {"note": "cables reseated", "extra": {"a": 1}}
    run = Run(to_frame([{"size_bytes": 4096, "pattern": "pair"}]), meta)
    stored = json.loads((save_run(run, tmp_path / "r") / "run.json").read_text())
    assert stored["note"] == "cables reseated" and stored["extra"] == {"a": 1}
    assert run_folder.load(tmp_path / "r").meta.extra == meta.extra


def test_run_json_holds_every_field_of_this_schema(tmp_path: Path) -> None:
    run = Run(to_frame([{"size_bytes": 4096, "pattern": "pair"}]), RunMeta(run_id="r1"))
    stored = json.loads((save_run(run, tmp_path / "r") / "run.json").read_text())
    assert stored["schema_version"] == RUN_SCHEMA_VERSION and stored["rows"] == 1
    assert {f.name for f in FIELDS} <= set(stored)


def test_a_damaged_new_field_is_one_line_naming_it(tmp_path: Path, capsys) -> None:
    run = Run(to_frame([{"size_bytes": 4096, "pattern": "pair"}]), RunMeta(run_id="r1"))
    folder = save_run(run, tmp_path / "r")
    stored = json.loads((folder / "run.json").read_text())
    (folder / "run.json").write_text(json.dumps({**stored, "process_modes": "ipc"}))
    with pytest.raises(ResultsError, match=r"run\.json: process_modes must be a list of "
                                           r"texts; got 'ipc'$"):
        load_run(folder)
    assert main(["report", str(folder)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "process_modes" in err


# ---------------------------------------------------------------------------- Run
def test_the_convenience_copy_goes_out_and_comes_back(two_sweeps) -> None:
    pairs, _ = two_sweeps
    frame = pairs.frame()
    assert frame.attrs["run"]["run_id"] == pairs.meta.run_id  # what old scripts read
    assert frame.attrs["run"]["interrupted"] is False and frame.attrs["run"]["rows"] == len(pairs)
    back = Run.of(frame)
    assert back.meta == pairs.meta and back.samples.equals(pairs.samples)
    assert "run" not in back.samples.attrs  # the Run's samples carry no copy of their own
    assert Run.of(to_frame([])).meta == RunMeta()  # a bare frame: empty metadata


def test_selection_and_pickling_keep_the_metadata(two_sweeps) -> None:
    pairs, _ = two_sweeps
    part = pairs.select(pairs.samples["src"] == 0)
    assert part.meta == pairs.meta and len(part) == (pairs.samples["src"] == 0).sum()
    assert pairs.select(lambda s: s["size_bytes"] > 1 << 20).meta == pairs.meta
    again = pickle.loads(pickle.dumps(pairs))
    assert again.equals(pairs) and again.meta.run_id == pairs.meta.run_id
    frame = pickle.loads(pickle.dumps(pairs.frame()))  # the frame's copy too
    assert Run.of(frame).meta == pairs.meta


def test_pd_concat_is_not_how_runs_are_joined(two_sweeps) -> None:
    """What the issue found: pandas' concat of frames whose attrs differ keeps none."""
    pairs, host = two_sweeps
    joined = pd.concat([pairs.frame(), host.frame()], ignore_index=True)
    assert "run" not in joined.attrs
    assert Run.concat([pairs.frame(), host.frame()]).meta.device_count == 8


def test_two_runs_joined_are_one_run_that_reports(two_sweeps, tmp_path: Path,
                                                  capsys) -> None:
    pytest.importorskip("matplotlib")
    from ascend_p2p_lab import plots

    pairs, host = two_sweeps
    interrupted = host.replace(interrupted=True, points_not_reached=3)
    both = Run.concat([pairs, interrupted])
    assert len(both) == len(pairs) + len(host)
    assert both.run_ids == [pairs.meta.run_id, host.meta.run_id]
    meta = both.meta
    assert meta.device_count == 8 and meta.interrupted and meta.preset == "atlas800t-a2"
    assert meta.points == pairs.meta.points + host.meta.points
    assert meta.points_not_reached == 3 and meta.blocks == pairs.meta.blocks + host.meta.blocks
    assert [p["params"]["patterns"] for p in meta.parts] == [["pair"], ["h2d", "local"]]
    assert meta.params["sizes"] == [1 << 20, 16 << 20]  # what both share
    assert "patterns" not in meta.params  # what they do not: in parts
    assert run_status(both) == 130
    folder = save_run(both, tmp_path / "joined")  # saved and loaded whole
    back = run_folder.load(folder)
    assert back.meta == meta and back.run_ids == both.run_ids
    paths = plots.report(back, tmp_path / "joined")
    names = {p.name for p in paths}
    assert "heatmap_uni_on_p2p.png" in names and "host_bandwidth_vs_size.png" in names
    print_summary(back, folder, matrices=True)
    out = capsys.readouterr().out
    assert out.startswith(f"run {meta.run_id}: 2 runs joined, {len(both)} rows\n")
    assert f"  {pairs.meta.run_id} on 8 x Ascend910B3 (simulated atlas800t-a2)" in out
    assert "h2d" in out and "pair" in out and "interrupted" in out


def test_two_presets_joined_have_the_larger_device_count(two_sweeps) -> None:
    pairs, _ = two_sweeps  # atlas800t-a2: 8 devices
    with open_runtime("sim", "atlas800t-a3") as rt:  # 16
        a3 = sweep_run(rt, pairs="0-1", sizes="1MiB", **QUICK)
    both = Run.concat([pairs, a3])
    assert both.meta.device_count == 16 and both.meta.preset is None  # they differ
    assert [p["preset"] for p in both.meta.parts] == ["atlas800t-a2", "atlas800t-a3"]
    assert set(both.samples["preset"]) == {"atlas800t-a2", "atlas800t-a3"}


def test_a_joined_run_of_one_run_is_that_run(two_sweeps) -> None:
    pairs, _ = two_sweeps
    halves = [pairs.select(pairs.samples["src"] == 0), pairs.select(pairs.samples["src"] != 0)]
    joined = Run.concat(halves)
    assert joined.meta == pairs.meta and len(joined) == len(pairs) and not joined.meta.parts


# ------------------------------------------------------------------------- sweep
@pytest.mark.parametrize("fn", [sweep, sweep_run, sweep_processes, sweep_processes_run])
def test_no_sweep_takes_an_output_folder(fn) -> None:
    assert "out" not in inspect.signature(fn).parameters


def test_sweep_writes_nothing_and_refuses_out(tmp_path: Path) -> None:
    with open_runtime("sim", "atlas800t-a2") as rt:
        with pytest.raises(TypeError, match=r"saves nothing \(no out=\)"):
            sweep(rt, pairs="0-1", sizes="4KiB", out=tmp_path / "r", **QUICK)
        run = sweep_run(rt, pairs="0-1", sizes="4KiB", checkpoint=tmp_path / "c.ckpt",
                        **QUICK)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.ckpt"]  # only the checkpoint
    assert run.meta.finished_checkpoint == str(tmp_path / "c.ckpt")


def test_saving_a_whole_run_removes_its_checkpoint_and_no_other(tmp_path: Path) -> None:
    ckpt = tmp_path / "c.ckpt"
    with open_runtime("sim", "atlas800t-a2") as rt:
        whole = sweep_run(rt, pairs="0-1", sizes="4KiB", checkpoint=ckpt, **QUICK)
    run_folder.save(whole.replace(finished_checkpoint=None), tmp_path / "a")
    assert ckpt.exists()  # a run that does not say it is whole leaves the file
    run_folder.save(whole, tmp_path / "b")
    assert not ckpt.exists()
    assert run_folder.load(tmp_path / "b").meta.finished_checkpoint is None


# --------------------------------------------------------------- check --out
def test_check_out_writes_a_run_folder_that_report_and_check_run_read(tmp_path: Path,
                                                                    capsys) -> None:
    from ascend_p2p_lab.check import criteria_from_preset, to_toml

    crit = tmp_path / "c.toml"
    crit.write_text(to_toml(criteria_from_preset("atlas800t-a2", devices=(0, 1))))
    out = tmp_path / "check"
    assert main(["check", "--criteria", str(crit), "--backend", "sim", "--devices", "0-1",
                 "--out", str(out)]) == 0
    assert {"check.json", "items.csv", "peer.csv", "run.json", "samples.parquet",
            "samples.csv"} <= {p.name for p in out.iterdir()}
    run = run_folder.load(out)
    assert run.meta.command == "check" and len(run.meta.parts) >= 2  # its sweeps, joined
    assert set(run.samples["run_id"]) == set(run.run_ids)
    assert main(["check", "--criteria", str(crit), "--run", str(out)]) == 0
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["run_id"] == run.meta.run_id
    assert main(["check", "--criteria", str(crit), "--backend", "sim", "--devices", "0-1",
                 "--out", str(out)]) == 2  # a check there already: --overwrite


# ------------------------------------------------------------------------ attrs
def _attrs_uses(tree: ast.AST) -> list[int]:
    """Lines of code (docstrings and comments aside) that touch a frame's ``attrs``:
    ``x.attrs[...]``, ``x.attrs.get(...)``, ``x.attrs = ...``, ``getattr(x, "attrs")``."""
    def touches(node: ast.AST) -> bool:
        if isinstance(node, ast.Attribute):
            return node.attr == "attrs"
        return (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr"
                and any(isinstance(a, ast.Constant) and a.value == "attrs" for a in node.args))

    return sorted({node.lineno for node in ast.walk(tree) if touches(node)})


def test_attrs_carry_run_metadata_in_at_most_three_places() -> None:
    """Only run/value.py (Run.of reads the convenience copy, Run.frame writes it) touches
    a frame's attrs for run metadata; comparison's own attrs["comparison"] is not run
    metadata."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        for line in _attrs_uses(ast.parse(text)):
            code = text.splitlines()[line - 1]
            if '"comparison"' in code:
                continue
            found[f"{path.relative_to(PACKAGE)}:{line}"] = code.strip()
    assert len(found) <= 3, found
    assert {where.split(":")[0] for where in found} == {"run/value.py"}, found
