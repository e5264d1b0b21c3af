"""Mutants of ``ascend_p2p_lab/fleet/task.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "fleet.task.run_options_dropped",
        "fleet/task.py",
        (
            "        run_options = {k: options[k] for k in "
            '("checkpoint", "on_block", "workers") if k in options}'
        ),
        "        run_options = {}",
        "a host's run loses the survey's run options (on_block, checkpoint, workers)",
        tests=(
            "tests/fleet/test_hosts.py::test_a_host_interrupted_on_its_server_keeps_what_it_measured",
        ),
    ),
    M(
        "fleet.task.tests_reordered",
        "fleet/task.py",
        "run_tests(rt, plan(rt, spec), spec.sampling",
        "run_tests(rt, plan(rt, spec)[::-1], spec.sampling",
        "a host runs its spec's tests in another order than the plan's",
        tests=(
            "tests/fleet/test_task.py::test_a_host_runs_the_spec_of_its_options_through_plan_and_run_tests",
        ),
    ),
]
