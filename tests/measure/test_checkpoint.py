"""Reliability: injected faults against every operation, Ctrl-C at chosen points, resumable
sweeps, and a second sweep or a second thread at the same time.

The guarantees under test (docs/reliability.md has the table):

- after any failure, and after a KeyboardInterrupt, every buffer, stream and event the
  operation made is released, peer access is as it was before, and the runtime then
  closes to an empty simulator ledger (tests/conftest.py checks that last part too);
- the rows measured before a failure are returned (in ``exc.partial_frame`` when the
  operation raises) and, when ``out=`` was given, saved;
- every error names the ACL call, the code, its symbolic name and the runtime's message.

Faults are injected by the simulator (``open_runtime(..., faults=[...])``); interrupts by
wrapping one ``acl.rt`` function so that its Nth call raises KeyboardInterrupt *before*
reaching the simulator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import _lines, _open

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import (
    sweep,
    sweep_run,
)
from ascend_p2p_lab.measure.checkpoint import Checkpoint, pack_rows, unpack_rows

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
        return sweep_run(rt, checkpoint=path, **_SWEEP)


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
