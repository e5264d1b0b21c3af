"""Mutants of ``ascend_p2p_lab/sim/streams.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.streams.stream_of_any_context",
        "sim/streams.py",
        "        if self.owner.get(handle, ctx) != ctx:",
        "        if False:",
        "a stream made in one context is usable in another",
        tests=("tests/sim/test_contexts.py",),
    ),
    M(
        "sim.streams.kept_event_destroyed",
        "sim/streams.py",
        "                    or events.get(e.id) is not e",
        "",
        ("a kept record or wait still runs after its event was destroyed"),
        tests=("tests/sim/test_facade.py::test_kept_calls_give_what_the_checked_calls_give",),
    ),
    M(
        "sim.streams.kept_event_other_device",
        "sim/streams.py",
        "                    or s.device != tls.device",
        "",
        "a kept record or wait runs while another device is current",
        tests=("tests/sim/test_facade.py::test_kept_calls_give_what_the_checked_calls_give",),
    ),
    M(
        "sim.streams.kept_wait_not_across",
        "sim/streams.py",
        ("                    if e.device != s.device:\n                        enqueue_copy("),
        ("                    if False:\n                        enqueue_copy("),
        ("a kept wait across devices skips the runtime's notify (its time, its jitter draw)"),
        tests=("tests/sim/test_facade.py::test_kept_calls_give_what_the_checked_calls_give",),
    ),
    M(
        "sim.streams.kept_record_no_fault",
        "sim/streams.py",
        "                        code = fault(call, (s.device,))\n",
        "                        code = 0\n",
        "a kept record_event ignores the configured error faults",
        tests=("tests/sim/test_facade.py::test_kept_calls_give_what_the_checked_calls_give",),
    ),
    M(
        "sim.streams.kept_wait_no_slow_host",
        "sim/streams.py",
        ("                if faults:\n                    host(2.0)\n"),
        ("                if False:\n                    host(2.0)\n"),
        "a kept record or wait ignores a slow_host fault's factor",
        tests=("tests/sim/test_facade.py::test_kept_calls_give_what_the_checked_calls_give",),
    ),
    M(
        "sim.streams.kept_bools",
        "sim/streams.py",
        (
            "                    a.__class__ is not int\n"
            "                    or b.__class__ is not int  # equal but not int"
        ),
        "                    False  # equal but not int",
        ("a kept record or wait takes equal non-int arguments for the kept ones"),
        tests=("tests/sim/test_facade.py::test_kept_calls_give_what_the_checked_calls_give",),
    ),
    M(
        "sim.streams.sync_event_no_return_cost",
        "sim/streams.py",
        (
            "                    engine.host_us = done\n"
            "                engine.host_us += "
            "self.topology.host.sync_return_us\n"
            "        return 0\n"
        ),
        ("                    engine.host_us = done\n        return 0\n"),
        ("synchronize_event without faults skips the host's return from the wait"),
    ),
    M(
        "sim.streams.sync_event_faults_ignored",
        "sim/streams.py",
        ('        if faults:\n            code = injector.fault("rt.synchronize_event"'),
        ('        if False:\n            code = injector.fault("rt.synchronize_event"'),
        "synchronize_event ignores the configured faults",
    ),
    M(
        "sim.streams.elapsed_no_host_cost",
        "sim/streams.py",
        ("        else:\n            self.engine.host_us += 1.0\n"),
        "",
        ("event_elapsed_time without faults leaves the host clock where it was"),
    ),
    M(
        "sim.streams.sync_stream_no_wait",
        "sim/streams.py",
        (
            "        if done > engine.host_us:  # wait_host_until\n"
            "            engine.host_us = done\n"
            "        engine.host_us += self.topology.host.sync_return_us\n"
        ),
        "        engine.host_us += self.topology.host.sync_return_us\n",
        ("synchronize_stream without faults returns before the stream's work is done"),
    ),
]
