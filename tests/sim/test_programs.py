"""``acl.simulator.run_program`` and ``repeat_copy`` (sim/programs.py, sim/actions.py):
the same state, to the bit, as the calls one by one, and the plain path where they may not.

Each test runs the same work on two runtimes of the same seed (jitter on): one as the
toolkit runs it, one with the simulator's batched calls declined (``Programs.run`` and
``Programs.repeat_copy`` answering None, so the runtime makes every call itself), and
compares everything the calls leave: the host clock, the call counts, each stream's last
end, each event's time, the bytes and versions of every buffer, the next jitter draws.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from ascend_p2p_lab.runtime import open_runtime
from ascend_p2p_lab.sim.faults import Fault
from ascend_p2p_lab.sim.programs import Programs

M = 1 << 20


def _state(rt, bufs, events) -> dict:
    acl = rt.acl
    eng = acl._engine
    regions = [acl._router.space.find(b.ptr, 1)[0] for b in bufs]
    return {
        "host_us": eng.host_us,
        "counts": dict(acl.simulator.call_counts),
        "streams": [(s.id, s.last_end, s.limit, len(s.pending)) for s in eng._streams],
        "events": [
            (e.ts, e.limit, e.record_op and (e.record_op.enq, e.record_op.end)) for e in events
        ],
        "versions": [(r.version, r.last_copy) for r in regions],
        "bytes": [rt.read(b) for b in bufs],
        "busy": sorted(s.id for s in eng._busy if s.pending),
        "current": acl._devices.tls.device,
        "draws": [eng.next_factor() for _ in range(3)],
    }


def _staged_work(
    rt, size: int, chunk: int, counts: list[int], wait: bool = True, touch: bool = False
) -> dict:
    """Staged copies 2 -> 5 of several counts through a pinned buffer (asymmetric: the
    source holds distinct bytes; ``touch``: new bytes before each program), then the
    state they leave."""
    with (
        rt.device_buffer(2, size) as src,
        rt.device_buffer(5, size) as dst,
        rt.host_buffer(size) as host,
    ):
        rt.write(src, bytes(range(7, 251)) * (size // 244) + b"x" * (size % 244))
        s_src, s_dst, relay = rt.stream(2), rt.stream(5), rt.event(2)
        for i, n in enumerate(counts):
            if touch:
                rt.memset(src, i + 1, 4096)  # a call that keeps the kept copies
            rt.enqueue_staged(
                dst, host, src, size, (s_src, s_dst), relay, n, chunk=chunk,
                wait_on_device=wait, synchronize=True,
            )  # fmt: skip
        state = _state(rt, [src, dst, host], [rt.acl._streams.events[relay.handle]])
        relay.close(), s_src.close(), s_dst.close()
    return state


def _plain(monkeypatch) -> None:
    monkeypatch.setattr(Programs, "run", lambda self, *a: None)
    monkeypatch.setattr(Programs, "repeat_copy", lambda self, *a: None)


def _both(monkeypatch, work, **sim) -> tuple[dict, dict, int]:
    """work(rt) at once and call by call; the states and the programs computed at once."""
    ran = []
    real = Programs._execute
    monkeypatch.setattr(Programs, "_execute", lambda self, *a: ran.append(1) or real(self, *a))
    with open_runtime("sim", "atlas800t-a2", seed=11, **sim) as rt:
        fast = work(rt)
    with monkeypatch.context() as m:
        _plain(m)
        with open_runtime("sim", "atlas800t-a2", seed=11, **sim) as rt:
            slow = work(rt)
    return fast, slow, len(ran)


@pytest.mark.parametrize(
    ("size", "chunk", "counts"),
    [
        (4096, 4096, [2, 7, 30]),  # one chunk a copy
        (3 * M + 4096, M, [1, 2, 5, 3]),  # three whole chunks and a piece
        (4 * M, M, [2, 9]),  # whole chunks: the later passes only count versions
    ],
)
def test_a_staged_program_at_once_leaves_what_its_calls_leave(monkeypatch, size, chunk, counts):
    fast, slow, computed = _both(monkeypatch, lambda rt: _staged_work(rt, size, chunk, counts))
    assert computed >= len(counts) - 1  # the first program may make its calls
    assert fast == slow


def test_bytes_changed_between_programs_are_moved_again(monkeypatch):
    """A program finds the bytes as its last run left them: its first pass moves none
    again; the source written in between: it moves them."""
    work = lambda rt: _staged_work(rt, 4 * M, M, [2, 3, 2, 4], touch=True)  # noqa: E731
    fast, slow, computed = _both(monkeypatch, work)
    assert computed >= 3 and fast == slow


def test_without_a_wait_on_the_device_the_host_synchronizes_each_chunk_the_same(monkeypatch):
    work = lambda rt: _staged_work(rt, 2 * M, M, [2, 6], wait=False)  # noqa: E731
    fast, slow, computed = _both(monkeypatch, work)
    assert computed and fast == slow


@contextmanager
def _linked_pair(rt) -> Iterator[tuple]:
    """Device 1's 8 KiB buffer (written with a pattern) and device 6's, peer access on."""
    with (
        rt.peer_links([(1, 6), (6, 1)]),
        rt.device_buffer(1, 8192) as a,
        rt.device_buffer(6, 8192) as b,
    ):
        rt.write(a, bytes(range(200)) * 40 + b"tail")
        yield a, b


def test_repeated_copies_queued_at_once_leave_what_their_calls_leave(monkeypatch):
    def work(rt):
        with _linked_pair(rt) as (a, b):
            s, mark = rt.stream(6), rt.event(6)
            ns = [rt.enqueue_copies(b, a, 8192, s, n) for n in (1, 2, 3, 40)]
            mark.record(s)  # the run no longer the stream's last op: two calls start another
            ns += [rt.enqueue_copies(b, a, 8192, s, n) for n in (5, 1, 7)]
            s.synchronize()
            state = _state(rt, [a, b], [rt.acl._streams.events[mark.handle]])
            mark.close(), s.close()
        return state | {"host_ns": ns}

    fast, slow, _ = _both(monkeypatch, work)
    assert fast == slow and fast["counts"]["rt.memcpy_async"] == 59


def test_repeats_after_the_source_changed_move_its_bytes(monkeypatch):
    """Repeats of a kept copy queued without their calls skip their bytes only while those
    are in place: the source set between two batches (a call that keeps the kept copies),
    the next batch moves the new bytes, as its calls would."""

    def work(rt):
        with _linked_pair(rt) as (a, b):
            s = rt.stream(6)
            rt.enqueue_copies(b, a, 8192, s, 3)
            for k in range(3):
                rt.memset(a, k + 1, 4096)
                rt.enqueue_copies(b, a, 8192, s, 4)
            s.synchronize()
            state = _state(rt, [a, b], [])
            s.close()
        return state

    fast, slow, _ = _both(monkeypatch, work)
    assert fast == slow
    assert fast["bytes"][1] == fast["bytes"][0] and fast["bytes"][1][:4097] == b"\x03" * 4096 + b"`"


def test_a_fault_sends_the_program_to_the_calls(monkeypatch):
    """With a fault configured nothing is computed at once (a call may fail or slow)."""
    fault = Fault(kind="slow_host", factor=1.5)
    fast, slow, computed = _both(
        monkeypatch, lambda rt: _staged_work(rt, 4096, 4096, [3, 4]), faults=[fault]
    )
    assert computed == 0 and fast == slow


def test_a_program_declines_when_other_work_is_pending():
    """Another stream's pending copies may share what the program crosses: the runtime
    makes the calls (run_program answers None and does nothing)."""
    with (
        open_runtime("sim", "atlas800t-a2") as rt,
        rt.device_buffer(0, 4096) as a,
        rt.device_buffer(1, 4096) as b,
        rt.host_buffer(4096) as h,
    ):
        s0, s1, other, relay = rt.stream(0), rt.stream(1), rt.stream(3), rt.event(0)
        rt.enqueue_staged(b, h, a, 4096, (s0, s1), relay, 2, chunk=4096, synchronize=True)
        with rt.device_buffer(3, 4096) as c:
            rt.enqueue_copies(c, c, 4096, other, 1)  # pending on another stream
            before = dict(rt.acl.simulator.call_counts)
            program = rt._program_kept[2]
            tail = [(rt.acl.rt.synchronize_stream, "rt.synchronize_stream", (s1.handle,), None)]
            assert rt.acl.simulator.run_program(program, 3, tail, 1) is None
            assert dict(rt.acl.simulator.call_counts) == before
            other.synchronize()
            assert rt.acl.simulator.run_program(program, 3, tail, 1) == (0, None, 1)
        relay.close(), s0.close(), s1.close(), other.close()


def test_a_program_at_once_leaves_what_bound_its_copies(monkeypatch):
    """A direct copy 2 -> 3 on the staged program's source stream between two programs
    leaves its link as that stream's bound and its record's; the program computed at once
    puts back what its own copies' legs were bound by (``acl.simulator.copy_limit``)."""

    def work(rt):
        size = 2 * M
        with (
            rt.peer_links([(2, 3), (3, 2)]),
            rt.device_buffer(2, size) as src,
            rt.device_buffer(3, size) as other,
            rt.device_buffer(5, size) as dst,
            rt.host_buffer(size) as host,
        ):
            rt.write(src, bytes(range(9, 250)) * (size // 241) + b"y" * (size % 241))
            s_src, s_dst, relay = rt.stream(2), rt.stream(5), rt.event(2)
            limits = []
            for n in (2, 1, 3, 4):  # (1: the first pass alone, computed: its record's bound)
                rt.enqueue_staged(
                    dst, host, src, size, (s_src, s_dst), relay, n, chunk=M,
                    wait_on_device=True, synchronize=True,
                )  # fmt: skip
                limits.append(rt.acl.simulator.copy_limit(relay.handle))
                rt.enqueue_copies(other, src, size, s_src, 1)
                relay.record(s_src)
                s_src.synchronize()
                limits.append(rt.acl.simulator.copy_limit(relay.handle))
            state = _state(rt, [src, dst, other], [rt.acl._streams.events[relay.handle]])
            relay.close(), s_src.close(), s_dst.close()
        return state | {"limits": limits}

    fast, slow, computed = _both(monkeypatch, work)
    assert computed >= 1
    assert fast == slow
    assert fast["limits"][0] != fast["limits"][1]  # the two kinds of copy bound differently


def test_a_program_on_new_streams_over_routed_chunks_is_computed_at_once(monkeypatch):
    """A test makes its own streams (the kept copies go): once its record and wait are
    kept, new chunks (their routes cached from the test before, or not routed yet) are
    kept from their checks alone (``Copies.keep_routed``) and the whole program computed,
    leaving what the calls leave."""
    passes = []
    real = Programs._execute

    def work(rt):
        bufs = _buffers(rt, 4 * M)
        for _ in range(2):  # (reading buffers between tests would allocate: routes afresh)
            events = _staged_work_on(rt, bufs, M, [(M, 2), (4 * M, 2)])
        state = _state(rt, list(bufs), events)
        _free(bufs)
        return state

    with open_runtime("sim", "atlas800t-a2", seed=11) as rt:
        monkeypatch.setattr(
            Programs, "_execute", lambda self, p, n: passes.append(n) or real(self, p, n)
        )
        fast = work(rt)
    with monkeypatch.context() as m:
        _plain(m)
        with open_runtime("sim", "atlas800t-a2", seed=11) as rt:
            slow = work(rt)
    assert fast == slow
    # steady passes computed per program: the first pass of a test's first program is
    # made call by call (new events and streams); the 4-chunk one's chunks, never routed
    # before, are routed as the calls would (``Copies.keep_routed``): computed whole
    assert passes == [0, 1, 0, 1]


def test_a_program_into_buffers_no_copy_wrote_yet_is_computed_at_once(monkeypatch):
    """The second program's buffers were allocated with the first's (its record and wait
    kept), but no copy wrote them yet: its chunks kept from their checks alone (never
    routed), the first pass computed, the bytes moved as the calls move them."""

    def work(rt):
        first, second = _buffers(rt, 2 * M), _buffers(rt, 2 * M)
        s_src, s_dst, relay = rt.stream(2), rt.stream(5), rt.event(2)
        for (src, dst, host), n in ((first, 2), (second, 3)):
            rt.enqueue_staged(
                dst, host, src, 2 * M, (s_src, s_dst), relay, n, chunk=M, synchronize=True
            )
        events = [rt.acl._streams.events[relay.handle]]
        state = _state(rt, [*first, *second], events)
        relay.close(), s_src.close(), s_dst.close()
        _free(first), _free(second)
        return state

    fast, slow, computed = _both(monkeypatch, work)
    assert computed == 2 and fast == slow  # the first's steady pass, the second whole
    assert fast["bytes"][4] == fast["bytes"][3]  # the second destination holds its source


def _buffers(rt, size):
    src, dst, host = rt.device_buffer(2, size), rt.device_buffer(5, size), rt.host_buffer(size)
    rt.write(src, bytes(range(3, 250)) * (size // 247) + b"y" * (size % 247))
    return src, dst, host


def _free(bufs):
    for b in bufs:
        b.close()


def _staged_work_on(rt, bufs, chunk, programs):
    """Staged copies 2 -> 5 on new streams and a new relay: (size, copies) per program;
    the relay's simulated event (kept past its destruction)."""
    src, dst, host = bufs
    s_src, s_dst, relay = rt.stream(2), rt.stream(5), rt.event(2)
    for size, n in programs:
        rt.enqueue_staged(
            dst, host, src, size, (s_src, s_dst), relay, n, chunk=chunk, synchronize=True
        )
    events = [rt.acl._streams.events[relay.handle]]
    relay.close(), s_src.close(), s_dst.close()
    return events


def test_a_record_between_two_copies_of_one_stream_is_bound_by_the_copy_before_it(monkeypatch):
    """A user's program (``acl.simulator.run_program`` is public): a copy 2 -> host, a
    record on that stream, then a copy 2 -> 3 over HCCS on the same stream. The record is
    bound by the copy before it, the stream by the one after, as the calls leave them
    (each copy's kind binds differently: asserted, so the order is what is tested)."""

    def work(rt):
        size = M
        with (
            rt.peer_links([(2, 3), (3, 2)]),
            rt.device_buffer(2, size) as src,
            rt.device_buffer(3, size) as peer,
            rt.host_buffer(size) as host,
        ):
            rt.write(src, bytes(range(3, 254)) * (size // 251) + b"z" * (size % 251))
            s, mark = rt.stream(2), rt.event(2)
            copy, record = rt._fn("rt.memcpy_async"), rt._fn("rt.record_event")
            d2h = (host.ptr, host.size, src.ptr, size, 2, s.handle)  # ACL_MEMCPY_DEVICE_TO_HOST
            p2p = (peer.ptr, peer.size, src.ptr, size, 3, s.handle)  # ACL_MEMCPY_DEVICE_TO_DEVICE
            program = [
                2,
                (copy, "rt.memcpy_async", d2h, None),
                (record, "rt.record_event", (mark.handle, s.handle), None),
                (copy, "rt.memcpy_async", p2p, None),
            ]
            tail = [(rt._fn("rt.synchronize_stream"), "rt.synchronize_stream", (s.handle,), None)]
            limits = []
            for n in (1, 3, 2):
                rt._run_program(program, n, tail, [2])
                limits.append(rt.acl.simulator.copy_limit(mark.handle))
            state = _state(rt, [src, peer, host], [rt.acl._streams.events[mark.handle]])
            stream_limit = next(st.limit for st in rt.acl._engine._streams if st.id == s.handle)
            mark.close(), s.close()
        return state | {"limits": limits, "stream_limit": stream_limit}

    fast, slow, computed = _both(monkeypatch, work)
    assert computed >= 1
    assert fast == slow
    assert fast["limits"][-1] != fast["stream_limit"]  # the two copies bound differently
