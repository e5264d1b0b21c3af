"""The ``history`` command: per-item trends of a history store, and drift.

``history DB [--host H] [--since DATE] [--item TEXT] [--drift] [--format table|json]
[--plot DIR]`` reads what ``--history DB`` appended (sweep, run, check, collectives,
fleet) and shows, per host and item, its values, its baseline band and whether its
recent values drift (``ascend_p2p_lab.history.drift``: the rule and its basis).

Example:
    $ ascend-p2p-lab history fleet.db --host atlas01 --drift --format json
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..texttable import Column, print_table
from .exitstatus import UsageError, bad_input, past_input_checks
from .options import add_format, subcommand

#: The command this module adds and runs.
NAME = "history"
#: An item's line: host, item, its number of values, then the last and its baseline.
ROW = (Column(), Column(width=40), Column(width=4, align=">", gap=" "), Column(gap=" "))

HISTORY_HELP = "per-item trends of a history store (--history DB), baseline bands and drift"
HISTORY_EPILOG = """\
exit status:
  0    shown (with --drift: no item drifts)
  1    with --drift: an item drifts (listed)
  2    bad input: no such store, a file that is no history store (damaged, or another
       application's SQLite), a bad --since date
"""


def add(sub: Any) -> None:
    """``history``: its options."""
    p = subcommand(sub, NAME, HISTORY_HELP)
    p.epilog = HISTORY_EPILOG
    p.add_argument("db", type=Path, metavar="DB", help="a history store (see --history)")
    p.add_argument("--host", default=None, help="only this host (default: every host)")
    p.add_argument(
        "--since", default=None, metavar="DATE", help="only records from DATE on (YYYY-MM-DD)"
    )
    p.add_argument(
        "--item", default=None, metavar="TEXT", help="only items whose name contains TEXT"
    )
    p.add_argument(
        "--drift", action="store_true", help="only the items that drift from their baseline"
    )
    add_format(p, "one line per host and item", json="json: every value")
    p.add_argument(
        "--plot",
        type=Path,
        default=None,
        metavar="DIR",
        help="write one figure per item shown (PNG: its values and baseline band) into DIR",
    )


def run(args: argparse.Namespace) -> int:
    """Show the trends (table or JSON), draw them with --plot; the status."""
    import datetime as _dt

    from ..history import DriftRule, HistoryError, HistoryStore, rule_dict, trends
    from .output import output_for

    if not args.db.is_file():
        raise UsageError(f"{args.db}: no such history store")
    since = None
    if args.since is not None:
        try:
            since = _dt.date.fromisoformat(args.since).isoformat()
        except ValueError:
            raise UsageError(f"--since {args.since}: not a date (YYYY-MM-DD)") from None
    with bad_input(kind=HistoryError):
        records = HistoryStore(args.db).read(host=args.host, since=since)
    with past_input_checks():
        rule = DriftRule()
        table = trends(records, rule)
        if args.item is not None:
            table = table[table["item"].str.contains(args.item, regex=False)]
        if args.drift:
            table = table[table["drift"].notna()]
        units = records.drop_duplicates(["host", "item"]).set_index(["host", "item"])["unit"]
        out = output_for(args.format)
        keys = ["host", "item", "values", "baseline", "drift"]
        out.json(lambda: {"items": table[keys].to_dict("records"), "rule": rule_dict(rule)})
        out.table(lambda: _print_table(table, units, rule))
        if args.plot is not None:
            from ..plots import write_item_histories  # the plot extra: only when asked for

            paths = write_item_histories(table, args.plot, units)
            print(f"wrote {len(paths)} figure(s) into {args.plot}")
        return 1 if args.drift and len(table) else 0


def _print_table(table: Any, units: Any, rule: Any) -> None:
    if table.empty:
        print("no item")
    print_table((_row(row, units) for row in table.itertuples(index=False)), ROW, header=False)
    print(f"\ndrift rule: {rule.describe()}")


def _row(row: Any, units: Any) -> list[object]:
    """One item's line: host, item, how many values, the last, the baseline, a drift."""
    unit = units.get((row.host, row.item)) or ""
    last = row.values[-1]["value"]
    base = row.baseline
    band = (
        "no baseline yet"
        if base is None
        else (f"baseline {base['median']:.4g} [{base['low']:.4g}, {base['high']:.4g}]")
    )
    drift = (
        ""
        if row.drift is None
        else f"  DRIFT {row.drift['direction']} {row.drift['change']:+.1%} "
        f"since {row.drift['since'][:10]}"
    )
    return [row.host, row.item, len(row.values), f"values, last {last:.4g} {unit}  {band}{drift}"]
