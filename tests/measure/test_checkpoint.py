"""Reliability: injected faults against every operation, Ctrl-C at chosen points, resumable
sweeps, and a second sweep or a second thread at the same time.

The guarantees under test (docs/reliability.md has the table):

- after any failure, and after a KeyboardInterrupt, every buffer, stream and event the
  operation made is released, peer access is as it was before, and the runtime then
  closes to an empty simulator ledger (tests/conftest.py checks that last part too);
- the rows measured before a failure are returned (in ``exc.partial_run`` when the
  operation raises) and, when ``out=`` was given, saved;
- every error names the ACL call, the code, its symbolic name and the runtime's message.

Faults are injected by the simulator (``open_runtime(..., faults=[...])``); interrupts by
wrapping one ``acl.rt`` function so that its Nth call raises KeyboardInterrupt *before*
reaching the simulator."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from helpers import (
    A2x4,
    A2x4_EXACT,
    _count_blocks,
    _err,
    _lines,
    _open,
    _same_frames,
)

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.measure.checkpoint import Checkpoint, pack_rows, unpack_rows
from ascend_p2p_lab.run import Run

#: A sweep that takes a few milliseconds of host time.
QUICK: dict[str, Any] = {
    "sizes": "4KiB,64KiB",
    "samples": 2,
    "warmup": 1,
    "min_sample_us": 20.0,
    "max_copies": 4,
    "progress": False,
}


# -------------------------------------------------------------------- resumable sweeps
RESUME = {**QUICK, "pairs": "0-1,1-0,2-3,3-2", "peer": "both"}


def test_checkpoint_rows_that_do_not_fit_the_schema_are_refused_before_measuring(
    tmp_path: Path,
) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    with _open() as rt:
        sweep(rt, checkpoint=ckpt, **RESUME)
    lines = _lines(ckpt)
    rows = unpack_rows(lines[1]["z"])
    rows[0]["size_bytes"] = "huge"
    lines[1]["z"] = pack_rows(rows)
    ckpt.write_text("".join(json.dumps(rec) + "\n" for rec in lines))
    with _open() as rt:
        with pytest.raises(ValueError, match="do not fit the schema"):
            sweep(rt, checkpoint=ckpt, **RESUME)
        assert rt.ledger()["device_buffers"] == 0


# ------------------------------------------------------------------ issue 30 (its last items)
_SWEEP = dict(pairs="0-1,2-3,5-4", sizes="64KiB", samples=2, progress=False)


def _sweep(path: Path):
    with open_runtime("sim", "atlas800t-a2", seed=3, announce=False) as rt:
        return sweep(rt, checkpoint=path, **_SWEEP)


def test_a_resumed_run_holds_each_block_once_whatever_the_file_says(tmp_path: Path) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    whole = _sweep(ckpt)
    head, *blocks = ckpt.read_text().splitlines()
    assert len(blocks) == 3
    first = json.loads(blocks[0])
    # the first block twice (the copy with other numbers), the second block, not the third
    other = [{**r, "bandwidth_GBps": 1.0} for r in unpack_rows(first["z"])]
    twice = json.dumps({"block": first["block"], "z": pack_rows(other)})
    ckpt.write_text("\n".join([head, blocks[0], twice, blocks[1]]) + "\n")
    resumed = _sweep(ckpt)
    assert resumed.meta.resumed_blocks == 2
    key = ["src", "dst", "size_bytes", "sample"]
    assert len(resumed.samples) == len(whole.samples)
    assert not resumed.samples.duplicated(key).any()
    counts = resumed.samples.groupby(["src", "dst"]).size().to_dict()
    assert counts == whole.samples.groupby(["src", "dst"]).size().to_dict()
    assert (resumed.samples["bandwidth_GBps"] != 1.0).all()  # the first copy is kept


def test_loading_a_block_twice_gives_its_rows_once(tmp_path: Path) -> None:
    path = tmp_path / "c.ckpt"
    header = {"params": {"samples": 1}}
    Checkpoint(path, header).load()
    line = json.dumps({"block": "pair/uni/on/p2p/0-1", "z": pack_rows([{"src": 0}])})
    other = json.dumps({"block": "pair/uni/on/p2p/1-0", "z": pack_rows([{"src": 1}])})
    with path.open("a") as fh:
        fh.write("\n".join([line, other, line]) + "\n")
    keys, rows = Checkpoint(path, header).load()
    assert keys == {"pair/uni/on/p2p/0-1", "pair/uni/on/p2p/1-0"}
    assert rows == [{"src": 0}, {"src": 1}]


checkpoint_module = importlib.import_module("ascend_p2p_lab.measure.checkpoint")


# -------------------------------------------------------------------- resumable sweeps


@pytest.fixture
def uninterrupted() -> pd.DataFrame:
    with _open(topology=A2x4_EXACT) as rt:
        return sweep(rt, **RESUME)


@pytest.mark.parametrize("k", [0, 1, 5, 11])
def test_a_sweep_killed_after_k_blocks_resumes_where_it_stopped(
    k: int, uninterrupted: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    total = len(
        uninterrupted.samples.groupby(["pattern", "direction", "peer", "path", "src", "dst"])
    )
    assert total == 12  # 4 pairs x (p2p, direct, staged)
    _count_blocks(monkeypatch, stop_after=k)
    with _open(topology=A2x4_EXACT) as rt:
        first = sweep(rt, checkpoint=ckpt, **RESUME)
    assert first.meta.interrupted is True
    assert len(_lines(ckpt)) == 1 + k  # the header, then one line per completed block
    monkeypatch.undo()
    ran = _count_blocks(monkeypatch)
    with _open(topology=A2x4_EXACT) as rt:
        resumed = sweep(rt, checkpoint=ckpt, **RESUME)
    assert len(ran) == total - k and resumed.meta.resumed_blocks == k
    assert resumed.meta.interrupted is False
    assert resumed.meta.blocks == total
    _same_frames(resumed, uninterrupted)
    assert resumed.samples["run_id"].nunique() == (2 if k else 1)
    assert len(_lines(ckpt)) == 1 + total  # not saved anywhere: the checkpoint stays
    ran.clear()
    with _open(topology=A2x4_EXACT) as rt:  # all done: nothing is measured or allocated
        again = sweep(rt, checkpoint=ckpt, **RESUME)
        assert rt.acl.call_counts.get("rt.malloc", 0) == 0
    assert ran == [] and again.meta.resumed_blocks == total
    _same_frames(again, uninterrupted)
    assert again.meta.finished_checkpoint == str(ckpt) and ckpt.exists()
    Run.of(again).save(tmp_path / "run")
    pd.testing.assert_frame_equal(Run.load(tmp_path / "run").samples, again.samples)
    assert not ckpt.exists()  # saved with every block: nothing left to resume
    assert json.loads((tmp_path / "run" / "run.json").read_text())["finished_checkpoint"] is None


def test_a_resumed_sweep_with_jitter_equals_an_uninterrupted_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The jitter draws depend on the point (rt.begin_point), not on the calls before it:
    the same seed gives the same numbers whether or not the sweep was interrupted."""
    assert A2x4.jitter > 0
    both = {**RESUME, "direction": "both"}
    with open_runtime("sim", topology=A2x4, seed=5) as rt:
        whole = sweep(rt, **both)
    with _open(topology=A2x4_EXACT) as rt:
        exact = sweep(rt, **both)
    ratio = whole.samples["bandwidth_GBps"] / exact.samples["bandwidth_GBps"]
    assert (ratio - 1).abs().max() > 1e-3  # the jitter is on and moves the numbers
    ckpt = tmp_path / "sweep.ckpt"
    _count_blocks(monkeypatch, stop_after=7)
    with open_runtime("sim", topology=A2x4, seed=5) as rt:
        assert sweep(rt, checkpoint=ckpt, **both).meta.interrupted is True
    monkeypatch.undo()
    with open_runtime("sim", topology=A2x4, seed=5) as rt:
        resumed = sweep(rt, checkpoint=ckpt, **both)
    assert resumed.meta.resumed_blocks == 7
    _same_frames(resumed, whole)


def test_a_checkpoint_is_compact(tmp_path: Path) -> None:
    """Each block's rows are compressed: the file is a fraction of the rows as JSON."""
    ckpt = tmp_path / "sweep.ckpt"
    with _open(topology=A2x4_EXACT) as rt:
        run = sweep(rt, checkpoint=ckpt, **{**RESUME, "sizes": "4KiB:1MiB", "samples": 4})
    as_json = len(
        json.dumps(checkpoint_module.jsonable_rows(run.samples.to_dict("records")), default=str)
    )
    assert ckpt.stat().st_size * 5 < as_json


def test_a_torn_last_line_is_discarded_and_its_block_measured_again(
    uninterrupted: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    real_append = Checkpoint.append
    appended = {"n": 0}

    def torn_append(self: Checkpoint, block: Any, rows: list[dict[str, Any]]) -> None:
        appended["n"] += 1
        if appended["n"] < 4:
            return real_append(self, block, rows)
        line = json.dumps({"block": block.key, "rows": rows})
        with self.path.open("a") as fh:  # the process dies half-way through the write
            fh.write(line[: len(line) // 2])
        raise KeyboardInterrupt

    monkeypatch.setattr(Checkpoint, "append", torn_append)
    with _open(topology=A2x4_EXACT) as rt:
        sweep(rt, checkpoint=ckpt, **RESUME)
    assert not ckpt.read_bytes().endswith(b"\n")
    monkeypatch.setattr(Checkpoint, "append", real_append)
    ran = _count_blocks(monkeypatch)
    with _open(topology=A2x4_EXACT) as rt:
        resumed = sweep(rt, checkpoint=ckpt, **RESUME)
    assert len(ran) == 12 - 3 and resumed.meta.resumed_blocks == 3
    _same_frames(resumed, uninterrupted)
    lines = _lines(ckpt)  # the torn line is gone, every block is there once
    assert len(lines) == 13 and len({rec["block"] for rec in lines[1:]}) == 12


def test_a_torn_header_starts_over_and_a_foreign_file_is_refused(tmp_path: Path) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    with _open(topology=A2x4_EXACT) as rt:
        sweep(rt, checkpoint=ckpt, **RESUME)
    header = ckpt.read_bytes().split(b"\n")[0]
    ckpt.write_bytes(header[:40])  # the first write was cut short
    with _open(topology=A2x4_EXACT) as rt:
        run = sweep(rt, checkpoint=ckpt, **RESUME)
    assert run.meta.resumed_blocks == 0 and len(_lines(ckpt)) == 13
    for foreign in (b"my notes, no newline", b"name,size\nx,1\n", b'{"a": 1}\n'):
        ckpt.write_bytes(foreign)
        with _open() as rt, pytest.raises(ValueError, match="not an ascend-p2p-lab checkpoint"):
            sweep(rt, checkpoint=ckpt, **RESUME)
        assert ckpt.read_bytes() == foreign  # left as it was


def test_damage_before_the_last_line_is_an_error_that_names_the_line(tmp_path: Path) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    with _open() as rt:
        sweep(rt, checkpoint=ckpt, **RESUME)
    lines = ckpt.read_text().splitlines(keepends=True)
    for damaged, line_no in (
        (lines[2][:30] + "\n", 3),
        ('{"block": 3, "rows": []}\n', 3),
        ('{"block": "x", "rows": [1]}\n', 3),
    ):
        text = "".join([*lines[:2], damaged, *lines[3:]])
        ckpt.write_text(text)
        with _open() as rt:
            with pytest.raises(ValueError, match=f"line {line_no} is damaged"):
                sweep(rt, checkpoint=ckpt, **RESUME)
            assert rt.open_resources() == [] and rt.ledger()["device_buffers"] == 0
        assert ckpt.read_text() == text


@pytest.mark.parametrize(
    "change, named",
    [
        ({"samples": 3}, "samples: 2 in the file, 3 now"),
        ({"sizes": "4KiB"}, "sizes: [4096, 65536] in the file, [4096] now"),
        ({"pairs": "0-1"}, "pairs:"),
        ({"peer": "on"}, "peers: ['on', 'off'] in the file, ['on'] now"),
        ({"verify": False}, "verify: True in the file, False now"),
    ],
)
def test_different_parameters_are_refused_and_the_file_kept(
    change: dict[str, Any], named: str, tmp_path: Path
) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    with _open() as rt:
        sweep(rt, checkpoint=ckpt, **RESUME)
    before = ckpt.read_bytes()
    with _open() as rt:
        with pytest.raises(ValueError, match="different parameters") as info:
            sweep(rt, checkpoint=ckpt, **{**RESUME, **change})
        assert named in str(info.value) and "\n" not in str(info.value)
        assert rt.open_resources() == [] and rt.ledger()["device_buffers"] == 0
    assert ckpt.read_bytes() == before


def test_another_server_or_seed_is_refused(tmp_path: Path) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    with _open() as rt:
        sweep(rt, checkpoint=ckpt, **RESUME)
    with (
        open_runtime("sim", topology=A2x4, seed=7) as rt,
        pytest.raises(ValueError, match="seed: 0 in the file, 7 now"),
    ):
        sweep(rt, checkpoint=ckpt, **RESUME)
    with (
        open_runtime("sim", "atlas800t-a2") as rt,
        pytest.raises(ValueError, match="preset: 'atlas800t-a2-4' in the file"),
    ):
        sweep(rt, checkpoint=ckpt, **RESUME)


def test_a_failed_block_is_not_recorded_and_is_measured_on_resume(tmp_path: Path) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    broken = _err("rt.memcpy_async", 507013, link=[2, 3])
    with _open([broken], topology=A2x4_EXACT) as rt:
        first = sweep(rt, checkpoint=ckpt, **RESUME)
    failed = first.samples[first.samples["error_code"].eq(507013).fillna(False)]
    assert set(failed["error_kind"]) == {"runtime"}
    assert set(failed["error_call"]) == {"acl.rt.memcpy_async"}
    assert set(zip(failed.src, failed.dst)) == {(2, 3)}
    recorded = {rec["block"] for rec in _lines(ckpt)[1:]}
    assert len(recorded) == 11 and not any(key.endswith("/p2p/2-3") for key in recorded)
    with _open(topology=A2x4_EXACT) as rt:
        resumed = sweep(rt, checkpoint=ckpt, **RESUME)
    p2p = resumed.samples[resumed.samples.path == "p2p"]
    assert p2p["bandwidth_GBps"].notna().all() and len(p2p) == 4 * 2 * 2


def test_an_oversized_checkpoint_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ckpt = tmp_path / "sweep.ckpt"
    with _open() as rt:
        sweep(rt, checkpoint=ckpt, **RESUME)
    monkeypatch.setattr(checkpoint_module, "MAX_CHECKPOINT_BYTES", 100)
    with _open() as rt, pytest.raises(ValueError, match="larger than 100 bytes"):
        sweep(rt, checkpoint=ckpt, **RESUME)
