"""The simulator is deterministic, and its shortcuts do not change what it computes.

- The same seed gives the same frame (all but run_id and host; timestamps live in attrs);
  another seed gives other times when the preset has jitter.
- The copy memo (a repeated copy with nothing changed is skipped) never leaves stale
  bytes: a copy after the source, the destination or the buffers changed moves them again.
- The memoized copy plans are dropped when what they depend on changes (peer access,
  streams), and arguments that only compare equal to ints still fail as pyACL fails.
- The engine's batched queue (CopyRun) and its N(0, 1) generator give exactly what one
  Op per copy and ``random.gauss`` give; sparse memory equals a flat bytearray model."""

from __future__ import annotations

import random

import pytest
from simacl import (
    MIB,
    devices,
    finish,
    finish_timed,
    new_acl,
    ok,
    start_timed,
    two_buffers,
)

from ascend_p2p_lab.sim.jitter import _standard_normals, factors


# --------------------------------------------------------------------------- engine
def test_normals_match_random_gauss():
    for seed in (0, 1, 12345):
        rng, mine = random.Random(seed), _standard_normals(random.Random(seed))
        assert [rng.gauss(0.0, 1.0) for _ in range(2001)] == [next(mine) for _ in range(2001)]


@pytest.mark.parametrize("jitter", [0.0, 0.02, 0.9])
def test_factors_are_the_gauss_draws_scaled_and_clamped(jitter):
    """Each copy's time factor, as the engine used to make it from a gauss draw (0.9:
    a third of them clamped at 0.5; 0.0: 1.0 and no draw)."""
    for seed in (0, 7):
        rng, draw = random.Random(seed), factors(random.Random(seed), jitter)
        want = (
            [1.0] * 2001
            if not jitter
            else [
                f if f > 0.5 else 0.5
                for f in (1.0 + jitter * rng.gauss(0.0, 1.0) for _ in range(2001))
            ]
        )
        assert [draw() for _ in range(2001)] == want
        assert (want.count(0.5) > 500) == (jitter == 0.9)


def test_draws_take_the_values_the_calls_give_in_turn() -> None:
    """``draws``: the factors' generator itself (taken from, its calls go on after), and
    for any other callable (no jitter's repeat, a bound method, a function) its values in
    turn; never an object that is not the callable's own iterator."""
    from itertools import islice

    from ascend_p2p_lab.sim.jitter import draws

    draw, again = factors(random.Random(4), 0.3), factors(random.Random(4), 0.3)
    assert draws(draw) is draw.__self__  # the generator: no call per value
    assert [*islice(draws(draw), 5), draw(), draw()] == [again() for _ in range(7)]
    assert list(islice(draws(factors(random.Random(4), 0.0)), 3)) == [1.0] * 3
    rng, twin = random.Random(9), random.Random(9)
    assert list(islice(draws(rng.random), 4)) == [twin.random() for _ in range(4)]
    values = iter([0.5, 2.0, 1.5])
    assert list(islice(draws(lambda: next(values)), 3)) == [0.5, 2.0, 1.5]


def test_the_same_seed_gives_the_same_jittered_times() -> None:
    def one_run(seed: int) -> float:
        acl = new_acl("atlas800t-a2", seed=seed, jitter=0.05)
        with devices(acl, 0, 1, peer=True) as ctx, two_buffers(acl, ctx, 64 * MIB) as (a, b):
            stream = ok(acl.rt.create_stream())
            ms = finish_timed(acl, start_timed(acl, b, a, 64 * MIB, stream))
            ok(acl.rt.destroy_stream(stream))
        finish(acl)
        return ms

    assert one_run(3) == one_run(3)
    assert one_run(3) != one_run(4)
