"""Mutants of ``ascend_p2p_lab/measure/timing.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.timing.copies_for_floor",
        "measure/timing.py",
        "math.ceil(min_sample_us / per_copy_us)",
        "int(min_sample_us / per_copy_us)",
        "samples may fall short of min_sample_us",
    ),
    M(
        "measure.timing.copies_for_no_cap",
        "measure/timing.py",
        ("max(1, min(max_copies, math.ceil(min_sample_us / per_copy_us)))"),
        "max(1, math.ceil(min_sample_us / per_copy_us))",
        "max_copies ignored",
    ),
    M(
        "measure.timing.host_time_units",
        "measure/timing.py",
        "return Timing(copies, elapsed_ms * 1000.0, host_ns / 1000.0)",
        "return Timing(copies, elapsed_ms * 1000.0, host_ns / 1e6)",
        "host enqueue time in ms, not us (host_bound never set)",
    ),
    M(
        "measure.timing.calibrate_total_not_per_copy",
        "measure/timing.py",
        ("copies = copies_for(first.per_copy_us, min_sample_us, max_copies)"),
        ("copies = copies_for(first.span_us, min_sample_us, max_copies)"),
        ("calibration divides by the warm-up window, not the time per copy"),
    ),
    M(
        "measure.timing.calibrate_no_trial",
        "measure/timing.py",
        "if trial.span_us < min_sample_us:",
        "if False:",
        "a trial shorter than min_sample_us is not corrected",
    ),
    M(
        "measure.timing.bi_calibrate_slower",
        "measure/timing.py",
        "return min(t.elapsed_us / t.copies for t in self.each)",
        "return max(t.elapsed_us / t.copies for t in self.each)",
        "interleaved samples sized on the slower direction",
    ),
    M(
        "measure.timing.warmup_ignored",
        "measure/timing.py",
        "first = measure(max(warmup, 1))",
        "first = measure(1)",
        "--warmup ignored: always one warm-up copy",
    ),
    M(
        "measure.timing.bi_copies_n",
        "measure/timing.py",
        ("return Sample(None, tuple(Timing(rounds * per, e, host_us) for e in elapsed))"),
        ("return Sample(None, tuple(Timing(n, e, host_us) for e in elapsed))"),
        ("interleaved samples report n copies when rounds * per were timed"),
    ),
    M(
        "measure.timing.bi_same_window",
        "measure/timing.py",
        ("elapsed = [rt.elapsed_ms(t.start, t.end) * 1000.0 for t in timers]"),
        ("elapsed = [rt.elapsed_ms(timers[0].start, timers[0].end) * 1000.0 for t in timers]"),
        "every direction reports the first direction's window",
    ),
    M(
        "measure.timing.fanout_copies_n",
        "measure/timing.py",
        ("return Sample(Timing(n, window_us, sum(host_ns) / 1000.0), each)"),
        ("return Sample(Timing(n * len(self.timers), window_us, sum(host_ns) / 1000.0), each)"),
        "a window counts every stream's copies as each transfer's",
    ),
    M(
        "measure.timing.one_stream",
        "measure/timing.py",
        (
            "self.lead = Timer(rt, rt.stream(test.transfers[0].by))\n"
            "            for t in test.transfers:\n"
            "                self.timers.append(Timer(rt, "
            "rt.stream(t.by)))"
        ),
        (
            "self.lead = Timer(rt, rt.stream(test.transfers[0].by))\n"
            "            for t in test.transfers:\n"
            "                self.timers.append(Timer(rt, "
            "rt.stream(test.transfers[0].by)))"
        ),
        ("every transfer of a window runs on the first transfer's device"),
    ),
    M(
        "measure.timing.bidir_one_round",
        "measure/timing.py",
        "    rounds = min(n, 4)",
        "    rounds = 1",
        ("bidirectional copies not interleaved: one direction's window, then the other's"),
    ),
    M(
        "measure.timing.own_time_is_window",
        "measure/timing.py",
        ("                Timing(n, rt.elapsed_ms(t.start, t.end) * 1000.0, ns / 1000.0)"),
        ("                Timing(n, rt.elapsed_ms(lead.start, lead.end) * 1000.0, ns / 1000.0)"),
        "each transfer's time is the whole window",
    ),
]
