"""Streams tied only by event waits run alone, one after the other (Engine._run_linked),
with the times the fluid model gives them; the host-staged copy takes that path."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.runtime import open_runtime
from ascend_p2p_lab.sim import engine as engine_mod
from ascend_p2p_lab.sim.engine import WAITS, Engine

#: One resource per stream (disjoint: nothing shared), different rates, so that a wait
#: on the wrong record or a missing wait moves the times.
CAPACITY = {("link", 0): 100.0, ("link", 1): 37.0, ("link", 2): 250.0}

# a step: (stream, what, amount): a copy of amount bytes, a record of event amount,
# a wait on event amount, or the host moving on by amount microseconds
step = st.tuples(st.integers(0, 2), st.sampled_from(["copy", "record", "wait", "host"]),
                 st.integers(1, 5000))


def _play(steps: list[tuple[int, str, int]], *, fluid: bool, jitter: float) -> list[float]:
    eng = Engine(capacity=CAPACITY, jitter=jitter, seed=7)
    streams = [eng.new_stream(i) for i in range(3)]
    events = [eng.new_event(0, 0) for _ in range(3)]
    ops = []
    for i, what, amount in steps:
        s = streams[i]
        if what == "copy":
            ops.append(eng.enqueue_copy(s, amount, (("link", i),), latency_us=1.5 + i))
        elif what == "record":
            ops.append(eng.enqueue_record(s, events[amount % 3]))
        elif what == "wait":
            ops.append(eng.enqueue_wait(s, events[amount % 3]))
        else:
            eng.advance_host(amount / 100.0)
    if fluid:
        eng._independent = lambda streams: False  # type: ignore[method-assign]
    eng.resolve()
    return [op.end for op in ops] + [s.last_end for s in streams]


@settings(max_examples=150, deadline=None)
@given(steps=st.lists(step, min_size=1, max_size=40), jitter=st.sampled_from([0.0, 0.05]))
def test_streams_tied_by_waits_get_the_fluid_models_times(steps, jitter) -> None:
    fast = _play(steps, fluid=False, jitter=jitter)
    slow = _play(steps, fluid=True, jitter=jitter)
    assert fast == pytest.approx(slow, rel=1e-12, abs=1e-12)


def test_a_wait_holds_its_stream_until_the_record_on_another() -> None:
    eng = Engine(capacity=CAPACITY)
    a, b = eng.new_stream(0), eng.new_stream(1)
    ev = eng.new_event(0, 0)
    eng.enqueue_copy(a, 1000, (("link", 0),), latency_us=0.0)  # 10 us
    eng.enqueue_record(a, ev)
    wait = eng.enqueue_wait(b, ev)
    after = eng.enqueue_copy(b, 370, (("link", 1),), latency_us=0.0)  # 10 us
    assert eng._independent([b, a]) is WAITS
    eng.resolve()
    # b is resolved first in the list, yet starts after a's record
    assert wait.start == 10.0 and after.start == 10.0 and after.end == 20.0


def test_the_staged_copy_runs_without_the_fluid_model(monkeypatch) -> None:
    def refuse(*_args, **_kw):
        raise AssertionError("the fluid model ran")

    monkeypatch.setattr(engine_mod, "run_fluid", refuse)
    with open_runtime("sim", "atlas800t-a2", announce=False) as rt:
        run = sweep(rt, pairs="0-1", peer="off", sizes="64KiB,16MiB", samples=2,
                    progress=False)
    staged = run[run["path"] == "staged"]
    assert len(staged) == 4 and staged["bandwidth_GBps"].gt(0).all()
    assert staged["verified"].all()


def test_a_wait_no_run_can_satisfy_is_left_to_the_fluid_model() -> None:
    def play(fluid: bool) -> list[float]:
        eng = Engine(capacity=CAPACITY)
        a, b = eng.new_stream(0), eng.new_stream(1)
        ev = eng.new_event(0, 0)
        ev.record_op = engine_mod.Op("record", eng.new_stream(2), 0.0)  # never queued
        eng.enqueue_copy(a, 1000, (("link", 0),), latency_us=0.0)
        stuck = eng.enqueue_wait(b, ev)
        after = eng.enqueue_copy(b, 370, (("link", 1),), latency_us=0.0)
        if fluid:
            eng._independent = lambda streams: False  # type: ignore[method-assign]
        eng.resolve()
        assert not a.pending and not b.pending
        return [stuck.end, after.end, a.last_end]

    assert play(fluid=False) == play(fluid=True) == [10.0, 20.0, 10.0]


# ------------------------------------------------------------------ the clock's origin per point
def test_rebase_refuses_while_a_stream_is_busy_and_shifts_events_when_idle() -> None:
    eng = Engine(capacity=CAPACITY)
    a = eng.new_stream(0)
    ev = eng.new_event(0, 0)
    eng.advance_host(1234.5678)
    eng.enqueue_copy(a, 1000, (("link", 0),), latency_us=0.0)  # 10 us, ends at 1244.5678
    eng.enqueue_record(a, ev)
    assert eng.rebase([ev]) is False  # the copy ends after the host's now
    assert eng.host_us == 1234.5678 and eng.epoch_ns == 0
    eng.wait_host_until(eng.stream_done_at(a))
    before_ns = eng.epoch_ns + int(ev.ts * 1000)
    assert eng.rebase([ev]) is True
    assert eng.host_us == 0.0 and a.last_end == 0.0
    assert eng.epoch_ns == int(1244.5678 * 1000)
    assert ev.ts == pytest.approx(0.0, abs=1e-9) and ev.record_op.end == ev.ts
    assert eng.epoch_ns + int(ev.ts * 1000) == pytest.approx(before_ns, abs=1)
    # a wait on the old record, and a copy after it, start at the new origin
    b = eng.new_stream(1)
    wait = eng.enqueue_wait(b, ev)
    after = eng.enqueue_copy(b, 370, (("link", 1),), latency_us=0.0)
    eng.resolve()
    assert wait.start == pytest.approx(0.0, abs=1e-9) and after.end == pytest.approx(10.0)


def test_a_points_rows_do_not_depend_on_what_ran_before_it() -> None:
    """Every pattern's rows, to the bit, whether the sweep runs first in a fresh
    simulator or after another sweep (a point starts at the clock's origin)."""
    kw = dict(devices="0,1,2,3", sizes="4KiB,16MiB", direction="both", peer="both",
              samples=2, progress=False,
              patterns=["pair", "local", "latency", "one_to_all", "all_to_one", "h2d", "d2h"])
    with open_runtime("sim", "atlas800t-a2", seed=3, announce=False) as rt:
        first = sweep(rt, **kw)
    with open_runtime("sim", "atlas800t-a2", seed=3, announce=False) as rt:
        sweep(rt, pairs="5-6,7-4", sizes="1MiB", samples=3, progress=False)  # a history
        later = sweep(rt, **kw)
    cols = [c for c in first.columns if c != "run_id"]
    assert first["path"].eq("staged").any() and first["elapsed_us"].notna().sum() > 100
    pd.testing.assert_frame_equal(first[cols], later[cols], check_exact=True)
