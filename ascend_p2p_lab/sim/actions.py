"""The actions of a compiled program (:mod:`.programs`) and one pass over them: each
call's host time, each copy's jitter draw and bytes, each op's time as
``Engine._run_alone`` gives it; and the runtime's call-by-call loop, for the passes that
are not compiled.

Example:
    >>> host = iteration([(SWITCH,), (SWITCH,)], 10.0, {}, {}, {}, float, 1.0, 2.0)
    >>> host
    11.0
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from itertools import pairwise, repeat
from typing import Any

from .copies import move_kept
from .engine import SimEvent, Stream
from .memory import CHUNK, ChunkedRegion, copy_bytes

#: What an action of a compiled program does (BUMP: a copy whose bytes are in place). The
#: two copies come first, so that ``kind < RECORD`` tells a copy. A copy is (kind, stream,
#: time per copy, dst region, dst offset, src region, src offset, count, memo_able,
#: seen, resources, chunks): chunks 0 for a COPY, the whole chunks it moves for a BUMP.
COPY, BUMP, RECORD, WAIT, SWITCH, SYNC = range(6)
#: The call each action counts as.
NAMES = (
    "rt.memcpy_async",
    "rt.memcpy_async",
    "rt.record_event",
    "rt.stream_wait_event",
    "rt.set_context",
    "rt.synchronize_stream",
)

#: A runtime step: (bound function, call name, arguments, device it makes current or None).
Step = tuple[Callable[..., Any], str, tuple, Any]


def settled(actions: list) -> list:
    """The steady iteration, its copies of whole chunks made :data:`BUMP` when a pass
    of its copies leaves the bytes as they were: no copy writes what it or an earlier copy
    of the pass read (so every pass reads what the first read). Those copies' moves would
    put the same chunks where they are: only the versions the move counts are counted."""
    copies = [(i, a) for i, a in enumerate(actions) if a[0] == COPY]
    reads: dict[int, list[tuple[int, int, int]]] = {}
    writes: dict[int, list[tuple[int, int, int]]] = {}
    for i, a in copies:
        reads.setdefault(id(a[5]), []).append((a[6], a[6] + a[7], i))
        writes.setdefault(id(a[3]), []).append((a[4], a[4] + a[7], i))
    for region, spans in writes.items():
        spans.sort()
        if any(b[0] < a[1] for a, b in pairwise(spans)):
            return actions  # writes that overlap: not worth deciding
        starts = [s for s, _, _ in spans]
        for a, b, i in reads.get(region, ()):
            lo, hi = max(0, bisect_right(starts, a) - 1), bisect_left(starts, b)
            if any(spans[k][1] > a and spans[k][2] >= i for k in range(lo, hi)):
                return actions  # a copy writes what it or an earlier one read
    out = list(actions)
    for i, a in copies:
        dreg, doff, sreg, soff, count = a[3], a[4], a[5], a[6], a[7]
        if (
            a[8]
            and dreg.__class__ is ChunkedRegion
            and sreg.__class__ is ChunkedRegion
            and not (doff % CHUNK or soff % CHUNK or count % CHUNK)
        ):
            out[i] = (BUMP, *a[1:11], count // CHUNK)
    return out


def calls(steps: Sequence[Step], times: int, current: Any) -> tuple[int, Step | None, Any]:
    """``Runtime._run_program``'s loop: the steps ``times`` times, call by call, a device
    switch skipped when its device is current; (the first non-zero ret or 0, its step,
    the current device after the last switch that succeeded)."""
    for _ in repeat(None, times):
        for step in steps:
            fn, _name, args, dev = step
            if dev is not None and dev == current:
                continue
            ret = fn(*args)
            if ret:
                return ret, step, current
            if dev is not None:
                current = dev
    return 0, None, current


def iteration(
    actions: list,
    host: float,
    ts: dict[Stream, float],
    rec: dict[SimEvent, float | None],
    rec_at: dict[SimEvent, tuple[float, Stream]],
    draw: Callable[[], float],
    api_us: float,
    sync_us: float,
) -> float:
    """One iteration of compiled actions; the host clock after it.

    A copy whose ``seen`` does not vouch for its destination: a COPY moves its bytes as
    :func:`~.copies.move_kept` decides; a BUMP (whole chunks already in place) leaves
    the memo and the versions as that move would (``move_bytes`` counts one per chunk,
    then one for the copy), no byte moved.
    """
    for a in actions:
        kind = a[0]
        if kind < RECORD:  # COPY or BUMP
            _, s, per, dreg, doff, sreg, soff, count, memo_able, seen, _, m = a
            if memo_able:  # the fast path's test of copy_bytes' memo
                last_copy = dreg.last_copy
                if (
                    last_copy is not seen[0]
                    or last_copy[1] != dreg.version
                    or seen[1] != sreg.version
                ):
                    if m:  # a BUMP: move_kept's memo and versions, no byte moved
                        memo = (sreg.base, soff, doff, count, sreg.version)
                        v = dreg.version
                        if last_copy is None or last_copy[1] != v or last_copy[0] != memo:
                            v += m + 1
                            dreg.version = v
                            dreg.last_copy = last_copy = (memo, v)
                        seen[0], seen[1] = last_copy, memo[4]
                    else:
                        move_kept(dreg, doff, sreg, soff, count, seen)
            else:
                copy_bytes(dreg, doff, sreg, soff, count)
            host = host + api_us
            scale = draw()
            t = ts[s]
            if host > t:
                t = host
            ts[s] = t + per * scale
        elif kind == SWITCH:
            host += 0.5
        elif kind == RECORD:
            host += 2.0
            s = a[1]
            t = ts[s]
            if host > t:
                t = host
            ts[s] = rec[a[2]] = t
            rec_at[a[2]] = (host, s)
        elif kind == WAIT:
            host += 2.0
            _, s, e, cross = a
            t = ts[s]
            if host > t:
                t = host
            ready = rec[e]
            if ready is not None and ready > t:
                t = ready
            if cross is not None:
                t = t + cross * draw()
            ts[s] = t
        else:  # SYNC: the host waits for the stream's end
            host += 1.0
            done = ts[a[1]]
            if done > host:
                host = done
            host += sync_us
    return host
