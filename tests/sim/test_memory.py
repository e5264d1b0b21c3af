"""The simulator's memory (sim.memory) and the copy shortcuts over it: each leaves exactly
what the general path leaves.

- ``memory.copy_bytes`` of whole chunks takes a shortcut past the general loop; it must
  leave the same chunks (values and their sharing), versions and memo. ``move_bytes``'
  shortcut for a piece inside one chunk on each side leaves the same bytes, versions and memo.
- A memcpy_async repeated with the very same argument objects (as enqueue_copies makes
  it) gives what the checked call gives (return values, host clock, bytes, device times),
  around what must stop a repeat: the destination memset, the source written, peer access
  disabled and enabled again, another current device, a copy of another size, a record
  on the same stream. Chunked copies staged through pinned host memory, kept or all
  checked, leave the same regions.
- The copy memo (a repeated copy with nothing changed is skipped) never leaves stale
  bytes: a copy after the source, the destination or the buffers changed moves them
  again, partial and unaligned copies included.
- Sparse chunked memory equals a flat bytearray model under random writes, fills, copies
  and reads."""

from __future__ import annotations

import hashlib
import random

import pytest

from ascend_p2p_lab.runtime import open_runtime
from ascend_p2p_lab.sim import memory, simulated_acl
from ascend_p2p_lab.sim.devices import CONTEXT_BASE
from ascend_p2p_lab.sim.memory import CHUNK, AddressSpace, ChunkedRegion, copy_bytes


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
    return [
        (
            r.version,
            r.last_copy,
            {
                k: (type(v).__name__, v if isinstance(v, int) else bytes(v))
                for k, v in r.chunks.items()
            },
            [id(v) for v in r.chunks.values() if isinstance(v, bytes)],
        )
        for r in regions
    ]


COPIES = [
    (1, 0, 0, 0, 4 * CHUNK),
    (1, CHUNK, 0, 0, 2 * CHUNK),
    (0, 0, 0, 2 * CHUNK, CHUNK),
    (0, 3 * CHUNK, 0, 0, 2 * CHUNK),  # one buffer, overlapping: in order
    (1, 0, 1, 0, CHUNK),
    (1, 4 * CHUNK, 0, 0, CHUNK),
    (0, 2 * CHUNK, 1, 2 * CHUNK, CHUNK),
]


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


#: (dst, doff, src, soff, n): pieces inside one chunk on each side, from bytes, a fill and
#: a private chunk, into each kind; then pieces that cross a chunk, a whole destination
#: chunk, a region's short last chunk, one region into itself (the general loop's)
PIECES = [
    (1, 4096, 0, 3 * 4096, 4096),
    (1, CHUNK + 100, 0, CHUNK + 7, 5000),
    (0, 2 * CHUNK + 9, 1, 4096 * 5, 300),
    (1, 3 * CHUNK + 1, 0, 2 * CHUNK + 2, 70000),
    (0, 4 * CHUNK - 10, 1, 0, 4096),
    (1, CHUNK, 0, 5, CHUNK),
    (1, 5 * CHUNK + 8, 0, 17, 4000),
    (0, 12, 0, CHUNK + 40, 4096),
]


def _pieces(one_piece: bool, monkeypatch) -> list:
    monkeypatch.setattr(memory, "_ONE_PIECE", one_piece)
    regions = _regions((6 * CHUNK, 5 * CHUNK + 4096))
    states = []
    for d, doff, s, soff, n in PIECES:
        memory.move_bytes(regions[d], doff, regions[s], soff, n)
        states.append([(*x[:3], r.read(0, r.size)) for x, r in zip(_state(regions), regions)])
    monkeypatch.undo()
    return _digested(states)


def _digested(value):
    """value with every bytes object as its length and SHA-256: a failing comparison says
    where in a few lines (pytest's diff of megabytes, untruncated under CI=true, took
    minutes and gigabytes)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return (len(value), hashlib.sha256(value).hexdigest()[:16])
    if isinstance(value, dict):
        return {k: _digested(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_digested(v) for v in value)
    return value


def test_a_piece_inside_one_chunk_gives_what_the_general_loop_gives(monkeypatch):
    """``move_bytes``' shortcut for a copy inside one chunk on each side (a verification
    window) leaves the bytes and versions the general loop leaves."""
    assert _pieces(True, monkeypatch) == _pieces(False, monkeypatch)


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
            for args in (
                (h + off, size - off, a + off, CHUNK, 2, s),
                (b + off, size - off, h + off, CHUNK, 1, s),
                *[(b, size, a, size, 3, s)] * 4,
                (b, size, a, CHUNK, 3, s),
                (b + CHUNK, size - CHUNK, a + 2 * CHUNK, CHUNK, 3, s),  # offsets
                # runs; host-to-host copies of any size share one resources tuple
                *[(h2, size, h, size, 0, s)] * 3,
                (h2, size, h, CHUNK, 0, s),
            ):
                if plain:
                    acl._copies.plans.clear()
                    acl._copies.forget_last()  # the same argument objects: no shortcut either
                assert rt.memcpy_async(*args) == 0
        rt.synchronize_stream(s)  # the host waits for the stream: its clock tells the times
        states.append(
            [
                acl.simulator.host_time_us,
                *((x.version, x.last_copy, x.read(0, size)) for x in regions),
            ]
        )
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
    (a, _), (s, _), (e0, _), (e1, _) = (
        rt.malloc(CHUNK, 0),
        rt.create_stream(),
        rt.create_event(),
        rt.create_event(),
    )
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

    between = [
        lambda: rt.memset(b, CHUNK, 1, 4096),  # the destination changed
        lambda: acl._memory.space.find(a, 1)[0].write(0, b"new"),  # the source
        lambda: (
            rt.device_disable_peer_access(1),
            rt.memcpy_async(*args),  # refused
            rt.device_enable_peer_access(1, 0),
        ),
        lambda: (
            rt.set_context(CONTEXT_BASE + 1),
            rt.memcpy_async(*args),
            rt.set_context(CONTEXT_BASE + 0),
        ),  # refused: another device
        lambda: rt.memcpy_async(*other),
        lambda: rt.record_event(e1, s),
    ]
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
    assert rt.read(dst) == second[: CHUNK + 7] + b"\x5a" * 100 + second[CHUNK + 107 :]


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
    assert got[100 : 100 + n] == data[3 : 3 + n]
    assert got[100 + n :] == b"\xee" * (size - 100 - n)
    rt.write(src, b"\x00" * 50, offset=10)
    rt.memcpy_async(dst, src, n, stream, dst_offset=100, src_offset=3)
    stream.synchronize()
    assert rt.read(dst, n, offset=100) == data[3:10] + b"\x00" * 50 + data[60 : 3 + n]


def test_copy_into_a_new_buffer(pair):
    rt, src, dst, stream, size = pair
    data = _pattern(5, size)
    rt.write(src, data)
    _copy(rt, dst, src, size, stream)
    dst.close()
    fresh = rt.device_buffer(1, size)
    _copy(rt, fresh, src, size, stream)
    assert rt.read(fresh) == data


# --------------------------------------------------------------------------- memory
def test_chunked_memory_matches_a_flat_model():
    rng = random.Random(2024)
    size = 5 * CHUNK + 777
    space = AddressSpace()
    regions = [
        space.add(ChunkedRegion(space.next_base("device", 0, size), size, "device", 0))
        for _ in range(2)
    ]
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
            flat[i][off : off + len(data)] = data
        elif op == "fill":
            off, n = span()
            v = rng.randrange(256)
            regions[i].fill(off, n, v)
            flat[i][off : off + n] = bytes([v]) * n
        elif op == "copy":
            off, n = span()
            soff = off if rng.random() < 0.5 else rng.randrange(0, size - n + 1)
            j = 1 - i
            for _ in range(rng.choice([1, 2])):  # a repeat may be skipped by the memo
                copy_bytes(regions[i], off, regions[j], soff, n)
            flat[i][off : off + n] = flat[j][soff : soff + n]
        else:
            off, n = span()
            assert regions[i].read(off, n) == bytes(flat[i][off : off + n])
    for region, ref in zip(regions, flat):
        assert region.read(0, size) == bytes(ref)
