"""The timing loop (measure/timing.py): how many copies a sample holds, samples that span
the minimum device time, interleaved bidirectional copies, the host-timed and staged
paths, a fallback without aclrtStreamWaitEvent, and that only the timing modules issue
copies.

Each test pins a number, a label or an orientation a user sees, on an asymmetric
fixture (a degraded link, a pair reachable one way only, samples of unequal value), so
that swapping src and dst, two quantiles or two directions cannot pass unnoticed.
See docs/testing.md."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
from helpers import (
    KIB,
    MIB,
    QUICK_2,
    QUICK_6,
    _median_3,
    _without,
)

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import (
    sweep,
)
from ascend_p2p_lab.measure.timing import copies_for
from ascend_p2p_lab.patterns.testfile import read_tests_text


# ----------------------------------------------------------------------- copy engine
def test_copies_for_rounds_up_and_respects_the_cap() -> None:
    assert copies_for(300.0, 1000.0, 1000) == 4  # 3 copies would span 900 us only
    assert copies_for(250.0, 1000.0, 1000) == 4
    assert copies_for(1.0, 1000.0, 10) == 10
    assert copies_for(5000.0, 1000.0, 10) == 1
    assert copies_for(0.0, 1000.0, 10) == 1


# ----------------------------------------------------------------- one timing loop
#: The copy calls of the runtime, and the modules above it that may make them: the timing
#: loop (and a collective's, measure/phasetiming.py) for timed copies; the buffers for
#: their untimed fill.
COPY_CALLS = {"memcpy", "memcpy_async", "enqueue_copies"}
MAY_COPY = {
    "measure/timing.py": COPY_CALLS,
    "measure/phasetiming.py": COPY_CALLS,
    "measure/buffers.py": {"memcpy"},
}


def copy_calls(source: str) -> set[str]:
    """The runtime copy calls a module's source makes (``x.memcpy_async(...)``)."""
    import ast

    return {
        node.func.attr
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in COPY_CALLS
    }


def test_only_the_timing_loop_issues_timed_copies() -> None:
    """docs/architecture.md: every timed copy is issued by measure/timing.py (a
    collective's by measure/phasetiming.py); below them only runtime/ and sim/."""

    package = Path(__file__).resolve().parents[2] / "ascend_p2p_lab"
    found = {}
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package).as_posix()
        if where.startswith(("runtime/", "sim/")):
            continue
        calls = copy_calls(path.read_text(encoding="utf-8")) - MAY_COPY.get(where, set())
        if calls:
            found[where] = sorted(calls)
    assert not found, f"copies issued outside the timing loop: {found}"
    assert copy_calls("rt.enqueue_copies(d, s, 1, st, 2); f(rt.memcpy)") == {"enqueue_copies"}


@pytest.fixture
def a2_2():
    with open_runtime("sim", "atlas800t-a2") as rt:
        yield rt


def test_host_timing_mode_uses_blocking_memcpy(a2_2) -> None:
    run = sweep(a2_2, pairs=[(0, 1)], sizes="4KiB,256MiB", timing="host", samples=2, progress=False)
    assert set(run.samples.timing) == {"host"} and run.samples["host_bound"].isna().all()
    small = run.samples[run.samples.size_bytes == 4 * KIB]
    per_copy = (small.elapsed_us / small.copies).median()
    assert per_copy > 8.0  # api + latency + return on the host clock
    assert _median_3(run.samples[run.samples.size_bytes == 256 * MIB]) == pytest.approx(
        26.2, rel=0.1
    )


def test_samples_span_the_minimum_device_time() -> None:
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        run = sweep(
            rt,
            pairs=[(0, 1)],
            sizes="4KiB,64KiB",
            samples=2,
            warmup=1,
            min_sample_us=500.0,
            patterns=("pair", "local"),
            progress=False,
        )
        # one copy takes about 160 us: between half the minimum and the minimum
        big = sweep(
            rt, pairs=[(0, 1)], sizes="4MiB", samples=2, min_sample_us=250.0, progress=False
        )
    assert run.samples["error"].isna().all() and big.samples["error"].isna().all()
    assert (run.samples["elapsed_us"] >= 500.0).all()
    assert (run.samples["copies"] < 1000).all()
    assert (big.samples["elapsed_us"] >= 250.0).all() and (big.samples["copies"] >= 2).all()


def test_bidirectional_samples_count_the_copies_they_timed() -> None:
    """Sample lengths that need 5, 6 or 9 copies (timed in 4 rounds, so 8, 8 and 12 go
    out): each direction still reads about the one-way rate, not 5/8 of it."""
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        uni = sweep(rt, pairs=[(0, 1)], sizes="1MiB", **QUICK_2).samples["bandwidth_GBps"].median()
        runs = [
            sweep(
                rt,
                pairs=[(0, 1)],
                sizes="1MiB",
                direction="bi",
                samples=2,
                warmup=1,
                min_sample_us=us,
                progress=False,
            )
            for us in (230, 280, 430)
        ]
    for run in runs:
        assert run.samples["error"].isna().all()
        assert run.samples["bandwidth_GBps"].to_numpy() == pytest.approx(uni, rel=0.08)


POINTS = {"pairs": "0-1", "sizes": "4KiB,1MiB", "samples": 2, "progress": False}


def _copies_issued(warmup: int, timing: str) -> int:
    """Every copy a sweep of two points issued (async and blocking), on the simulator."""
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        sweep(rt, warmup=warmup, timing=timing, max_copies=1, **POINTS)
        counts = rt.acl.simulator.call_counts
        return counts.get("rt.memcpy_async", 0) + counts.get("rt.memcpy", 0)


@pytest.mark.parametrize("timing", ["events", "host"])
def test_the_copies_issued_grow_with_the_warmup_asked_for(timing: str) -> None:
    """max_copies=1: a point issues max(warmup, 1) warm-up copies and one per sample, so
    each extra warm-up copy asked for is one more copy per point (2 points)."""
    one = _copies_issued(1, timing)
    assert _copies_issued(0, timing) == one  # one copy is always needed to size a sample
    assert _copies_issued(4, timing) - one == 2 * 3
    assert _copies_issued(9, timing) - one == 2 * 8


def test_bidirectional_copies_are_enqueued_interleaved() -> None:
    """Each direction's copies of a sample go out in rounds of at most ceil(n / 4),
    alternating with the other direction's: on hardware the two directions then overlap
    instead of running one after the other (the simulator would not show it)."""
    trace: list[tuple[int | None, int]] = []
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        real = rt.enqueue_copies

        def spy(dst, src, size, stream, copies):
            trace.append((stream.device, copies))
            return real(dst, src, size, stream, copies)

        rt.enqueue_copies = spy
        run = sweep(
            rt,
            pairs="0-1",
            sizes="1MiB",
            direction="bi",
            samples=2,
            warmup=3,
            min_sample_us=2000.0,
            max_copies=8,
            progress=False,
        )
    n = int(run.samples["copies"].iloc[0])
    assert n == 8 and (run.samples["copies"] == n).all()
    devices = [dev for dev, _ in trace]
    assert all(a != b for a, b in itertools.pairwise(devices))  # strictly alternating
    # the warm-up is a sample of its own (3 copies: pre, 3 rounds of one, post), sized
    # as the samples are; max_copies is reached, so no trial follows
    warm, timed = trace[: 2 * (1 + 3 + 1)], trace[2 * (1 + 3 + 1) :]
    assert {copies for _, copies in warm} == {1}
    assert len(timed) == 2 * 2 * (1 + 4 + 1)  # samples x directions x (pre, 4 rounds, post)
    assert all(copies <= math.ceil(n / 4) for _, copies in timed)


def test_staged_path_falls_back_without_stream_wait_event() -> None:
    with open_runtime("sim") as rt:
        _without(rt, "stream_wait_event")
        run = sweep(rt, pairs="0-1", peer="off", **QUICK_6)
    staged = run.samples[run.samples.path == "staged"]
    assert staged.bandwidth_GBps.notna().all() and staged.error_kind.isna().all()
    assert "acl.rt.stream_wait_event" in run.meta.fallbacks


def test_fan_out_without_stream_wait_event_is_missing_call() -> None:
    with open_runtime("sim") as rt:
        _without(rt, "stream_wait_event")
        run = sweep(rt, patterns="one_to_all", **QUICK_6)
    assert set(run.samples.error_kind) == {"missing_call"}
    assert set(run.samples.error_call) == {"acl.rt.stream_wait_event"}
    assert run.samples.error_code.isna().all()


def test_both_windows_of_a_bidirectional_sample_reach_the_minimum() -> None:
    """With 0->1 at half speed, the faster 1->0 window must still span min_sample_us."""
    with open_runtime("sim", faults=[{"kind": "degrade", "link": [0, 1], "factor": 0.5}]) as rt:
        run = sweep(rt, pairs=[(0, 1)], direction="bi", sizes="16MiB", samples=2, progress=False)
    assert (run.samples.elapsed_us >= 1000.0).all(), run[["src", "dst", "elapsed_us"]]


def test_the_host_enqueue_time_is_in_microseconds_like_the_window() -> None:
    """A slow host (3x) spends most of a 4 KiB window enqueueing, a small share of a 4 MiB
    one: both in microseconds, as the window is."""
    slow = [{"kind": "slow_host", "factor": 3.0}]
    with open_runtime("sim", preset="atlas800t-a2", faults=slow) as rt:
        run = sweep(rt, pairs="0-1", sizes="4KiB,4MiB", samples=1, progress=False)
    share = (run.samples["host_enqueue_us"] / run.samples["elapsed_us"]).tolist()
    assert share[0] > 0.5 and 0.001 < share[1] < 0.5


def test_each_direction_and_each_fan_out_window_is_timed_on_its_own() -> None:
    """0 -> 1 slowed to half: its window is longer than 1 -> 0's; a fan-out window counts
    the copies of one stream (16 MiB to 7 peers: within its nominal, not 7 times it)."""
    slow = [{"kind": "degrade", "link": [0, 1], "factor": 0.5}]
    with open_runtime("sim", preset="atlas800t-a2", faults=slow) as rt:
        bi = sweep(rt, pairs="0-1", sizes="64KiB", samples=1, progress=False, direction="bi")
        fan = sweep(
            rt, pairs="0-1", sizes="16MiB", samples=1, progress=False, patterns="one_to_all"
        )
    window = bi.samples.set_index(["src", "dst"])["elapsed_us"]
    assert window[(0, 1)] > 1.1 * window[(1, 0)]
    rows = fan.samples
    assert len(rows) == 8 and (rows["bandwidth_GBps"] <= rows["nominal_GBps"]).all()


def test_a_tests_transfers_run_at_once_each_on_its_own_stream_and_timer() -> None:
    """0 -> 1 slowed to a quarter beside a healthy 2 -> 3: each transfer's own time gives
    2 -> 3 about four times 0 -> 1's bandwidth, and the window (both at once, each on its
    device's stream) lasts about as long as the slow one, not their sum."""
    text = (
        'schema_version = 1\n[[test]]\nname = "two"\nsizes = ["4MiB"]\n'
        'transfers = ["0->1", "2->3"]\n'
    )
    slow = [{"kind": "degrade", "link": [0, 1], "factor": 0.25}]
    with open_runtime("sim", preset="atlas800t-a2", faults=slow) as rt:
        run = sweep(
            rt, tests=read_tests_text(text, rt.device_count), samples=1, warmup=0, progress=False
        )
    rows = run.samples.set_index(run.samples["transfer"].fillna(-1).astype(int))
    assert rows.loc[1, "bandwidth_GBps"] > 3 * rows.loc[0, "bandwidth_GBps"]
    assert rows.loc[-1, "elapsed_us"] < 1.1 * rows.loc[0, "elapsed_us"]
