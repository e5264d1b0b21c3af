"""sim/actions.py: which passes of a program may leave the bytes where they are
(``settled``), and one pass's host clock."""

from __future__ import annotations

from ascend_p2p_lab.sim.actions import BUMP, COPY, SWITCH, iteration, settled
from ascend_p2p_lab.sim.memory import CHUNK, ChunkedRegion


def _region(base: int) -> ChunkedRegion:
    return ChunkedRegion(base, 8 * CHUNK, "device", 0)


def _copy(dst, doff, src, soff, n=CHUNK):
    return (COPY, "s", 1.0, dst, doff, src, soff, n, True, [None, None, None], (), 0)


def test_a_staged_pass_moves_whole_chunks_once():
    """device -> host, host -> device per chunk: no copy writes what it or an earlier copy
    read, so the later passes only count versions (BUMP, with the chunks a move counts)."""
    src, host, dst = _region(1 << 30), _region(2 << 30), _region(3 << 30)
    actions = [(SWITCH,)]
    for k in range(3):
        actions += [_copy(host, k * CHUNK, src, k * CHUNK), _copy(dst, k * CHUNK, host, k * CHUNK)]
    out = settled(actions)
    assert [a[0] for a in out] == [SWITCH] + [BUMP] * 6 and out[1][-1] == 1
    assert settled([_copy(dst, 0, src, 0, 4 * CHUNK)])[0][-1] == 4


def test_a_pass_that_overwrites_what_was_read_moves_its_bytes_every_time():
    a, b, c = _region(1 << 30), _region(2 << 30), _region(3 << 30)
    later = [_copy(b, 0, a, 0), _copy(a, 0, c, 0)]  # the second writes what the first read
    itself = [_copy(a, CHUNK, a, 0, 2 * CHUNK)]  # a copy over its own source
    earlier = [_copy(a, 0, c, 0), _copy(b, 0, a, 0)]  # written first, read after: settles
    assert settled(later) == later and settled(itself) == itself
    assert [x[0] for x in settled(earlier)] == [BUMP, BUMP]
    piece = [_copy(b, 0, a, 0, 4096)]  # not whole chunks: moved
    assert settled(piece) == piece


def test_a_pass_charges_the_host_as_the_calls_do():
    assert iteration([(SWITCH,), (SWITCH,)], 10.0, {}, {}, {}, float, 1.0, 2.0) == 11.0
