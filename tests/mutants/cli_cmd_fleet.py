"""Mutants of ``ascend_p2p_lab/cli/cmd_fleet.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "cli.cmd_fleet.fleet_tls_unchecked",
        "cli/cmd_fleet.py",
        ("        if missing:\n            raise UsageError"),
        ("        if False:\n            raise UsageError"),
        ("a tls:// scheduler without the client's certificates goes on to connect"),
    ),
    M(
        "cli.cmd_fleet.sampling_not_passed",
        "cli/cmd_fleet.py",
        '    sweep_options = {"sizes": args.sizes, **sampling}',
        '    sweep_options = {"sizes": args.sizes, "samples": args.samples}',
        "fleet --warmup and --min-sample-ms do not reach the hosts' sweeps",
    ),
    M(
        "cli.cmd_fleet.sampling_unchecked",
        "cli/cmd_fleet.py",
        "        check_sampling(**sampling)",
        "        pass",
        "bad sampling options start a cluster and fail on every host",
    ),
    M(
        "cli.cmd_fleet.criteria_not_named",
        "cli/cmd_fleet.py",
        "            **named,\n",
        "",
        "fleet --criteria --format json does not name the server and criteria it judged",
        tests=("tests/check/test_fleetitems.py::test_cli_fleet_with_criteria",),
    ),
    M(
        "cli.cmd_fleet.warn_host_fails",
        "cli/cmd_fleet.py",
        '    status = max(verdict["exit_status"], 1 if failing or (warned and strict) else 0)',
        '    status = max(verdict["exit_status"], 1 if failing or warned else 0)',
        "a fleet whose hosts only warn exits 1 without --strict",
        tests=("tests/check/test_fleetitems.py",),
    ),
]
