"""Which algorithm HCCL runs for an op, a size and a server (cann-hccl's selectors, at
their thresholds), forcing one, and servers outside A2 and A3.

The prediction from links: uniform links give the textbook busbw, one slow pair halves
every mesh op and is named, a ring slows only if it passes through it, shared budgets
bind where the preset says, and the small-size floor is steps x alpha. Fixtures are
asymmetric: the slow pair is slow one way only."""

from __future__ import annotations

import re

import pytest
from helpers import KIB, MIB

from ascend_p2p_lab.collectives import (
    CollectiveError,
    LinkModel,
    choose,
    collective,
    family,
    plan,
    predict,
)
from ascend_p2p_lab.collectives.phases import pairs_used
from ascend_p2p_lab.topology import load_preset


@pytest.fixture(scope="module")
def a2():
    return load_preset("atlas800t-a2")


@pytest.fixture(scope="module")
def a3():
    return load_preset("atlas800t-a3")


def test_a2_all_reduce_small_count_up_to_256_kib(a2) -> None:
    at = choose("all_reduce", 256 * KIB, a2, range(8))
    assert (at.algorithm, at.executor) == ("reduce_bcast", "AllReduceMeshSmallCountExecutor")
    above = choose("all_reduce", 256 * KIB + 4, a2, range(8))
    assert (above.algorithm, above.executor) == ("mesh", "AllReduceMeshOpbaseLoopExecutor")
    assert choose("all_reduce", 16, a2, [3, 6]).algorithm == "reduce_bcast"


@pytest.mark.parametrize(
    "op,executor",
    [
        ("all_gather", "AllGatherMeshOpbaseExecutor"),
        ("reduce_scatter", "ReduceScatterMeshDmaEliminationExecutor"),
        ("all_to_all", "RunAlltoAllDirectFullmesh"),
        ("broadcast", "BroadCastMeshExecutor"),
    ],
)
def test_a2_runs_the_rest_on_the_mesh(a2, op: str, executor: str) -> None:
    for size in (4, 64 * KIB, 256 << 20):
        got = choose(op, size, a2, range(8))
        assert (got.algorithm, got.executor) == ("mesh", executor)


def test_a3_all_reduce_small_count_up_to_512_kib_per_rank(a3) -> None:
    assert choose("all_reduce", 512 * KIB * 16, a3, range(16)).algorithm == "hd"
    big = choose("all_reduce", 512 * KIB * 16 + 4, a3, range(16))
    assert (big.algorithm, big.executor) == (
        "double_ring",
        "AllReduceFastDoubleRingFor91093Executor",
    )
    # the limit scales with the rank count; two ranks never take the small-count path
    assert choose("all_reduce", 512 * KIB * 4, a3, range(4)).algorithm == "hd"
    assert choose("all_reduce", 512 * KIB * 4 + 4, a3, range(4)).algorithm == "double_ring"
    assert choose("all_reduce", 4, a3, [0, 1]).algorithm == "double_ring"


@pytest.mark.parametrize(
    "op,small,large",
    [
        ("all_gather", "AllGatherSmallCount", "AlignedAllGatherDoubleRingFor91093Executor"),
        (
            "reduce_scatter",
            "ReduceScatterDeterExecutor",
            "ReduceScatterFastDoubleRingFor91093Executor",
        ),
    ],
)
def test_a3_gather_and_scatter_by_the_chunk_of_each_rank(
    a3, op: str, small: str, large: str
) -> None:
    """The limit is each rank's chunk, 512 KiB: hccl_test's size / p."""
    at = choose(op, 512 * KIB * 16, a3, range(16))
    assert (at.algorithm, at.executor) == ("mesh", small)
    above = choose(op, 512 * KIB * 16 + 64, a3, range(16))
    assert (above.algorithm, above.executor) == ("double_ring", large)


def test_a3_broadcast_and_all_to_all(a3) -> None:
    assert choose("broadcast", 512 * KIB * 16, a3, range(16)).algorithm == "mesh"
    assert (
        choose("broadcast", 512 * KIB * 16 + 4, a3, range(16)).executor
        == "BroadCastRingFor91093Executor"
    )
    for size in (4, 256 << 20):
        assert choose("all_to_all", size, a3, range(16)).algorithm == "mesh"


def test_families(a2, a3) -> None:
    assert family(a2, range(8)) == "A2" and family(a3, range(16)) == "A3"
    assert family(a3, [0, 1]) == "A3"
    assert family(load_preset("atlas800-9000"), range(8)) == "other"
    assert family(load_preset("atlas800i-a2-pcie"), range(8)) == "other"


def test_forcing_an_algorithm(a2) -> None:
    c = collective("all_gather", 8 << 20, a2, algorithm="ring")
    assert (c.algorithm, c.executor) == ("ring", "")
    assert pairs_used(c) == {(i, (i + 1) % 8) for i in range(8)}
    c = collective("all_gather", 8 << 20, a2, algorithm="ring", order=(0, 1, 2, 5, 3, 4, 6, 7))
    assert (2, 5) in pairs_used(c)
    with pytest.raises(CollectiveError, match="does not build all_to_all"):
        collective("all_to_all", 8 << 20, a2, algorithm="double_ring")


def test_servers_outside_a2_and_a3() -> None:
    a910 = load_preset("atlas800-9000")
    assert choose("all_reduce", 1 << 20, a910, range(4)).algorithm == "mesh"  # one HCCS group
    c = collective("all_reduce", 1 << 20, a910, range(8))
    assert c.algorithm == "ring" and c.executor == ""
    duo = load_preset("atlas300i-duo")
    with pytest.raises(CollectiveError, match="cannot reach peer to peer"):
        collective("all_gather", 1 << 20, duo, range(4))


def test_devices_checked(a2) -> None:
    with pytest.raises(CollectiveError, match="unknown device 8"):
        collective("all_gather", 4096, a2, [0, 8])
    with pytest.raises(CollectiveError, match="at least 2 distinct devices"):
        collective("all_gather", 4096, a2, [3])
    with pytest.raises(CollectiveError, match="unknown operation"):
        collective("gather", 4096, a2)


def test_plan_orders_operations_then_sizes(a2) -> None:
    got = [(c.operation, c.size_bytes) for c in plan(a2, ["broadcast", "all_gather"], [8, 4])]
    assert got == [("broadcast", 8), ("broadcast", 4), ("all_gather", 8), ("all_gather", 4)]


def test_a3_port_budget_binds_one_die_per_card(a3) -> None:
    """A mesh on one die of each card: each die takes 7 copies in over its port (196)."""
    devs = list(range(0, 16, 2))
    c = collective("all_gather", 64 * MIB, a3, devs, algorithm="mesh")
    t = predict(c, LinkModel.from_topology(a3))
    assert re.fullmatch(r"port\[\d+\]:(egress|ingress)", str(t.bottleneck))
    assert t.bottleneck.ties == 16  # every die's port, both ways
    assert t.phases[0].transfer_us == pytest.approx(7 * c.convention.chunk_bytes / 196e3)
