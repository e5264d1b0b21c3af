"""The run as a value (issue 28 item 3): typed metadata checked where it is made, a Run
that selection, concatenation and pickling cannot strip of it, one module of run
folders, sweep() writing nothing, and DataFrame.attrs holding at most a convenience copy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.run import RUN_SCHEMA_VERSION, Run, RunMeta
from ascend_p2p_lab.run.meta import FIELDS, merged
from ascend_p2p_lab.schema import to_frame

QUICK = {"samples": 2, "warmup": 1, "progress": False}


@pytest.fixture(scope="module")
def two_sweeps() -> tuple[Run, Run]:
    """Two sweeps of one server: pairs, then host copies and local copies."""
    with open_runtime("sim", "atlas800t-a2") as rt:
        pairs = sweep(rt, pairs="0-1,1-0,2-3", sizes="1MiB,16MiB", **QUICK)
        host = sweep(rt, devices="0-3", patterns=("h2d", "local"), sizes="1MiB,16MiB", **QUICK)
    return pairs, host


# ------------------------------------------------------------------------ RunMeta
#: A value of the wrong type for every kind of field, by its declared type.
WRONG = {
    "str | None": 5,
    "bool": "yes",
    "bool | None": 1,
    "dict[str, Any]": [1],
    "dict[str, Any] | None": "x",
    "tuple[str, ...]": [1],
    "tuple[dict[str, Any], ...]": ["x"],
}


@pytest.mark.parametrize("field", [f for f in FIELDS], ids=lambda f: f.name)
def test_run_meta_refuses_a_wrong_type_where_it_is_made(field) -> None:
    bad = WRONG.get(field.type, "eight")  # the counts and whole numbers: text
    with pytest.raises(ValueError) as info:
        RunMeta(**{field.name: bad})
    message = str(info.value)
    assert message.startswith(f"field '{field.name}") and ": expected " in message, message
    assert "\n" not in message
    with pytest.raises(ValueError, match=f"^field '{field.name}"):
        RunMeta.from_dict({field.name: bad})  # the same check on the way in from run.json


def test_run_json_holds_every_field_of_this_schema(tmp_path: Path) -> None:
    run = Run(to_frame([{"size_bytes": 4096, "pattern": "pair"}]), RunMeta(run_id="r1"))
    stored = json.loads((Run.of(run).save(tmp_path / "r") / "run.json").read_text())
    assert stored["schema_version"] == RUN_SCHEMA_VERSION and stored["rows"] == 1
    assert {f.name for f in FIELDS} <= set(stored)


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


def test_joined_metadata_takes_the_largest_device_count_any_interrupt_and_every_part() -> None:
    a = RunMeta(run_id="a", device_count=8, points=6, interrupted=True)
    b = RunMeta(run_id="b", device_count=4, points=3)
    m = merged([a, b])
    assert (m.device_count, m.points, m.interrupted) == (8, 9, True)
    assert [p["run_id"] for p in m.parts] == ["a", "b"]
    assert merged([b, a]).device_count == 8


def test_a_users_note_in_run_json_is_written_back() -> None:
    meta = RunMeta.from_dict({"run_id": "r1", "note": "cables reseated"})
    assert meta.to_dict()["note"] == "cables reseated"
    assert RunMeta.from_dict(meta.to_dict()).extra == {"note": "cables reseated"}
