"""Saving and loading runs, and the schema."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.results import (
    COLUMNS,
    SCHEMA,
    ResultsError,
    empty_frame,
    load_run,
    save_run,
    summarize,
)


@pytest.fixture(scope="module")
def run() -> pd.DataFrame:
    with open_runtime("sim", "atlas300i-duo") as rt:
        frame = sweep(rt, pairs=[(0, 1), (0, 2)], sizes="4KiB,1MiB", samples=2, peer="both",
                      progress=False)
    assert rt.ledger() is not None
    return frame


def test_round_trip_keeps_every_value_and_type(run, tmp_path) -> None:
    save_run(run, tmp_path / "r")
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == [
        "run.json", "samples.csv", "samples.parquet"]
    back = load_run(tmp_path / "r")
    pd.testing.assert_frame_equal(back, run)
    assert back.attrs["run"]["run_id"] == run.attrs["run"]["run_id"]
    meta = json.loads((tmp_path / "r" / "run.json").read_text())
    assert isinstance(meta["device_count"], int) and isinstance(meta["params"]["samples"], int)


def test_csv_alone_loads_the_same(run, tmp_path) -> None:
    save_run(run, tmp_path / "r")
    (tmp_path / "r" / "samples.parquet").unlink()
    pd.testing.assert_frame_equal(load_run(tmp_path / "r"), run)


def test_errors_and_reasons_survive(run, tmp_path) -> None:
    save_run(run, tmp_path / "r")
    back = load_run(tmp_path / "r")
    cross = back[(back.src == 0) & (back.dst == 2) & (back.path == "p2p")]
    assert cross["error"].str.contains("cannot access peer").all()


@pytest.mark.parametrize("damage, message", [
    (lambda d: (d / "run.json").write_text("{not json"), "not valid JSON"),
    (lambda d: (d / "run.json").write_text("[1, 2]"), "expected a JSON object"),
    (lambda d: (d / "run.json").unlink(), "missing"),
    (lambda d: (d / "samples.parquet").write_bytes(
        (d / "samples.parquet").read_bytes()[:200]), "cannot read samples"),
    (lambda d: ((d / "samples.parquet").unlink(), (d / "samples.csv").write_text(
        "\n".join((d / "samples.csv").read_text().splitlines()[:3]))), "truncated"),
    (lambda d: ((d / "samples.parquet").unlink(), (d / "samples.csv").write_text(
        "a,b\n1,2\n")), "missing columns"),
])
def test_damaged_files_are_rejected_clearly(run, tmp_path, damage, message) -> None:
    folder = save_run(run, tmp_path / "r")
    damage(folder)
    with pytest.raises(ResultsError, match=message):
        load_run(folder)


def test_unknown_vocabulary_is_rejected(run, tmp_path) -> None:
    folder = save_run(run, tmp_path / "r")
    (folder / "samples.parquet").unlink()
    csv = (folder / "samples.csv").read_text().replace(",uni,", ",sideways,", 1)
    (folder / "samples.csv").write_text(csv)
    with pytest.raises(ResultsError, match="direction"):
        load_run(folder)


def test_schema_and_empty_frame() -> None:
    frame = empty_frame()
    assert tuple(frame.columns) == COLUMNS
    assert dict(frame.dtypes.astype(str)) == {c: str(pd.Series(dtype=t).dtype)
                                              for c, t in SCHEMA.items()}
    assert summarize(frame).empty


def test_no_pickle_anywhere() -> None:
    import pathlib

    import ascend_p2p_lab

    root = pathlib.Path(ascend_p2p_lab.__file__).parent
    for path in root.rglob("*.py"):
        text = path.read_text()
        for banned in ("import pickle", "pickle.load", "eval(", "exec("):
            assert banned not in text, f"{banned} in {path}"
