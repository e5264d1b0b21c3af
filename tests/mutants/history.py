"""Mutants of ``ascend_p2p_lab/history/`` and ``--history`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "history.store.foreign_accepted",
        "history/store.py",
        "                if app == APPLICATION_ID:\n",
        "                if True:\n",
        "another application's SQLite file is taken for a history store",
    ),
    M(
        "history.drift.last_value_not_median",
        "history/drift.py",
        "    recent = float(np.median(after[-rule.recent :]))",
        "    recent = float(after[-1])",
        "one bad run (a transient dip) is named a drift",
    ),
    M(
        "history.drift.failed_runs_in_baseline",
        "history/drift.py",
        "    ok = np.flatnonzero(~failed)[: rule.baseline]",
        "    ok = np.arange(len(values))[: rule.baseline]",
        "a run that failed its check is part of the baseline",
    ),
    M(
        "history.cli.check_appends_nothing",
        "cli/cmd_check.py",
        "    append_items(args.history_store, items, result.measured.run.meta)\n",
        "",
        "check --history appends nothing",
        tests=("tests/cli/test_cmd_history.py",),
    ),
]
MUTANTS += [
    M(
        "history.baseline.failed_runs_count",
        "history/baseline.py",
        '    ok = by_run[~by_run["failed"]].sort_values("time", kind="stable")',
        '    ok = by_run.sort_values("time", kind="stable")',
        "a run that failed its check is part of the baseline",
    ),
    M(
        "history.baseline.no_tolerance",
        "history/baseline.py",
        "    tol = max(tolerance, SPREADS * spread)",
        "    tol = SPREADS * spread",
        "a baseline's bars sit at the median less the spread alone (a healthy run fails)",
    ),
]
MUTANTS += [
    M(
        "history.drift.of_run_every_host",
        "history/drift.py",
        "    table = trends(records[keys.isin(marks.index)], rule)\n",
        '    table = trends(records[records["item"].isin(marks.index.get_level_values(1))], rule)\n',
        "report --history draws an item's history from every host that has it, not the run's",
    ),
    M(
        "history.report.run_not_marked",
        "plots/history.py",
        '            mark=row.get("mark"),\n',
        "            mark=None,\n",
        "report --history does not mark the run reported on its item's history",
    ),
]
