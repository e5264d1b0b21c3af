"""The one table of nccl-tests bus-bandwidth factors, and busbw = algbw x factor on every
op the collectives predict.

The importers on captures written in the tools' formats (tests/data/vendor, README there).

Fixtures are asymmetric (2->5 lowered, 5->2 not; every row of a matrix different), so a
parser that swaps rows and columns, drops a unit or reads by position fails here."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.collectives import OPERATIONS, LinkModel, collective, predict
from ascend_p2p_lab.collectives import busbw as B
from ascend_p2p_lab.imports import (
    bus_factor,
    hccl_test,
)
from ascend_p2p_lab.topology import load_preset

#: nccl-tests doc/PERFORMANCE.md, written out per op (not through the table under test).
NCCL_TESTS = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "all_to_all": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
}


@pytest.mark.parametrize("n", [2, 3, 8, 16])
@pytest.mark.parametrize("op", sorted(NCCL_TESTS))
def test_factors_are_nccl_tests(op: str, n: int) -> None:
    assert B.bus_factor(op, n) == pytest.approx(NCCL_TESTS[op](n))


def test_all_reduce_counts_both_halves() -> None:
    """All-reduce moves the data twice: its factor is twice all-gather's."""
    for n in range(2, 17):
        assert B.bus_factor("all_reduce", n) == pytest.approx(2 * B.bus_factor("all_gather", n))


def test_hccl_test_import_uses_the_same_table() -> None:
    assert hccl_test.BUS_FACTORS is B.BUS_FACTORS
    assert hccl_test.bus_factor is B.bus_factor


def test_bad_operation_and_ranks() -> None:
    with pytest.raises(ValueError, match="no bus-bandwidth factor"):
        B.bus_factor("all_to_one", 8)
    with pytest.raises(ValueError, match="at least 1"):
        B.bus_factor("all_reduce", 0)


@pytest.mark.parametrize(
    "preset,ranks", [("atlas800t-a2", 8), ("atlas800t-a3", 16), ("atlas800t-a3", 5)]
)
@pytest.mark.parametrize("size", [4096, 3 << 20, 256 << 20])
def test_algbw_times_factor_is_busbw_for_every_op(preset: str, ranks: int, size: int) -> None:
    topo = load_preset(preset)
    model = LinkModel.from_topology(topo)
    for op in OPERATIONS:
        t = predict(collective(op, size, topo, range(ranks)), model)
        assert t.busbw_GBps == pytest.approx(t.algbw_GBps * NCCL_TESTS[op](ranks), rel=1e-12)
        # algbw is hccl_test's bytes over the time
        assert t.algbw_GBps == pytest.approx(
            t.collective.convention.algbw_bytes / t.time_us / 1e3, rel=1e-12
        )


@pytest.mark.parametrize(
    "op,n,factor",
    [
        ("all_reduce", 8, 1.75),
        ("all_reduce", 2, 1.0),
        ("all_gather", 8, 0.875),
        ("reduce_scatter", 4, 0.75),
        ("all_to_all", 16, 15 / 16),
        ("broadcast", 8, 1.0),
        ("reduce", 8, 1.0),
        ("scatter", 4, 1.0),
    ],
)
def test_bus_factors_of_nccl_tests(op, n, factor):
    assert bus_factor(op, n) == pytest.approx(factor)
