"""Mutants of ``ascend_p2p_lab/measure/timing.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import COMMAND_TESTS, SIM_TESTS, SWEEP_TESTS, M, Mutant

#: the tests that should catch them
TESTS = (
    "tests/measure/test_timing.py",
    *SWEEP_TESTS,
    "tests/test_schema.py",
    "tests/measure/test_probe.py",
    "tests/measure/test_buffers.py",
    "tests/measure/test_outcomes.py",
    "tests/measure/test_spec.py",
    "tests/run/test_value.py",
    "tests/test_units.py",
    "tests/measure/test_links.py",
    "tests/measure/test_pairs.py",
    "tests/acceptance/test_verdicts.py",
)

MUTANTS: list[Mutant] = [
    M(
        "measure.timing.copies_for_floor",
        "measure/timing.py",
        "math.ceil(min_sample_us / per_copy_us)",
        "int(min_sample_us / per_copy_us)",
        "samples may fall short of min_sample_us",
        TESTS,
    ),
    M(
        "measure.timing.copies_for_no_cap",
        "measure/timing.py",
        ("max(1, min(max_copies, math.ceil(min_sample_us / per_copy_us)))"),
        "max(1, math.ceil(min_sample_us / per_copy_us))",
        "max_copies ignored",
        TESTS,
    ),
    M(
        "measure.timing.host_time_units",
        "measure/timing.py",
        "return Timing(copies, elapsed_ms * 1000.0, host_ns / 1000.0)",
        "return Timing(copies, elapsed_ms * 1000.0, host_ns / 1e6)",
        "host enqueue time in ms, not us (host_bound never set)",
        TESTS,
    ),
    M(
        "measure.timing.calibrate_total_not_per_copy",
        "measure/timing.py",
        ("copies = copies_for(first.per_copy_us, min_sample_us, max_copies)"),
        ("copies = copies_for(first.span_us, min_sample_us, max_copies)"),
        ("calibration divides by the warm-up window, not the time per copy"),
        TESTS,
    ),
    M(
        "measure.timing.calibrate_no_trial",
        "measure/timing.py",
        "if trial.span_us < min_sample_us:",
        "if False:",
        "a trial shorter than min_sample_us is not corrected",
        TESTS,
    ),
    M(
        "measure.timing.bi_calibrate_slower",
        "measure/timing.py",
        "return min(t.elapsed_us / t.copies for t in self.each)",
        "return max(t.elapsed_us / t.copies for t in self.each)",
        "interleaved samples sized on the slower direction",
        (
            "tests/measure/test_timing.py",
            *SWEEP_TESTS,
            "tests/test_schema.py",
            "tests/measure/test_probe.py",
            "tests/measure/test_buffers.py",
            "tests/measure/test_outcomes.py",
            "tests/measure/test_spec.py",
            "tests/run/test_value.py",
            "tests/test_units.py",
            *COMMAND_TESTS,
            "tests/runtime/test_runtime.py",
            *SIM_TESTS,
            "tests/test_results.py",
            "tests/topology/test_presets.py",
        ),
    ),
    M(
        "measure.timing.warmup_ignored",
        "measure/timing.py",
        "first = measure(max(warmup, 1))",
        "first = measure(1)",
        "--warmup ignored: always one warm-up copy",
        ("tests/measure/test_timing.py::test_the_copies_issued_grow_with_the_warmup_asked_for",),
    ),
    M(
        "measure.timing.bi_copies_n",
        "measure/timing.py",
        ("return Sample(None, tuple(Timing(rounds * per, e, host_us) for e in elapsed))"),
        ("return Sample(None, tuple(Timing(n, e, host_us) for e in elapsed))"),
        ("interleaved samples report n copies when rounds * per were timed"),
        TESTS,
    ),
    M(
        "measure.timing.bi_same_window",
        "measure/timing.py",
        ("elapsed = [rt.elapsed_ms(t.start, t.end) * 1000.0 for t in timers]"),
        ("elapsed = [rt.elapsed_ms(timers[0].start, timers[0].end) * 1000.0 for t in timers]"),
        "every direction reports the first direction's window",
        TESTS,
    ),
    M(
        "measure.timing.fanout_copies_n",
        "measure/timing.py",
        ("return Sample(Timing(n, window_us, sum(host_ns) / 1000.0), each)"),
        ("return Sample(Timing(n * len(self.timers), window_us, sum(host_ns) / 1000.0), each)"),
        "a window counts every stream's copies as each transfer's",
        TESTS,
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
        (
            "tests/cli/test_cmd_compare.py",
            "tests/cli/test_cmd_patterns.py",
            "tests/cli/test_cmd_run.py",
            *SWEEP_TESTS,
            "tests/patterns/test_testfile.py",
            "tests/patterns/test_model.py",
            *COMMAND_TESTS,
            "tests/patterns/test_builtin.py",
            "tests/plots/test_testbars.py",
            "tests/widgets/test_dashboard.py",
        ),
    ),
    M(
        "measure.timing.bidir_one_round",
        "measure/timing.py",
        "    rounds = min(n, 4)",
        "    rounds = 1",
        ("bidirectional copies not interleaved: one direction's window, then the other's"),
        ("tests/measure/test_timing.py::test_bidirectional_copies_are_enqueued_interleaved",),
    ),
    M(
        "measure.timing.own_time_is_window",
        "measure/timing.py",
        ("                Timing(n, rt.elapsed_ms(t.start, t.end) * 1000.0, ns / 1000.0)"),
        ("                Timing(n, rt.elapsed_ms(lead.start, lead.end) * 1000.0, ns / 1000.0)"),
        "each transfer's time is the whole window",
        (
            "tests/cli/test_cmd_compare.py",
            "tests/cli/test_cmd_patterns.py",
            "tests/cli/test_cmd_run.py",
            *SWEEP_TESTS,
            "tests/patterns/test_testfile.py",
            "tests/patterns/test_model.py",
            *COMMAND_TESTS,
            "tests/patterns/test_builtin.py",
            "tests/plots/test_testbars.py",
            "tests/widgets/test_dashboard.py",
        ),
    ),
]
