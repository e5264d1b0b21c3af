"""Mutants of the fast paths (issue 24): the staged copies' bound calls, streams tied
only by waits (the linked path), and the report's one-pass saving and parallel drawing."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

FAST = ("tests/test_fast_paths.py",)
LINKED = ("tests/test_engine_linked.py", "tests/test_model.py")

MUTANTS: list[Mutant] = [
    M("speed.staged_no_record", "runtime/transfers.py",
      '        middle = ([(self._fn("rt.record_event"), "rt.record_event",\n'
      "                    (relay.handle, s_src.handle), None), s_dst.device,\n",
      "        middle = ([s_dst.device,\n",
      "the staged fast path skips the relay event's record", FAST),
    M("speed.staged_no_switch", "runtime/transfers.py",
      "                if dev == current:\n                    continue\n",
      "                continue\n",
      "the staged fast path never makes the stream's device current", FAST),
    M("speed.staged_one_chunk", "runtime/transfers.py",
      "        for off in range(0, count, chunk):\n",
      "        for off in range(0, chunk, chunk):\n",
      "the staged fast path moves only the first chunk of each copy", FAST),
    M("speed.staged_switch_always", "runtime/transfers.py",
      "                if dev == current:\n", "                if dev == current and False:\n",
      "the staged fast path switches devices even when the device is current", FAST),
    M("speed.workers_ignore_load", "plots/reports.py",
      "int(cores - busy_cores() + 0.5)", "int(cores + 0.5)",
      "report forks a worker per core even when other work keeps them busy", FAST),
    M("speed.busy_cores_idle_as_busy", "plots/reports.py",
      "(1.0 - idle / total)", "(idle / total)",
      "busy_cores counts idle time as busy", FAST),
    M("speed.op_after_record_unjittered", "sim/engine.py",
      "latency_us,\n                                  scale))\n",
      "latency_us,\n                                  1.0))\n",
      "a copy queued right after a record or a wait loses its jitter factor",
      ("tests/test_sim_determinism.py",)),
    M("speed.save_without_layout", "plots/style.py",
      "    engine.execute(fig)\n    fig.set_layout_engine(None)\n",
      "    fig.set_layout_engine(None)\n",
      "the one-pass save skips the layout the save would run (other pixels)", FAST),
    M("speed.parallel_order", "plots/reports.py",
      "            return pool.map(_draw_forked, range(len(jobs)), chunksize=1)",
      "            return sorted(pool.map(_draw_forked, range(len(jobs)), chunksize=1))",
      "report's paths in file-name order when drawn in workers", FAST),
    M("speed.fork_with_threads", "plots/reports.py",
      "_FORK_SAFE_THREADS) for t in others):\n        return 1\n",
      "_FORK_SAFE_THREADS) for t in others):\n        pass\n",
      "report forks while a non-daemon thread runs", FAST),
    M("speed.linked_ignores_record_time", "sim/engine.py",
      "                if ready > t:\n                    t = ready\n", "",
      "a wait lets its stream go on before the record it waits for", LINKED),
    M("speed.linked_skips_unready_wait", "sim/engine.py",
      "                if ready is None:\n                    pending.appendleft(op)\n",
      "                if ready is None:\n                    continue\n",
      "a wait whose record has no time yet is dropped instead of held", LINKED),
    M("speed.linked_despite_sharing", "sim/engine.py",
      "            if not alone:\n                return False\n", "",
      "streams whose shared resource can bind run alone", LINKED),
    M("speed.linked_unreachable_record", "sim/engine.py",
      "                        return False  # a record no run will reach",
      "                        pass  # a record no run will reach",
      "a wait on a record no run reaches is decided without the fluid model", LINKED),
]
