"""The simulator is deterministic, and its shortcuts do not change what it computes.

- The same seed gives the same frame (all but run_id and host; timestamps live in attrs);
  another seed gives other times when the preset has jitter.
- The copy memo (a repeated copy with nothing changed is skipped) never leaves stale
  bytes: a copy after the source, the destination or the buffers changed moves them again.
- The memoized copy plans are dropped when what they depend on changes (peer access,
  streams), and arguments that only compare equal to ints still fail as pyACL fails.
- The engine's batched queue (CopyRun) and its N(0, 1) generator give exactly what one
  Op per copy and ``random.gauss`` give; sparse memory equals a flat bytearray model.
"""

from __future__ import annotations

import random

import pandas as pd
import pytest

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.measure.sweep import sweep
from ascend_p2p_lab.runtime import AclError, open_runtime
from ascend_p2p_lab.sim import simulated_acl
from ascend_p2p_lab.sim.engine import Engine
from ascend_p2p_lab.sim.jitter import _standard_normals, factors
from ascend_p2p_lab.sim.memory import CHUNK, AddressSpace, ChunkedRegion, copy_bytes
from ascend_p2p_lab.topology import load_preset

VOLATILE = ["run_id", "host"]


def _run(seed: int, preset: str = "atlas800t-a2", **kw) -> pd.DataFrame:
    params = dict(pairs="0-1,1-0,2-3", sizes="4KiB:4MiB", direction="both", samples=2)
    params.update(kw)
    with open_runtime("sim", preset=preset, seed=seed) as rt:
        frame = sweep(rt, progress=False, **params)
    return frame.drop(columns=VOLATILE)


def test_same_seed_same_frame():
    a, b = _run(7), _run(7)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert a["elapsed_us"].notna().all()


def test_same_seed_same_frame_with_shared_links():
    # fan-out patterns share ports and links: the fluid model resolves them op by op
    # six dies (three cards): SIO and switched peers, ports shared, as on all sixteen
    kw = dict(pairs="0-1", devices="0-5", sizes="4KiB:1MiB", samples=2, direction="uni",
              patterns=("pair", "local", "one_to_all", "all_to_one"))
    a, b = _run(3, "atlas800t-a3", **kw), _run(3, "atlas800t-a3", **kw)
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_other_seed_other_times_when_jittered():
    assert load_preset("atlas800t-a2").jitter > 0
    a, b = _run(1), _run(2)
    assert (a["elapsed_us"].to_numpy() != b["elapsed_us"].to_numpy()).any()
    pd.testing.assert_frame_equal(a.drop(columns=["elapsed_us", "bandwidth_GBps",
                                                  "bidir_total_GBps", "copies",
                                                  "host_enqueue_us", "host_bound"]),
                                  b.drop(columns=["elapsed_us", "bandwidth_GBps",
                                                  "bidir_total_GBps", "copies",
                                                  "host_enqueue_us", "host_bound"]))


def test_seed_does_not_matter_without_jitter():
    topo = load_preset("atlas800t-a2", jitter=0.0)
    frames = []
    for seed in (1, 2):
        with open_runtime("sim", seed=seed, topology=topo) as rt:
            frames.append(sweep(rt, pairs="0-1", sizes="4KiB:64KiB", samples=2,
                                progress=False).drop(columns=VOLATILE))
    pd.testing.assert_frame_equal(frames[0], frames[1], check_exact=True)


# --------------------------------------------------------------------- the copy memo
@pytest.fixture
def pair():
    with open_runtime("sim", preset="atlas800t-a2", seed=0) as rt:
        size = 3 * CHUNK + 4096  # whole chunks and a partial one
        src, dst = rt.device_buffer(0, size), rt.device_buffer(1, size)
        with rt.peer_links([(0, 1), (1, 0)]):
            yield rt, src, dst, rt.stream(0), size


def _copy(rt, dst, src, n, stream, copies=3):
    rt.enqueue_copies(dst, src, n, stream, copies)
    stream.synchronize()


def _pattern(tag: int, n: int) -> bytes:
    return random.Random(tag).randbytes(n)


def test_repeated_copy_after_source_changes(pair):
    rt, src, dst, stream, size = pair
    first = _pattern(1, size)
    rt.write(src, first)
    _copy(rt, dst, src, size, stream)
    assert rt.read(dst) == first
    second = _pattern(2, size)
    rt.write(src, second)  # the source changes; the identical copy must move it again
    _copy(rt, dst, src, size, stream)
    assert rt.read(dst) == second
    rt.write(src, b"\x5a" * 100, offset=CHUNK + 7)  # a few bytes inside one chunk
    _copy(rt, dst, src, size, stream)
    assert rt.read(dst) == second[:CHUNK + 7] + b"\x5a" * 100 + second[CHUNK + 107:]


def test_repeated_copy_after_destination_changes(pair):
    rt, src, dst, stream, size = pair
    data = _pattern(3, size)
    rt.write(src, data)
    _copy(rt, dst, src, size, stream)
    rt.memset(dst, 0)  # the destination is cleared (as a sweep does before each size)
    assert rt.read(dst, 64) == bytes(64)
    _copy(rt, dst, src, size, stream)
    assert rt.read(dst) == data
    rt.write(dst, b"\x01" * 10, offset=5)
    _copy(rt, dst, src, size, stream, copies=1)
    assert rt.read(dst) == data


def test_partial_and_unaligned_copies(pair):
    rt, src, dst, stream, size = pair
    data = _pattern(4, size)
    rt.write(src, data)
    rt.memset(dst, 0xEE)
    n = CHUNK + 12345
    for _ in range(2):  # the same unaligned copy twice: the memo may skip the second
        rt.memcpy_async(dst, src, n, stream, dst_offset=100, src_offset=3)
    stream.synchronize()
    got = rt.read(dst)
    assert got[:100] == b"\xee" * 100
    assert got[100:100 + n] == data[3:3 + n]
    assert got[100 + n:] == b"\xee" * (size - 100 - n)
    rt.write(src, b"\x00" * 50, offset=10)
    rt.memcpy_async(dst, src, n, stream, dst_offset=100, src_offset=3)
    stream.synchronize()
    assert rt.read(dst, n, offset=100) == data[3:10] + b"\x00" * 50 + data[60:3 + n]


def test_copy_into_a_new_buffer(pair):
    rt, src, dst, stream, size = pair
    data = _pattern(5, size)
    rt.write(src, data)
    _copy(rt, dst, src, size, stream)
    dst.close()
    fresh = rt.device_buffer(1, size)
    _copy(rt, fresh, src, size, stream)
    assert rt.read(fresh) == data


# ------------------------------------------------------- memoized plans are invalidated
def test_disabling_peer_access_fails_the_same_copy_again():
    with open_runtime("sim", preset="atlas800t-a2") as rt:
        src, dst = rt.device_buffer(0, 1 << 20), rt.device_buffer(1, 1 << 20)
        stream = rt.stream(0)
        links = rt.peer_links([(0, 1), (1, 0)])
        rt.enqueue_copies(dst, src, 4096, stream, 5)
        links.close()
        with pytest.raises(AclError) as err:
            rt.enqueue_copies(dst, src, 4096, stream, 5)
        assert err.value.code == rt.topology.peer_off_error
        with rt.peer_links([(0, 1), (1, 0)]):
            rt.enqueue_copies(dst, src, 4096, stream, 5)
        stream.synchronize()


def test_memoized_copy_still_checks_its_arguments():
    acl = simulated_acl("atlas800t-a2")
    assert acl.init() == 0
    ctx = {}
    for dev in (1, 0):
        assert acl.rt.set_device(dev) == 0
        ctx[dev], _ = acl.rt.get_context()
    acl.rt.set_context(ctx[1])
    dst, _ = acl.rt.malloc(1 << 20, 0)
    assert acl.rt.device_enable_peer_access(0, 0) == 0
    acl.rt.set_context(ctx[0])
    src, _ = acl.rt.malloc(1 << 20, 0)
    assert acl.rt.device_enable_peer_access(1, 0) == 0
    stream, _ = acl.rt.create_stream()
    args = (dst, 1 << 20, src, 4096, 3, stream)
    for _ in range(3):
        assert acl.rt.memcpy_async(*args) == 0
    with pytest.raises(TypeError):
        acl.rt.memcpy_async(float(dst), 1 << 20, src, 4096, 3, stream)
    with pytest.raises(TypeError):
        acl.rt.memcpy_async(dst, 1 << 20, src, 4096.0, 3, stream)
    with pytest.raises(TypeError, match="an integer is required"):
        acl.rt.memcpy_async(dst, 1 << 20, [src], 4096, 3, stream)
    acl.rt.set_context(ctx[1])  # another current device: the stream belongs to device 0
    assert acl.rt.memcpy_async(*args) == C.ACL_ERROR_RT_STREAM_CONTEXT
    acl.rt.set_context(ctx[0])
    assert acl.rt.memcpy_async(*args) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert acl.rt.destroy_stream(stream) == 0
    assert acl.rt.memcpy_async(*args) == C.ACL_ERROR_RT_PARAM_INVALID
    assert acl.rt.free(dst) == 0
    assert acl.rt.memcpy_async(dst, 1 << 20, src, 4096, 3, 0) == C.ACL_ERROR_RT_PARAM_INVALID
    assert acl.call_counts["rt.memcpy_async"] == 10
    # leave nothing behind
    assert acl.rt.free(src) == 0
    assert acl.rt.device_disable_peer_access(1) == 0
    acl.rt.set_context(ctx[1])
    assert acl.rt.device_disable_peer_access(0) == 0
    assert acl.rt.reset_device(0) == 0
    assert acl.rt.reset_device(1) == 0
    assert acl.finalize() == 0
    assert acl.simulator.ledger_is_empty()


def test_faults_still_fire_on_memoized_copies():
    fault = {"kind": "error", "call": "rt.memcpy_async", "nth": 4, "code": 507013}
    with open_runtime("sim", preset="atlas800t-a2", faults=[fault]) as rt:
        src, dst = rt.device_buffer(0, 1 << 20), rt.device_buffer(1, 1 << 20)
        stream = rt.stream(0)
        with rt.peer_links([(0, 1), (1, 0)]):
            rt.enqueue_copies(dst, src, 4096, stream, 3)
            with pytest.raises(AclError) as err:
                rt.enqueue_copies(dst, src, 4096, stream, 3)
            assert err.value.code == 507013
            rt.enqueue_copies(dst, src, 4096, stream, 3)  # nth=4 fires once
            stream.synchronize()


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
        want = [1.0] * 2001 if not jitter else [
            f if f > 0.5 else 0.5 for f in (1.0 + jitter * rng.gauss(0.0, 1.0)
                                           for _ in range(2001))]
        assert [draw() for _ in range(2001)] == want
        assert (want.count(0.5) > 500) == (jitter == 0.9)


CAP = {("link", 0, 1): 26_200.0, ("link", 1, 0): 26_200.0, ("hbm", 0): 620_000.0,
       ("egress", 0): 30_000.0}


def _engine_times(batched: bool, shared: bool) -> list[float]:
    eng = Engine(CAP, jitter=0.05, seed=11)
    streams = [eng.new_stream(0), eng.new_stream(0)]
    res_a = (("link", 0, 1), ("egress", 0))
    res_b = (("link", 1, 0), ("egress", 0)) if shared else (("hbm", 0),)
    ends = []
    for rnd in range(4):
        for i, (s, res) in enumerate(zip(streams, (res_a, res_b))):
            ev = eng.new_event(0, 0)
            for _ in range(50 + 7 * i):
                if batched:
                    eng.append_copy(s, (1 << 16) * (rnd + 1), res, 8.0)
                else:
                    eng.enqueue_copy(s, (1 << 16) * (rnd + 1), res, 8.0)
                eng.advance_host(4.0)
            eng.enqueue_record(s, ev)
            if rnd % 2:
                eng.resolve()
            ends.append(ev)
    eng.resolve()
    return [e.ts for e in ends] + [s.last_end for s in streams] + [eng.host_us]


@pytest.mark.parametrize("shared", [False, True])
def test_copy_runs_give_the_times_ops_give(shared):
    assert _engine_times(True, shared) == _engine_times(False, shared)


# --------------------------------------------------------------------------- memory
def test_chunked_memory_matches_a_flat_model():
    rng = random.Random(2024)
    size = 5 * CHUNK + 777
    space = AddressSpace()
    regions = [space.add(ChunkedRegion(space.next_base("device", 0, size), size, "device", 0))
               for _ in range(2)]
    flat = [bytearray(size) for _ in regions]

    def span():
        n = rng.choice([1, 4096, CHUNK - 1, CHUNK, 2 * CHUNK, 3 * CHUNK + 5, size])
        n = min(n, size)
        aligned = rng.random() < 0.5
        off = rng.randrange(0, size - n + 1)
        if aligned:
            off = min(off // CHUNK * CHUNK, size - n)
        return off, n

    for _ in range(150):
        op = rng.choice(["write", "fill", "copy", "copy", "read"])
        i = rng.randrange(2)
        if op == "write":
            off, n = span()
            data = rng.randbytes(min(n, 3 * CHUNK))
            regions[i].write(off, data)
            flat[i][off:off + len(data)] = data
        elif op == "fill":
            off, n = span()
            v = rng.randrange(256)
            regions[i].fill(off, n, v)
            flat[i][off:off + n] = bytes([v]) * n
        elif op == "copy":
            off, n = span()
            soff = off if rng.random() < 0.5 else rng.randrange(0, size - n + 1)
            j = 1 - i
            for _ in range(rng.choice([1, 2])):  # a repeat may be skipped by the memo
                copy_bytes(regions[i], off, regions[j], soff, n)
            flat[i][off:off + n] = flat[j][soff:soff + n]
        else:
            off, n = span()
            assert regions[i].read(off, n) == bytes(flat[i][off:off + n])
    for region, ref in zip(regions, flat):
        assert region.read(0, size) == bytes(ref)
