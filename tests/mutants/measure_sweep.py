"""Mutants of ``ascend_p2p_lab/measure/sweep.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "measure.sweep.points_not_reached_zero",
        "measure/sweep.py",
        ('meta["points_not_reached"] = sum(len(ctx.remaining(b)) for b in tests)'),
        'meta["points_not_reached"] = 0',
        "points a stopped run never reached go uncounted",
        tests=(
            "tests/cli/test_runoutput.py::test_a_run_that_stops_early_counts_the_points_it_never_reached",
        ),
    ),
    M(
        "measure.sweep.checkpoint_whole_unchecked",
        "measure/sweep.py",
        ("    if ckpt is not None and {b.key for b in tests} <= ckpt.keys:"),
        "    if ckpt is not None:",
        (
            "a run with blocks still to measure says its checkpoint is "
            "finished: saving it removes what the rerun needs"
        ),
        tests=(
            "tests/cli/test_cmd_sweep.py::test_the_command_resumes_into_its_own_run_and_then_removes_the_checkpoint",
            "tests/measure/test_checkpoint.py::test_a_sweep_killed_after_k_blocks_resumes_where_it_stopped",
        ),
    ),
    M(
        "measure.sweep.runtime_fallbacks_dropped",
        "measure/sweep.py",
        "{**rt.fallbacks, **ctx.fallbacks}",
        "dict(ctx.fallbacks)",
        "the runtime's fallbacks (aclrtCreateEvent for a missing ...WithFlag) are not in run.json",
    ),
    M(
        "measure.sweep.run_tests_first_test_only",
        "measure/sweep.py",
        "    todo = [b for b in tests if b.key not in done_blocks]",
        "    todo = [b for b in tests if b.key not in done_blocks][:1]",
        "run_tests runs the first of the tests it is given, not each",
        (
            "tests/measure/test_sweep.py::test_run_tests_measures_each_test_s_own_transfers_src_to_dst",
        ),
    ),
]
