"""Resumable sweeps (``measure/checkpoint.py``): a checkpoint that holds a block twice
never doubles its rows (issue 30 item 24, second half)."""

from __future__ import annotations

import json
from pathlib import Path

from ascend_p2p_lab.measure import sweep_run
from ascend_p2p_lab.measure.checkpoint import Checkpoint, pack_rows, unpack_rows
from ascend_p2p_lab.runtime import open_runtime

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
