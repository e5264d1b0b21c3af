"""Mutants of ``ascend_p2p_lab/measure/checkpoint.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.checkpoint.checkpoint_uncompressed",
        "measure/checkpoint.py",
        "zlib.compress(json.dumps(rows).encode(), 6)",
        "zlib.compress(json.dumps(rows).encode(), 0)",
        "the checkpoint's rows are not compressed",
    ),
    M(
        "measure.checkpoint.block_twice",
        "measure/checkpoint.py",
        '            if rec["block"] in keys:\n                continue\n',
        "",
        "a checkpoint holding a block twice loads its rows twice",
    ),
]
