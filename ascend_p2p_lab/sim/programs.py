"""A per-copy program of pyACL calls, repeated, computed as one operation
(``acl.simulator.run_program``).

The runtime issues a host-staged copy as a small program (per chunk: the source's device
made current, a device -> host copy, an event recorded, the destination's device made
current, a wait on the event, a host -> device copy), repeated once per copy, then a
synchronize (``Runtime._run_program``). Call by call, each call pays the facade's
dispatch, lock and checks, and each queued op an :class:`~.engine.Op` that the engine
then resolves one by one. :meth:`Programs.run` gives the same result as one operation
when the order allows:

- no fault is configured (no call can fail, no host is slowed);
- every call repeats a kept successful call under the device the program makes current
  (the fast paths' own test: ``Copies.plans``, ``Streams.kept_records`` and
  ``kept_waits``, ``Devices.kept``), each bound function the simulator's own (a program
  whose calls are not all kept yet makes its first iteration call by call, which keeps
  them);
- no other stream has work pending, and the program's streams cannot limit one another
  (what ``Engine._independent`` decides): ``Engine.resolve`` then gives each op its time
  from its stream's previous op, its enqueue time and the record it waits for;
- the tail begins with a synchronize of a stream, so everything is resolved before
  anything else can be queued.

It then walks the calls in their order with the fast paths' arithmetic: each call's host
time, each copy's jitter draw and bytes (``copy_bytes``' memo, as the fast path keeps it),
each op's time as ``Engine._run_alone`` computes it, and what stays after the synchronize
(each stream's last end, each event's last record, the call counts, the current device);
then it makes the tail's calls. When one pass of the copies leaves the bytes as they were
(no copy writes what it or an earlier copy read), the passes after the first move no
byte of whole chunks again: they only count the versions a move counts.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim") as rt, rt.device_buffer(0, 4096) as a, \\
    ...         rt.device_buffer(1, 4096) as b, rt.host_buffer(4096) as h:
    ...     s0, s1, relay = rt.stream(0), rt.stream(1), rt.event(0)
    ...     for n in (1, 50):  # the first program makes the calls; the second is computed
    ...         rt.enqueue_staged(b, h, a, 4096, (s0, s1), relay, n, chunk=4096,
    ...                           synchronize=True)
    ...     _ = relay.close(), s0.close(), s1.close()
    ...     rt.acl.simulator.call_counts["rt.memcpy_async"]
    102
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import accumulate, islice, repeat, starmap
from operator import itemgetter
from typing import Any

from .actions import COPY, NAMES, RECORD, SWITCH, SYNC, WAIT, Step, calls, iteration, settled
from .copies import kept_copy
from .engine import INF, Op, SimEvent, Stream
from .fluid import cannot_bind
from .jitter import draws

#: A compiled program: its first and steady iterations, its streams and events, the
#: runtime's and the simulator's current device after an iteration, whether the steady
#: iteration was :func:`~.actions.settled` (done when it first repeats), the regions its
#: copies touch with their versions after its last run, its first iteration settled
#: (made when a run finds the bytes as the last one left them), and the two iterations'
#: :data:`Summary` (made at the first run).
Plan = list


class Programs:
    """``acl.simulator.run_program``: see the module docstring."""

    def __init__(self, acl: Any) -> None:
        """Reads the parts of ``acl`` (a :class:`~.facade.SimulatedACL`) when a program runs."""
        self.acl = acl
        #: Engine._cannot_bind's verdict per combination of the streams' resource tuples
        self._verdicts: dict[tuple, bool] = {}
        #: the last program compiled: (its steps, what it was compiled under, the plan)
        self._last: tuple[Any, tuple, Plan] | None = None
        #: each kept call's action by (step, device), while ``Copies.cleared`` is ``_epoch``
        self._actions: dict[tuple, tuple] = {}
        self._epoch = -1

    def run(
        self, steps: Sequence[Step], copies: int, tail: Sequence[Step], current: Any
    ) -> tuple[int, Step | None, Any] | None:
        """Run ``steps`` ``copies`` times, then ``tail``, as one operation; None when the
        program is not one it can (the module docstring): nothing was done.

        A step is ``(fn, name, args, dev)``: with ``dev`` None the call ``fn(*args)``;
        else a device switch, skipped when ``current`` (the runtime's current device) is
        ``dev`` already. Returns (the first non-zero ret or 0, its step, the current
        device after the last switch that succeeded), as the runtime's own loop ends.
        """
        acl = self.acl
        with acl._lock:
            if not self._may(copies, tail):
                return None
            plan = self._plan(steps, current)
            if plan is None:
                if copies < 2:
                    return None
                ret, step, current = calls(steps, 1, current)
                copies -= 1
                plan = self._plan(steps, current) if not ret else None
                if plan is None:  # the rest call by call too
                    if not ret:
                        ret, step, current = calls(steps, copies, current)
                    return (ret, step, current) if ret else calls(tail, 1, current)
                acl._engine.resolve()  # the first iteration's ops: as the tail would
            self._execute(plan, copies - 1)
            return calls(tail, 1, plan[4])

    def repeat_copy(self, fn: Any, args: tuple, copies: int) -> int | None:
        """``fn(*args)`` ``copies`` times, ``fn`` being ``acl.rt.memcpy_async``. When no
        fault is configured and the copy is kept with its bytes in place, each copy does
        what the fast path would (the count, the host clock, the enqueue time, the jitter
        draw): queued one by one until the stream's last op is the copy's run (at most
        two: after a record the first is an Op, the second starts the run), the others
        appended to that run at once. Else the calls themselves until the copy is kept in
        place (two at most: the first keeps it, the second finds its bytes in place), then
        the rest as above; the calls all made when it is not. The first non-zero ret, else
        0; None when ``fn`` is not the simulator's (nothing was done)."""
        acl = self.acl
        if fn is not acl.rt.memcpy_async:
            return None
        with acl._lock:
            hit = self._in_place(args) if copies > 0 else None
            made = 0
            while hit is None and copies > 0:  # the calls themselves: they keep the copy
                if made == 2:  # not kept in place after two: every call made
                    return next(filter(None, starmap(fn, repeat(args, copies))), 0)
                ret = fn(*args)
                copies, made = copies - 1, made + 1
                if ret:
                    return ret
                hit = self._in_place(args) if copies > 0 else None
            if hit is not None:
                pending, seen = hit.stream.pending, hit.seen
                while copies > 0 and (seen[2] is None or not pending or pending[-1] is not seen[2]):
                    self._queue(hit)  # until its run is the stream's last op
                    copies -= 1
                if copies > 0:
                    self._append(hit, copies)
            return 0

    def _in_place(self, args: tuple) -> Any:
        """The kept copy of ``args`` (an :class:`~.copies.AsyncCopy`) when its repeats may
        be queued without the calls: no fault configured, kept under the current device,
        its bytes in place (every repeat skips its move); else None."""
        acl = self.acl
        hit = kept_copy(acl._copies.plans, args) if len(args) == 6 else None
        if acl._injector.faults or hit is None or hit.current != acl._devices.tls.device:
            return None
        _, _, dreg, _, sreg, _, memo_able, _, _, _, seen = hit.parts
        last_copy = dreg.last_copy
        if (
            not memo_able
            or last_copy is not seen[0]
            or last_copy[1] != dreg.version
            or seen[1] != sreg.version
        ):
            return None
        return hit

    def _queue(self, hit: Any) -> None:
        """One repeat of a kept copy in place, as the fast path queues it: counted, the
        host clock, then its run extended when that is the stream's last op, else
        ``Engine.append_copy``."""
        acl = self.acl
        engine = acl._engine
        acl.call_counts["rt.memcpy_async"] += 1
        now = engine.host_us + acl.topology.host.api_us
        engine.host_us = now
        _, s, _, _, _, _, _, res, nbytes, latency, seen = hit.parts
        run = seen[2]
        if s.pending and s.pending[-1] is run:
            run.enqs.append(now)
            run.scales.append(engine.next_factor())
        else:
            seen[2] = engine.append_copy(s, nbytes, res, latency)

    def _append(self, hit: Any, copies: int) -> None:
        """``copies`` repeats of a kept copy in place appended to its run, the stream's
        last op: per copy as the fast path, the host clock, its enqueue time, its draw."""
        acl = self.acl
        engine = acl._engine
        run = hit.seen[2]
        enqs = run.enqs
        enqs.extend(
            islice(
                accumulate(repeat(acl.topology.host.api_us, copies), initial=engine.host_us),
                1,
                None,
            )
        )
        engine.host_us = enqs[-1]
        run.scales.extend(islice(draws(engine.next_factor), copies))
        acl.call_counts["rt.memcpy_async"] += copies

    # ------------------------------------------------------------------ planning
    def _may(self, copies: int, tail: Sequence[Step]) -> bool:
        """What a program needs whatever its calls: no fault, no explicit context, no
        stream with work pending, a tail that begins with a synchronize of a stream."""
        acl = self.acl
        injector, devices = acl._injector, acl._devices
        if copies < 1 or injector.faults or injector.lost or devices.tls.context is not None:
            return False
        if not tail or tail[0][0] is not acl.rt.synchronize_stream or tail[0][3] is not None:
            return False
        handle = tail[0][2][0] if len(tail[0][2]) == 1 else None
        if handle.__class__ is not int or handle not in acl._streams.streams:
            return False
        return not any(s.pending for s in acl._engine._streams)

    def _plan(self, steps: Sequence[Step], current: Any) -> Plan | None:
        """The program compiled (kept from the last time when nothing changed); None when
        a call is not kept, or the streams may limit one another. Work may be pending only
        on the program's own streams (its first iteration's, made call by call)."""
        acl = self.acl
        dev = acl._devices.tls.device
        key = (current, dev, acl._copies.cleared)
        last = self._last
        if last is not None and last[0] is steps and last[1] == key:
            plan = last[2]
        else:
            made = self._compiled(steps, current, dev)
            if made is None:
                return None  # not kept yet, perhaps: compiled again next time
            plan = made
            self._last = (steps, key, plan)  # the program is repeated for every sample
        live = acl._streams.events
        if any(live.get(e.id) is not e for e in plan[3]):
            return None  # an event destroyed since
        mine = plan[2]
        if any(s.pending and s not in mine for s in acl._engine._streams):
            return None
        return plan

    def _compiled(self, steps: Sequence[Step], current: Any, dev: Any) -> Plan | None:
        """:meth:`_plan`'s answer for a program, from the kept calls as they are now."""
        acl = self.acl
        if self._epoch != acl._copies.cleared:
            self._actions.clear()
            self._epoch = acl._copies.cleared
        counts = acl.call_counts
        if any(name not in counts for _, name, _, _ in steps):
            return None  # a first call: the checked path makes its entry
        start = (current, dev)
        first, current, dev = self._compile(steps, current, dev)
        if first is None:
            return None
        if (current, dev) == start:  # an iteration ends where it began: the next is the same
            steady = first
        else:
            steady, again, dev_again = self._compile(steps, current, dev)
            if steady is None or (again, dev_again) != (current, dev):
                return None
        both = first if steady is first else first + steady
        streams = list({a[1]: None for a in both if a[0] != SWITCH})
        events = list({a[2]: None for a in both if a[0] == RECORD or a[0] == WAIT})
        if not self._alone(both, streams):
            return None
        return [first, steady, streams, events, current, dev, False, None, None, None]

    def _compile(self, steps: Sequence[Step], current: Any, dev: Any) -> tuple[Any, Any, Any]:
        """One iteration as actions, starting from the runtime's and the simulator's
        current device; the actions None when a step is not a kept call under the device
        current then."""
        acl = self.acl
        kept_ctx, made, out = acl._devices.kept, self._actions, []
        switch = acl.rt.set_context
        for step in steps:
            fn, name, args, to = step
            if to is not None:  # a device switch, as Runtime._run_program makes it
                if to == current:
                    continue
                ctx = args[0] if len(args) == 1 else None
                target = kept_ctx.get(ctx) if ctx.__class__ is int else None
                if fn is not switch or target is None:
                    return None, current, dev
                out.append((SWITCH,))
                current, dev = to, target
                continue
            try:
                action = made.get((step, dev))
            except TypeError:  # an unhashable argument: the checks report it
                return None, current, dev
            if action is None:
                action = self._action(fn, name, args, dev)
                if action is None:
                    return None, current, dev
                made[(step, dev)] = action
            out.append(action)
        return out, current, dev

    def _action(self, fn: Any, name: str, args: tuple, dev: Any) -> tuple | None:
        """A call as an action, or None when it is not a kept call under ``dev``."""
        acl = self.acl
        bound = getattr(acl.rt, name.partition(".")[2], None)
        if not name.startswith("rt.") or fn is not bound:
            return None
        st = acl._streams
        if name == "rt.memcpy_async":
            hit = kept_copy(acl._copies.plans, args) if len(args) == 6 else None
            if hit is None and dev is not None:  # a first call whose checks pass: kept
                hit = acl._copies.keep_routed(args, dev)
            if hit is None or hit.current != dev:
                return None
            _, s, dreg, doff, sreg, soff, memo_able, res, nbytes, latency, seen = hit.parts
            per = latency + nbytes / self._bandwidth(res)  # Engine._run_alone's arithmetic
            return (COPY, s, per, dreg, doff, sreg, soff, args[3], memo_able, seen, res, 0)
        ints = all(a.__class__ is int for a in args)
        if name == "rt.synchronize_stream":  # a handle's stream: not the default one
            s = st.streams.get(args[0]) if len(args) == 1 and ints and args[0] else None
            return None if s is None else (SYNC, s)
        if name not in ("rt.record_event", "rt.stream_wait_event") or len(args) != 2 or not ints:
            return None
        hit = (st.kept_records if name == "rt.record_event" else st.kept_waits).get(args)
        if hit is None:
            return None
        e, s = hit
        if s.device != dev or st.events.get(e.id) is not e:
            return None
        if name == "rt.record_event":
            return (RECORD, s, e)
        cross = None
        if e.device != s.device:  # the runtime's notify: a copy of no bytes, drawn
            cross = acl.topology.cross_device_wait_us + 0 / self._bandwidth(())
        return (WAIT, s, e, cross)

    def _bandwidth(self, res: tuple) -> float:
        """The slowest rate of a resources tuple, as ``Engine._run_alone`` finds it."""
        engine = self.acl._engine
        bw = engine._bottleneck.get(res)
        if bw is None:
            bw = engine._bottleneck[res] = min(engine.rate(r) for r in res) if res else INF
        return bw

    def _alone(self, actions: list, streams: list[Stream]) -> bool:
        """Whether the program's streams may each run alone (``Engine._independent``,
        asked of the resources their copies cross)."""
        engine = self.acl._engine
        mine: dict[Stream, dict[tuple, None]] = {s: {} for s in streams}
        for a in actions:
            if a[0] == COPY:
                mine[a[1]][a[10]] = None
        seen: set = set()
        overlap = False
        for tuples in mine.values():
            used = {r for res in tuples for r in res}
            overlap = overlap or bool(seen & used)
            seen |= used
        if not overlap:
            return True
        order = {s: i for i, s in enumerate(engine._streams)}
        if any(s not in order for s in mine):
            return False  # a stream the engine does not resolve
        key = tuple(tuple(mine[s]) for s in sorted(mine, key=order.__getitem__))
        alone = self._verdicts.get(key)
        if alone is None:
            alone = self._verdicts[key] = cannot_bind(key, engine.rate)
        return alone

    # ------------------------------------------------------------------ running
    def _execute(self, plan: Plan, repeats: int) -> None:
        """The compiled iterations (the first once, the steady one ``repeats`` times), with
        the fast paths' host arithmetic and ``Engine._run_alone``'s op times; then the
        state the calls and their resolution would leave."""
        if repeats and not plan[6]:
            steady = settled(plan[1])
            if plan[1] is plan[0] and plan[8] is None:  # the first pass is the steady one
                plan[8] = steady
            plan[1], plan[6] = steady, True
        first, steady, streams, events, _, device, _, left, again, sums = plan
        if left is not None and all(r.version == v for r, v in left):
            # the bytes as this program's last run left them: its first pass too moves
            # nothing again
            if again is None:
                again = plan[8] = settled(first)
            first = again
        acl = self.acl
        engine, host_model = acl._engine, acl.topology.host
        api_us, sync_us = host_model.api_us, host_model.sync_return_us
        draw = engine.next_factor
        ts = {s: s.last_end for s in streams}
        rec = {e: e.record_op.end if e.record_op is not None else None for e in events}
        rec_at: dict[SimEvent, tuple[float, Stream]] = {}
        host = iteration(first, engine.host_us, ts, rec, rec_at, draw, api_us, sync_us)
        for _ in repeat(None, repeats):
            host = iteration(steady, host, ts, rec, rec_at, draw, api_us, sync_us)
        engine.host_us = host
        if sums is None:  # what the limits and the call counts need of each pass: the same
            sums = plan[9] = (_summary(plan[0]), _summary(plan[1]))  # every run
        lim, lim_at = _limits(engine, sums if repeats else sums[:1], streams)
        for s, t in ts.items():
            s.last_end, s.limit = t, lim[s]
        for e, (enq, s) in rec_at.items():  # each event's last record, resolved
            op = Op("record", s, enq)
            op.event, op.start, op.end = e, rec[e], rec[e]
            e.record_op, e.ts, e.limit = op, rec[e], lim_at.get(e, e.limit)
        engine._busy.update(streams)  # queued on, as the calls mark them
        if left is None:  # the regions its copies touch: the same every run
            left = [(r, 0) for a in first if a[0] < RECORD for r in (a[3], a[5])]
            left = list({id(r): (r, 0) for r, _ in left}.values())
        plan[7] = [(r, r.version) for r, _ in left]
        acl._devices.tls.device = device
        counts = acl.call_counts
        for name, n in sums[0][0]:
            counts[name] += n
        if repeats:
            for name, n in sums[1][0]:
                counts[name] += n * repeats


#: What a pass leaves that does not depend on its times: (the calls it counts, per name;
#: each stream's resources of its last copy with resources; each event's last record:
#: its stream and the resources of the last copy with resources before it on that stream
#: in the pass, or None).
Summary = tuple[tuple[tuple[str, int], ...], dict, dict]


def _summary(actions: list) -> Summary:
    """A pass's :data:`Summary` (a settled pass's is its unsettled one's: BUMP counts and
    binds as COPY does)."""
    kinds = Counter(map(itemgetter(0), actions))
    names: dict[str, int] = {}
    for kind, n in kinds.items():
        names[NAMES[kind]] = names.get(NAMES[kind], 0) + n
    last: dict[Stream, tuple] = {}
    recs: dict[SimEvent, tuple[Stream, tuple | None]] = {}
    for a in actions:
        kind = a[0]
        if kind < RECORD:
            if a[10]:
                last[a[1]] = a[10]
        elif kind == RECORD:
            recs[a[2]] = (a[1], last.get(a[1]))
    return tuple(names.items()), last, recs


def _limits(engine: Any, sums: Sequence[Summary], streams: list[Stream]) -> tuple[dict, dict]:
    """What ``Engine._run_alone`` would leave as the bound of each stream's last copy and
    of each event's last record (``acl.simulator.copy_limit``), the passes' summaries in
    order: the binding resource of the last copy with resources before it on its stream,
    else what the stream had."""
    lim = {s: s.limit for s in streams}
    at: dict[SimEvent, Any] = {}
    binding = engine._binding
    for _, last, recs in sums:
        for e, (s, res) in recs.items():
            at[e] = (binding.get(res) or engine._bind(res)) if res else lim[s]
        for s, res in last.items():
            lim[s] = binding.get(res) or engine._bind(res)
    return lim, at
