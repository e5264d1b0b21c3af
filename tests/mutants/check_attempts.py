"""Mutants of ``ascend_p2p_lab/check/attempts.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "check.attempts.passes_too_soon",
        "check/attempts.py",
        "    need = attempts - fail_at + 1",
        "    need = attempts - fail_at",
        "a failing item passes after one pass fewer than N - K + 1",
    ),
    M(
        "check.attempts.facts_measured_again",
        "check/attempts.py",
        'todo = failed & items["kind"].isin(RETRIED_KINDS).to_numpy() & (fail_at > 1)',
        "todo = failed & (fail_at > 1)",
        "a failing topology item (a fact) is measured again as if it were noise",
    ),
    M(
        "check.attempts.every_pair_again",
        "check/attempts.py",
        "            out.append(Work(w.label, replace(w.spec, patterns=paired, pairs=pairs)))",
        "            out.append(Work(w.label, replace(w.spec, patterns=paired)))",
        "measuring again re-runs every pair, not only the failing ones",
    ),
    M(
        "check.attempts.cli_drops_rule",
        "cli/cmd_check.py",
        "            attempts=args.attempts,\n            fail_at=args.fail_at,\n",
        "",
        "check takes --attempts and --fail-at and measures once",
    ),
    M(
        "check.attempts.fleet_one_pass",
        "cli/cmd_fleet.py",
        "            after=_after(args, sweep_options),\n",
        "",
        "fleet takes --attempts and --fail-at and measures each host once",
        tests=("tests/check/test_fleetitems.py",),
    ),
    M(
        "check.attempts.fleet_host_ignores_again",
        "check/attempts.py",
        "    hit = key.isin(again.index)",
        "    hit = key.isin(again.index) & False",
        "a fleet's items keep their first pass when the host measured them again",
    ),
    M(
        "check.attempts.warn_settles_as_fail",
        "check/attempts.py",
        '    items.loc[settled_fail, "status"] = _failed_state(items[settled_fail])',
        '    items.loc[settled_fail, "status"] = FAIL',
        "an item of severity warn measured again fails instead of warning",
        tests=("tests/check/test_severity.py",),
    ),
    M(
        "check.attempts.warn_not_again",
        "check/attempts.py",
        '    failed = items["status"].isin(FAILING).to_numpy()',
        '    failed = (items["status"] == FAIL).to_numpy()',
        "a warned item is not measured again",
        tests=("tests/check/test_severity.py",),
    ),
]
