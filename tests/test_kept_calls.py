"""The simulator's kept calls give what the checked calls give, exactly.

``acl.rt.set_context``, ``record_event`` and ``stream_wait_event`` (like
``memcpy_async``) skip their checks when they repeat a successful call; every call not in
``facade.KEEPS_PLANS`` drops what they keep. A script of good and bad calls (repeats,
the wrong current device, a destroyed event, a reset device, equal non-int arguments,
unhashable ones, faults) must give the same return values, messages, call counts, host
clock and device times as the same script with everything kept dropped before each call
(so that every call takes the checked path).

``memory.copy_bytes`` of whole chunks takes a shortcut past the general loop; it must leave
the same chunks (values and their sharing), versions and memo.
"""

from __future__ import annotations

import pytest

from ascend_p2p_lab.sim import memory, simulated_acl
from ascend_p2p_lab.sim.devices import CONTEXT_BASE
from ascend_p2p_lab.sim.memory import CHUNK, AddressSpace, ChunkedRegion, copy_bytes

FAULTS = {
    "none": [],
    "record_error": [{"kind": "error", "call": "rt.record_event", "nth": 4}],
    "wait_error": [{"kind": "error", "call": "rt.stream_wait_event", "nth": 3}],
    "slow_host": [{"kind": "slow_host", "factor": 1.5}],
    "device_lost": [{"kind": "device_lost", "device": 1, "nth": 9}],
}


def _script(faults: list, plain: bool) -> list:
    """Run the script; with ``plain``, drop every kept call before each call."""
    acl = simulated_acl("atlas800t-a2", seed=3, faults=faults)
    rt, sim = acl.rt, acl.simulator
    out: list = []

    def do(fn, *args):
        if plain:  # each table by hand (Copies.clear is under test too)
            for kept in (acl._copies.plans, acl._devices.kept, acl._streams.kept_records,
                         acl._streams.kept_waits):
                kept.clear()
        try:
            got = fn(*args)
        except TypeError as exc:
            got = f"TypeError: {exc}"
        out.append((fn.__name__, args, got, acl.get_recent_err_msg(), sim.host_time_us))
        return got

    ctx0, ctx1 = CONTEXT_BASE, CONTEXT_BASE + 1
    do(acl.init)
    do(rt.set_device, 0)
    (s0, _), (e0, _), (e_end, _) = do(rt.create_stream), do(rt.create_event), \
        do(rt.create_event)
    do(rt.set_device, 1)
    (s1, _), (e1, _) = do(rt.create_stream), do(rt.create_event)
    for _ in range(4):  # the staged copy's pattern, repeated
        do(rt.set_context, ctx0)
        do(rt.record_event, e0, s0)
        do(rt.record_event, e0, 0)  # device 0's default stream
        do(rt.set_context, ctx1)
        do(rt.stream_wait_event, s1, e0)  # across devices
        do(rt.stream_wait_event, s1, e1)  # within one
        do(rt.record_event, e1, s1)
        do(rt.record_event, e0, s0)  # the stream of another device
        do(rt.stream_wait_event, s0, e0)
    for bad in (float(ctx0), True, ctx0 + 99, [ctx0]):
        do(rt.set_context, bad)
    do(rt.set_context, ctx0, 1)
    do(rt.set_context, ctx0)
    for args in ((e0, float(s0)), (e0, [s0]), (e0,), (e1, s0), (e0 + 99, s0)):
        do(rt.record_event, *args)
        do(rt.stream_wait_event, *args[::-1])
    do(rt.record_event, e_end, s0)
    do(rt.synchronize_stream, s0)
    do(rt.set_context, ctx1)
    do(rt.synchronize_stream, s1)
    do(rt.event_elapsed_time, e0, e1)
    do(rt.destroy_event, e1)  # keeps the plans: the kept calls must see it gone
    do(rt.record_event, e1, s1)
    do(rt.stream_wait_event, s1, e1)
    do(rt.set_context, ctx0)
    do(rt.event_elapsed_time, e0, e_end)
    for e in (e0, e_end):
        do(rt.destroy_event, e)
    do(rt.destroy_stream, s0)
    do(rt.set_context, ctx1)
    do(rt.destroy_stream, s1)
    do(rt.reset_device, 1)
    do(rt.set_context, ctx1)  # its device was reset
    do(rt.reset_device, 0)
    do(acl.finalize)
    do(rt.set_context, ctx0)  # after finalize
    out.append(dict(sim.call_counts))
    assert not acl._streams.events and not acl._streams.streams
    return out


@pytest.mark.parametrize("faults", FAULTS.values(), ids=FAULTS.keys())
def test_kept_calls_give_what_the_checked_calls_give(faults):
    kept, plain = _script(faults, plain=False), _script(faults, plain=True)
    assert kept == plain
    times = [step[-1] for step in kept[:-1]]
    assert len(set(times)) > 20  # the clock moved, call by call


def test_the_script_repeats_kept_calls():
    """The fast path really runs: after the first round, repeats find their kept call."""
    acl = simulated_acl("atlas800t-a2")
    rt = acl.rt
    acl.init(), rt.set_device(0), rt.set_device(1)
    (s1, _), (e1, _) = rt.create_stream(), rt.create_event()
    rt.set_context(CONTEXT_BASE + 1), rt.record_event(e1, s1), rt.stream_wait_event(s1, e1)
    assert acl._devices.kept == {CONTEXT_BASE + 1: 1}
    assert acl._streams.kept_records[(e1, s1)] == (acl._streams.events[e1],
                                                   acl._streams.streams[s1])
    assert (s1, e1) in acl._streams.kept_waits
    rt.synchronize_stream(s1), rt.destroy_event(e1), rt.destroy_stream(s1)
    assert not acl._streams.kept_records and not acl._devices.kept  # destroy_stream dropped them
    rt.reset_device(0), rt.reset_device(1), acl.finalize()


# ------------------------------------------------------------------ whole chunks
def _regions(sizes: tuple[int, ...]) -> list[ChunkedRegion]:
    space = AddressSpace()
    out = []
    for i, size in enumerate(sizes):
        r = ChunkedRegion(space.next_base("device", i, size), size, "device", i)
        r.write(0, bytes((i * 7 + k) % 251 for k in range(256)) * (size // 256))
        r.fill(CHUNK, CHUNK, 9)  # chunk 1: a fill, not bytes
        r.write(2 * CHUNK + 5, b"private")  # chunk 2: a private bytearray
        out.append(space.add(r))
    return out


def _state(regions) -> list:
    return [(r.version, r.last_copy,
             {k: (type(v).__name__, v if isinstance(v, int) else bytes(v))
              for k, v in r.chunks.items()},
             [id(v) for v in r.chunks.values() if isinstance(v, bytes)]) for r in regions]


COPIES = [(1, 0, 0, 0, 4 * CHUNK), (1, CHUNK, 0, 0, 2 * CHUNK), (0, 0, 0, 2 * CHUNK, CHUNK),
          (0, 3 * CHUNK, 0, 0, 2 * CHUNK),  # one buffer, overlapping: in order
          (1, 0, 1, 0, CHUNK), (1, 4 * CHUNK, 0, 0, CHUNK), (0, 2 * CHUNK, 1, 2 * CHUNK, CHUNK)]


def _copies(general: bool, monkeypatch) -> list:
    if general:  # no offset is whole: every copy takes the general loop
        monkeypatch.setattr(memory, "_IN_CHUNK", -1)
    regions = _regions((6 * CHUNK, 5 * CHUNK + 4096))
    states = []
    ids: dict[int, int] = {}  # the sharing of chunk objects, by first appearance
    for d, doff, s, soff, n in COPIES:
        copy_bytes(regions[d], doff, regions[s], soff, n)
        state = _state(regions)
        for *_, objs in state:
            objs[:] = [ids.setdefault(o, len(ids)) for o in objs]
        states.append(state)
    monkeypatch.undo()
    return states


def test_whole_chunk_copies_give_what_the_general_loop_gives(monkeypatch):
    fast, general = _copies(False, monkeypatch), _copies(True, monkeypatch)
    assert fast == general
    assert fast[0][1][2][2][0] == "bytes"  # the private chunk was frozen to be shared


def _staged_regions(plain: bool) -> list:
    """Chunked copies through pinned host memory, repeated (kept, or all checked): what
    every region holds after each round (bytes, version, memo)."""
    acl = simulated_acl("atlas800t-a2", seed=5)
    rt = acl.rt
    acl.init(), rt.set_device(0)
    size = 3 * CHUNK
    (a, _), (b, _), (h, _) = rt.malloc(size, 0), rt.malloc(size, 0), rt.malloc_host(size)
    (h2, _) = rt.malloc_host(size)
    (s, _) = rt.create_stream()
    regions = [acl._memory.space.get(p) for p in (a, b, h)]
    states = []
    for r in range(3):
        if r == 2:  # the source changes: the kept copies must move the new bytes
            regions[0].write(5, b"changed")
        for off in (0, CHUNK, 2 * CHUNK):
            for args in ((h + off, size - off, a + off, CHUNK, 2, s),
                         (b + off, size - off, h + off, CHUNK, 1, s),
                         *[(b, size, a, size, 3, s)] * 4, (b, size, a, CHUNK, 3, s),
                         (b + CHUNK, size - CHUNK, a + 2 * CHUNK, CHUNK, 3, s),  # offsets
                         # runs; host-to-host copies of any size share one resources tuple
                         *[(h2, size, h, size, 0, s)] * 3, (h2, size, h, CHUNK, 0, s)):
                if plain:
                    acl._copies.plans.clear()
                    acl._copies.forget_last()  # the same argument objects: no shortcut either
                assert rt.memcpy_async(*args) == 0
        rt.synchronize_stream(s)  # the host waits for the stream: its clock tells the times
        states.append([acl.simulator.host_time_us,
                       *((x.version, x.last_copy, x.read(0, size)) for x in regions)])
    assert plain or (h, size, a, CHUNK, 2, s) in acl._copies.plans
    rt.synchronize_stream(s), rt.destroy_stream(s)
    rt.free(a), rt.free(b), rt.free_host(h), rt.free_host(h2)
    rt.reset_device(0), acl.finalize()
    return states


def _repeats(plain: bool) -> list:
    """One memcpy_async repeated with the very same argument objects (as enqueue_copies
    makes it), around what must stop a repeat from reusing what it kept: the destination
    memset, the source written, peer access disabled and enabled again, another device
    current, copies of another size and records on the same stream. With ``plain`` every
    call takes the checked path. What each call returns, the host clock, the bytes and
    the device times (events) must be the same."""
    acl = simulated_acl("atlas800t-a2", seed=9)
    rt, sim = acl.rt, acl.simulator
    acl.init(), rt.set_device(1), rt.set_device(0)
    rt.device_enable_peer_access(1, 0), rt.set_context(CONTEXT_BASE + 1)
    rt.device_enable_peer_access(0, 0), rt.set_context(CONTEXT_BASE + 0)
    (a, _), (s, _), (e0, _), (e1, _) = (rt.malloc(CHUNK, 0), rt.create_stream(),
                                        rt.create_event(), rt.create_event())
    rt.set_context(CONTEXT_BASE + 1)
    (b, _), (h, _) = rt.malloc(CHUNK, 0), rt.malloc_host(CHUNK)  # b on device 1
    rt.set_context(CONTEXT_BASE + 0)
    rt.memset(a, CHUNK, 7, CHUNK)
    args, other = (b, CHUNK, a, 4096, 3, s), (b, CHUNK, a, 8192, 3, s)
    out: list = []

    def do(fn, *call):
        if plain:
            acl._copies.plans.clear()
            acl._copies.forget_last()
        out.append((fn.__name__, fn(*call), sim.host_time_us))

    between = [lambda: rt.memset(b, CHUNK, 1, 4096),  # the destination changed
               lambda: acl._memory.space.find(a, 1)[0].write(0, b"new"),  # the source
               lambda: (rt.device_disable_peer_access(1), rt.memcpy_async(*args),  # refused
                        rt.device_enable_peer_access(1, 0)),
               lambda: (rt.set_context(CONTEXT_BASE + 1), rt.memcpy_async(*args),
                        rt.set_context(CONTEXT_BASE + 0)),  # refused: another device
               lambda: rt.memcpy_async(*other), lambda: rt.record_event(e1, s)]
    for step in [None, *between, None]:
        rt.record_event(e0, s)
        for _ in range(3):
            do(rt.memcpy_async, *args)
        if step is not None:
            out.append(("between", step(), sim.host_time_us))
        do(rt.memcpy_async, *args)
        rt.record_event(e1, s), rt.synchronize_stream(s)
        out.append((rt.event_elapsed_time(e0, e1), sim.host_time_us))
        rt.memcpy(h, CHUNK, b, 4096, 2)
        out.append(acl.util.ptr_to_bytes(h, 4096))
    out.append(dict(sim.call_counts))
    rt.destroy_event(e0), rt.destroy_event(e1), rt.destroy_stream(s)
    rt.free(a), rt.free(b), rt.free_host(h), rt.device_disable_peer_access(1)
    rt.set_context(CONTEXT_BASE + 1), rt.device_disable_peer_access(0)
    rt.reset_device(0), rt.reset_device(1), acl.finalize()
    return out


def test_repeats_with_the_same_objects_give_what_the_checked_calls_give():
    kept, plain = _repeats(False), _repeats(True)
    assert kept == plain
    assert kept[-2][:3] == b"new"  # the written source arrived
    between = [step[1] for step in kept if isinstance(step, tuple) and step[0] == "between"]
    assert between[2][1] != 0  # peer access off: the same call is refused
    assert between[3][1] != 0  # on another device the same call is refused (its stream's)


def test_kept_copies_leave_the_regions_the_checked_copies_leave():
    kept, plain = _staged_regions(False), _staged_regions(True)
    assert kept == plain
    assert kept[2][2][2][5:12] == b"changed"


# ------------------------------------------------------------------ blocking copies
def _blocking_script(general: bool) -> list:
    """Synchronous copies and memsets (verification reads, clears), some while async work
    is pending; with ``general``, an idle stream stays marked busy so that every blocking
    copy goes through the engine's resolve instead of its direct path."""
    acl = simulated_acl("atlas800t-a2", seed=11)
    rt, sim, eng = acl.rt, acl.simulator, acl._engine
    acl.init(), rt.set_device(0), rt.set_device(1)
    rt.device_enable_peer_access(0, 0)
    rt.set_context(CONTEXT_BASE + 0), rt.device_enable_peer_access(1, 0)
    size = 2 * CHUNK
    (a, _), (h, _), (s, _) = rt.malloc(size, 0), rt.malloc_host(size), rt.create_stream()
    rt.set_context(CONTEXT_BASE + 1)
    (b, _) = rt.malloc(size, 0)
    idle = eng.new_stream(0)
    out = []
    for r in range(3):
        rt.set_context(CONTEXT_BASE + r % 2)
        if general:
            eng._busy.add(idle)
        steps = [(rt.memcpy, h, size, a, 4096 << r, 2), (rt.memcpy, a + 8192, size - 8192, h,
                 100 + r, 1), (rt.memcpy, b, size, a, CHUNK, 3), (rt.memcpy, h, size, h + 7,
                 999, 0), (rt.memset, a, size, r, 3 * 4096), (rt.memset, h, size, 9, CHUNK)]
        if r == 1:  # async work pending: both runs resolve it with the blocking copy
            rt.set_context(CONTEXT_BASE + 0)
            steps.insert(2, (rt.memcpy_async, b, size, a, size, 3, s))
        for fn, *args in steps:
            out.append((fn.__name__, fn(*args), sim.host_time_us,
                        len(acl._streams.streams[s].pending)))
    rt.set_context(CONTEXT_BASE + 0)
    out.append((rt.synchronize_stream(s), sim.host_time_us, acl.util.ptr_to_bytes(h, 64)))
    eng._busy.discard(idle)
    eng.drop_stream(idle)
    rt.destroy_stream(s), rt.free(a), rt.free(b), rt.free_host(h)
    rt.device_disable_peer_access(1), rt.set_context(CONTEXT_BASE + 1)
    rt.device_disable_peer_access(0), rt.reset_device(0), rt.reset_device(1), acl.finalize()
    return out


def test_blocking_copies_take_the_times_the_engine_resolve_gives():
    direct, general = _blocking_script(False), _blocking_script(True)
    assert direct == general
    assert len({step[2] for step in direct[:-1]}) == len(direct) - 1  # each copy took time
    # the blocking copy after the async one resolved it (they share the link), as the
    # general path does: the direct path is only for an engine with nothing pending
    queued = [i for i, step in enumerate(direct) if step[0] == "memcpy_async"]
    assert [direct[i][3] for i in queued] == [1] and direct[queued[0] + 1][3] == 0


# ------------------------------------------------------------------ calls without faults
def _timed_calls(faults: list) -> list:
    """The calls a sample makes, with the host clock after each: with ``faults``, every
    call takes its faults branch (fault(), host() with the slow_host factor)."""
    acl = simulated_acl("atlas800t-a2", seed=4, faults=faults)
    rt, sim = acl.rt, acl.simulator
    acl.init(), rt.set_device(0)
    (a, _), (b, _), (h, _) = rt.malloc(CHUNK, 0), rt.malloc(CHUNK, 0), rt.malloc_host(CHUNK)
    (s, _), (e0, _), (e1, _) = rt.create_stream(), rt.create_event(), rt.create_event()
    out = []
    for n in (1, 5, 40):
        steps = [(rt.record_event, e0, s), *[(rt.memcpy_async, b, CHUNK, a, 4096 * n, 3, s)]
                 * n, (rt.record_event, e1, s), (rt.synchronize_event, e1),
                 (rt.event_elapsed_time, e0, e1), (rt.memcpy_async, b, CHUNK, a, 64, 3, s),
                 (rt.synchronize_stream, s), (rt.memcpy, h, CHUNK, b, 4096, 2),
                 (rt.memset, b, CHUNK, 0, 4096 * n), (rt.synchronize_device,)]
        for fn, *args in steps:
            out.append((fn.__name__, fn(*args), sim.host_time_us))
    rt.destroy_event(e0), rt.destroy_event(e1), rt.destroy_stream(s)
    rt.free(a), rt.free(b), rt.free_host(h), rt.reset_device(0), acl.finalize()
    return out


def test_calls_without_faults_charge_what_their_faults_branch_charges():
    """A slow_host fault of factor 1.0 sends every call through fault() and host() and
    changes nothing: the shortcuts taken without faults must give the same clock."""
    plain = _timed_calls([])
    assert plain == _timed_calls([{"kind": "slow_host", "factor": 1.0}])
    assert all(step[1] in (0, (0, 0)) or step[1][1] == 0 for step in plain)
