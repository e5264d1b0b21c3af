"""Mutants of ``ascend_p2p_lab/cli/cmd_collectives.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "cli.cmd_collectives.devices_ignored",
        "cli/cmd_collectives.py",
        "            devices=args.devices,\n            **options.sampled(args),",
        "            devices=None,\n            **options.sampled(args),",
        "collectives --devices runs the ops on every device of the server",
        tests=(
            "tests/cli/test_cmd_collectives.py::test_the_command_runs_its_spec_through_plan_and_run_tests",
        ),
    ),
    M(
        "cli.cmd_collectives.params_lost",
        "cli/cmd_collectives.py",
        "            params=spec.to_dict(),\n            progress=not args.no_progress,",
        "            progress=not args.no_progress,",
        "a collectives run's run.json holds no parameters (nothing to re-run or compare)",
        tests=(
            "tests/cli/test_cmd_collectives.py::test_the_command_runs_its_spec_through_plan_and_run_tests",
        ),
    ),
    M(
        "cli.cmd_collectives.links_unchecked",
        "cli/cmd_collectives.py",
        "            measured_pairs(links.samples)\n",
        "            pass\n",
        "a --links run without pair rows found only after every collective ran (exit 1)",
    ),
]
