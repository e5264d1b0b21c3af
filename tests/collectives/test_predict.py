"""The prediction from links: uniform links give the textbook busbw, one slow pair halves
every mesh op and is named, a ring slows only if it passes through it, shared budgets
bind where the preset says, and the small-size floor is steps x alpha. Fixtures are
asymmetric: the slow pair is slow one way only.

Tidy rows of collective timings: the hccl_test import's columns, the prediction beside
a measurement, the bottleneck as a link or a named budget, one row per phase."""

from __future__ import annotations

import math
import time

import pandas as pd
import pytest
from helpers import MIB
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_p2p_lab.collectives import (
    OPERATIONS,
    CollectiveError,
    LinkModel,
    build,
    collective,
    collective_rows,
    convention,
    measured,
    predict,
)
from ascend_p2p_lab.collectives.predict import bound
from ascend_p2p_lab.topology import load_preset


def uniform(n: int, bw: float, slow: dict[tuple[int, int], float] | None = None) -> LinkModel:
    """Links at bw both ways (some ordered pairs scaled), no latency, no barrier, free
    reductions: the bandwidth terms alone."""
    factors = slow or {}
    return LinkModel(
        n,
        lambda s, d, nb, who: bw * factors.get((s, d), 1.0),
        lambda s, d: 0.0,
        lambda s, d: (),
        math.inf,
        0.0,
        0.0,
    )


def _op(op: str, algorithm: str, size: int, p: int, order=None):
    return build(op, algorithm, convention(op, size, p), range(p), order=order)


@settings(max_examples=80, deadline=None)
@given(p=st.integers(2, 16), bw=st.floats(1.0, 500.0), k=st.integers(1, 64))
def test_uniform_mesh_busbw_is_p_minus_1_links(p: int, bw: float, k: int) -> None:
    size = k * 128 * p * 4  # even slices for the all-reduce
    model = uniform(p, bw)
    for op in ("all_gather", "reduce_scatter", "all_reduce"):
        assert predict(_op(op, "mesh", size, p), model).busbw_GBps == pytest.approx((p - 1) * bw)
    # the direct full mesh copies into a rank 8 at a time: two rounds past 9 ranks
    rounds = 1 if p <= 9 else 2
    a2a = predict(_op("all_to_all", "mesh", size, p), model).busbw_GBps
    assert a2a == pytest.approx((p - 1) * bw / rounds)


@settings(max_examples=40, deadline=None)
@given(p=st.integers(2, 16), bw=st.floats(1.0, 500.0))
def test_uniform_rings_busbw_is_one_link_per_ring(p: int, bw: float) -> None:
    model = uniform(p, bw)
    size = 256 * p * 4
    for op in ("all_gather", "reduce_scatter", "all_reduce"):
        assert predict(_op(op, "ring", size, p), model).busbw_GBps == pytest.approx(bw)
        # two rings in opposite directions: two links per rank (on 2 ranks the same one)
        two = predict(_op(op, "double_ring", size, p), model).busbw_GBps
        assert two == pytest.approx(2 * bw if p > 2 else bw)


@settings(max_examples=60, deadline=None)
@given(p=st.integers(3, 16), data=st.data())
def test_one_slow_pair_halves_every_mesh_op_and_is_named(p: int, data) -> None:
    a = data.draw(st.integers(0, p - 1))
    b = data.draw(st.integers(0, p - 1).filter(lambda x: x != a))
    size = 128 * p * 8
    healthy, slow = uniform(p, 50.0), uniform(p, 50.0, {(a, b): 0.5})
    ops = ["all_gather", "reduce_scatter", "all_reduce"] + ["all_to_all"] * (p <= 9)
    for op in ops:  # (past 9 ranks the all-to-all's other round is not slowed)
        c = _op(op, "mesh", size, p)
        t, t0 = predict(c, slow), predict(c, healthy)
        assert t.busbw_GBps == pytest.approx(t0.busbw_GBps / 2)
        assert (t.bottleneck.src, t.bottleneck.dst, t.bottleneck.ties) == (a, b, 1)


@pytest.mark.parametrize("p", [4, 8, 16])
def test_a_ring_slows_only_through_the_slow_pair(p: int) -> None:
    size = 256 * p * 8
    forward = (1, 2)  # the ring 0 -> 1 -> ... passes it
    backward = (2, 1)  # the ring does not; its reverse does
    healthy = predict(_op("all_gather", "ring", size, p), uniform(p, 50.0)).busbw_GBps
    for op in ("all_gather", "reduce_scatter", "all_reduce", "broadcast"):
        ring = _op(op, "ring", size, p)
        base = predict(ring, uniform(p, 50.0))
        through = predict(ring, uniform(p, 50.0, {forward: 0.5}))
        beside = predict(ring, uniform(p, 50.0, {backward: 0.5}))
        assert beside.time_us == pytest.approx(base.time_us)
        assert (through.bottleneck.src, through.bottleneck.dst) == forward
        both = _op(op, "double_ring", size, p)
        slowed = predict(both, uniform(p, 50.0, {backward: 0.5})).time_us
        if op == "broadcast":  # the scatter's first step leaves the root only
            assert through.time_us > 1.5 * base.time_us
            assert slowed > 1.5 * predict(both, uniform(p, 50.0)).time_us
        else:  # every step crosses every hop
            assert through.time_us == pytest.approx(2 * base.time_us)
            assert slowed == pytest.approx(2 * predict(both, uniform(p, 50.0)).time_us)
    assert healthy == pytest.approx(50.0)


# ------------------------------------------------------------------ the presets
@pytest.fixture(scope="module")
def a2():
    return load_preset("atlas800t-a2")


@pytest.fixture(scope="module")
def a3():
    return load_preset("atlas800t-a3")


def test_a2_mesh_ops_within_the_links_bounds(a2) -> None:
    """8 ranks at 256 MiB: 0.6-1.0 x 7 x the HCCS rate (reads reach it; writes run at
    0.755 of it, reductions add a local pass)."""
    model = LinkModel.from_topology(a2)
    bound = 7 * 26.2
    got = {
        op: predict(collective(op, 256 * MIB, a2), model).busbw_GBps
        for op in ("all_gather", "reduce_scatter", "all_to_all")
    }
    assert all(0.6 * bound <= v <= bound for v in got.values()), got
    assert got["all_gather"] == pytest.approx(got["all_to_all"])
    assert got["all_gather"] > 0.98 * bound > got["reduce_scatter"]


def test_a2_degraded_link_2_to_5(a2) -> None:
    model = LinkModel.from_topology(a2)
    slow = model.degraded({(2, 5): 0.5})
    ag = collective("all_gather", 256 * MIB, a2)
    t, t0 = predict(ag, slow), predict(ag, model)
    assert 0.45 <= t.busbw_GBps / t0.busbw_GBps <= 0.6
    assert (t.bottleneck.src, t.bottleneck.dst) == (2, 5)
    ring = collective("all_gather", 256 * MIB, a2, algorithm="ring")  # 0 -> 1 -> ... -> 7
    assert predict(ring, slow).busbw_GBps == pytest.approx(predict(ring, model).busbw_GBps)
    through = collective(
        "all_gather", 256 * MIB, a2, algorithm="ring", order=(0, 1, 2, 5, 3, 4, 6, 7)
    )
    ratio = predict(through, slow).busbw_GBps / predict(through, model).busbw_GBps
    assert 0.45 <= ratio <= 0.6
    assert str(predict(through, slow).bottleneck) == "2->5"


def test_a3_double_ring_is_held_by_the_card_budget(a3) -> None:
    """Each step every card sends two halves out and takes two in over the switch: the
    both-ways budget (542) binds before a link (165) or the egress budget (329)."""
    model = LinkModel.from_topology(a3)
    t = predict(collective("all_reduce", 256 * MIB, a3), model)
    assert t.collective.algorithm == "double_ring"
    half = t.collective.convention.chunk_bytes // 16 // 2
    for phase in t.phases:
        assert phase.bottleneck.budget is not None and phase.bottleneck.budget.endswith(":both")
        assert phase.transfer_us == pytest.approx(4 * half / 542e3)
    assert t.bottleneck.src is None


@pytest.mark.parametrize("preset", ["atlas800t-a2", "atlas800t-a3"])
def test_small_size_floor_is_steps_times_alpha(preset: str) -> None:
    """At 4 bytes a phase costs its barrier and its copies' latency, one more barrier when
    others wrote into a rank or read what it reduces (recursive doubling's partner), and
    a local pass where one follows (none here: A2 and A3 reduce fp32 sums inline); the
    op is the sum."""
    topo = load_preset(preset)
    model = LinkModel.from_topology(topo)
    lat = {lc.latency_us for lc in topo.link_classes.values()}
    assert len(lat) == 1
    alpha = topo.cross_device_wait_us + lat.pop()
    for op in OPERATIONS:
        t = predict(collective(op, 4, topo), model)
        floor = 0.0
        for phase in t.collective.phases:
            reduced = {(r.dst, r.piece) for r in phase.moves if r.reduce}
            waits = any(m.by != m.dst for m in phase.moves) or any(
                m.by != m.src and (m.src, m.piece) in reduced for m in phase.moves
            )
            assert not phase.reduces
            floor += alpha + topo.cross_device_wait_us * waits
        assert t.time_us == pytest.approx(floor, abs=0.05), op


def test_writers_reduce_after_a_barrier(a2) -> None:
    model = LinkModel.from_topology(a2)
    """Writes into a rank cost it one more barrier (it waits on the writers' events),
    reads do not; a local pass follows where HCCL does not reduce inline (int64 sums),
    none where it does (fp32)."""
    mesh = predict(collective("reduce_scatter", MIB, a2, dtype="int64"), model)  # pushes
    ring = predict(
        collective("reduce_scatter", MIB, a2, algorithm="ring", dtype="int64"), model
    )  # reads
    assert mesh.phases[0].barrier_us == 2 * a2.cross_device_wait_us
    assert {p.barrier_us for p in ring.phases} == {a2.cross_device_wait_us}
    assert mesh.phases[0].reduce_us == pytest.approx(
        a2.local_latency_us + 7 * mesh.collective.convention.chunk_bytes / 620e3
    )
    inline = predict(collective("reduce_scatter", MIB, a2), model)
    assert inline.phases[0].barrier_us == 2 * a2.cross_device_wait_us
    assert inline.phases[0].reduce_us == 0.0


def test_the_longest_phase_names_the_bottleneck(a2) -> None:
    t = predict(collective("all_reduce", 64 * MIB, a2), LinkModel.from_topology(a2))
    assert t.phases[0].time_us > t.phases[1].time_us  # writes and the reduction
    assert t.bottleneck.phase == 0
    assert t.time_us == pytest.approx(sum(p.time_us for p in t.phases))


def test_measured_timing() -> None:
    c = build("all_gather", "mesh", convention("all_gather", 4096, 3), (4, 0, 7))
    t = measured(c, [20.0], [[1.0, 2.0, 9.0, 3.0, 4.0, 5.0]], op_us=2.0)
    assert t.time_us == 22.0 and t.source == "measured"
    slow = c.phases[0].moves[2]
    assert (t.bottleneck.src, t.bottleneck.dst) == (slow.src, slow.dst)
    assert t.algbw_GBps == pytest.approx(c.convention.algbw_bytes / 22.0 / 1e3)
    with pytest.raises(CollectiveError, match="phase times"):
        measured(c, [1.0, 2.0])
    with pytest.raises(CollectiveError, match="move times"):
        measured(c, [1.0], [[1.0]])


def test_five_ops_at_eight_sizes_on_16_ranks_well_under_a_second(a3) -> None:
    model = LinkModel.from_topology(a3)
    sizes = [1 << k for k in range(10, 34, 3)]
    start = time.process_time()  # CPU: a loaded machine's waits are not the model's cost
    timings = [predict(collective(op, s, a3), model) for op in OPERATIONS for s in sizes]
    assert len(timings) == 40
    assert time.process_time() - start < 1.0


@pytest.fixture(scope="module")
def a2_2():
    return load_preset("atlas800t-a2")


def test_a_measurement_gets_its_prediction(a2_2) -> None:
    model = LinkModel.from_topology(a2_2)
    ag = collective("all_gather", 8 * MIB, a2_2)
    ring = collective("all_gather", 8 * MIB, a2_2, algorithm="ring")
    predicted = [predict(ag, model), predict(ring, model)]
    seen = measured(ring, [50.0] * 7)
    row = collective_rows([seen], predicted).iloc[0]
    assert row["source"] == "measured" and row["time_us"] == 350.0
    assert row["algorithm"] == "ring"
    assert row["predicted_time_us"] == pytest.approx(predicted[1].time_us)
    assert row["predicted_busbw_GBps"] == pytest.approx(predicted[1].busbw_GBps)
    alone = collective_rows([seen]).iloc[0]
    assert pd.isna(alone["predicted_busbw_GBps"]) and pd.isna(alone["bottleneck_src"])


def test_the_link_bound_prices_a_small_copy_at_a_large_copys_rate(a2) -> None:
    """Measured links slow at small sizes (10 GB/s at 1 MiB, 40 at 256 MiB): the link
    bound of an 8 MiB all-gather is the same as of a 1 GiB one."""
    pairs = [(s, d) for s in range(8) for d in range(8) if s != d]
    links = pd.DataFrame(
        {
            "src": [s for s, _ in pairs for _ in (0, 1)],
            "dst": [d for _, d in pairs for _ in (0, 1)],
            "size_bytes": [MIB, 256 * MIB] * len(pairs),
            "bandwidth_GBps": [10.0, 40.0] * len(pairs),
        }
    )
    m = LinkModel.from_measured(links, a2)
    small = bound(collective("all_gather", 8 * MIB, a2), m).busbw_GBps
    large = bound(collective("all_gather", 1 << 30, a2), m).busbw_GBps
    assert small == pytest.approx(large) and large > 0
