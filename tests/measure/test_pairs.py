"""Bad input: each gets one clear line, nothing is allocated, the command line exits 2.

Through the library, the command line (in process, and once as a real process) and the
widgets; then property tests (hypothesis) of size parsing, topology TOML parsing and the
save/load round trip. The npu-smi text format -> parse round trip of random topologies is
in tests/test_npu_smi.py and is not repeated here.

The measurement engine on the simulator: probes, peer links and sweeps."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from helpers import refused

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import (
    parse_pairs,
    sweep,
)
from ascend_p2p_lab.runtime import Runtime

QUICK: dict[str, Any] = {
    "samples": 1,
    "warmup": 1,
    "min_sample_us": 20.0,
    "max_copies": 2,
    "progress": False,
}


@pytest.fixture
def a2() -> Iterator[Runtime]:
    with open_runtime("sim", "atlas800t-a2") as rt:
        yield rt


@pytest.mark.parametrize(
    "pairs, match",
    [
        ("0-0", "same device"),
        ([(2, 2)], "same device"),
        ("0-8", "out of range 0..7"),
        ([(0, -1)], "out of range"),
        ("0:1", "cannot read pair '0:1'"),
        ("0-1,", "cannot read pair ''"),
        ([(0, 1, 2)], "must be two ints"),
        ([("0", "1")], "must be two ints"),
        ([], "the pair list is empty"),
        ("", "cannot read pair ''"),
    ],
)
def test_bad_pairs_are_refused_before_anything_is_allocated(
    a2: Runtime, pairs: Any, match: str
) -> None:
    refused(a2, lambda: sweep(a2, pairs=pairs, sizes="4KiB", **QUICK), match=match)
    with pytest.raises((ValueError, TypeError)):
        parse_pairs(pairs, 8)


def test_parse_pairs() -> None:
    assert parse_pairs("all", 8) is None
    assert parse_pairs("0-1, 1-0", 8) == [(0, 1), (1, 0)]
    for bad in ("0-0", "0-8", "-1-2", "0:1", ""):
        with pytest.raises(ValueError):
            parse_pairs(bad, 8)
