"""Mutants of ``ascend_p2p_lab/sim/engine.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.engine.copy_dip_dropped",
        "sim/engine.py",
        "        scale = self.next_factor() if self.dip is None else self._factor(resources)  # hot",
        "        scale = self.next_factor()",
        "an async copy over a link with a per-copy transient dip runs at full speed",
        tests=("tests/sim/test_faults.py",),
    ),
    M(
        "sim.engine.slack_always",
        "sim/fluid.py",
        ("return all(demand[r] <= rate(r) for r, n in users.items() if n > 1)"),
        "return True",
        ("streams that share a budget they can fill run alone, as if it were not there"),
    ),
    M(
        "sim.engine.op_after_record_unjittered",
        "sim/engine.py",
        (
            '                pending.append(Op("copy", s, self.host_us, nbytes, resources, latency_us, scale))'
        ),
        (
            '                pending.append(Op("copy", s, self.host_us, nbytes, resources, latency_us, 1.0))'
        ),
        ("a copy queued right after a record or a wait loses its jitter factor"),
    ),
    M(
        "sim.engine.linked_ignores_record_time",
        "sim/engine.py",
        ("                if ready > t:\n                    t = ready\n"),
        "",
        "a wait lets its stream go on before the record it waits for",
    ),
    M(
        "sim.engine.linked_skips_unready_wait",
        "sim/engine.py",
        ("                if ready is None:\n                    pending.appendleft(op)\n"),
        ("                if ready is None:\n                    continue\n"),
        ("a wait whose record has no time yet is dropped instead of held"),
    ),
    M(
        "sim.engine.linked_despite_sharing",
        "sim/engine.py",
        ("            if not alone:\n                return False\n"),
        "",
        "streams whose shared resource can bind run alone",
    ),
    M(
        "sim.engine.linked_unreachable_record",
        "sim/engine.py",
        ("                        return False  # a record no run will reach"),
        "                        pass  # a record no run will reach",
        ("a wait on a record no run reaches is decided without the fluid model"),
    ),
    M(
        "sim.engine.rebase_leaves_events",
        "sim/engine.py",
        ("            if e.ts is not None:\n                e.ts -= origin\n"),
        "",
        "events recorded before a rebase keep their old times",
    ),
    M(
        "sim.engine.rebase_while_busy",
        "sim/engine.py",
        (
            "        if any(s.pending or s.last_end > origin for s in "
            "self._streams):\n"
            "            return False\n"
        ),
        "",
        "the origin moves while a stream still has work ending later",
    ),
    M(
        "sim.engine.blocking_direct_while_busy",
        "sim/engine.py",
        ("        if not self._busy:\n            scale = self._factor(resources)"),
        ("        if True:\n            scale = self._factor(resources)"),
        ("a blocking copy runs alone while async copies that share its link are pending"),
    ),
    M(
        "sim.engine.blocking_direct_unjittered",
        "sim/engine.py",
        ("            scale = self._factor(resources)  # the draw enqueue_copy would make\n"),
        "            scale = 1.0\n",
        "a blocking copy on an idle engine loses its jitter draw",
    ),
    M(
        "sim.engine.blocking_direct_no_latency",
        "sim/engine.py",
        "end = t + (latency_us + nbytes / bw) * scale",
        "end = t + (nbytes / bw) * scale",
        "a blocking copy on an idle engine skips its latency",
    ),
    M(
        "sim.engine.dip_keeps_binding",
        "sim/engine.py",
        "        self._slack.clear(), self._bottleneck.clear(), self._binding.clear()",
        "        self._slack.clear(), self._bottleneck.clear()",
        "a transient dip forgets the rates but not which resource binds a route",
        tests=("tests/sim/test_faults.py",),
    ),
]
