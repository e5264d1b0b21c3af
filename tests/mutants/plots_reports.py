"""Mutants of ``ascend_p2p_lab/plots/reports.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "plots.reports.no_card_matrix",
        "plots/reports.py",
        "    jobs += _cards(run)\n",
        "",
        "report() leaves the card matrices out",
    ),
    M(
        "plots.reports.no_uni_vs_bi_off",
        "plots/reports.py",
        'for peer in ("on", "off"):',
        'for peer in ("on",):',
        "report() skips uni_vs_bi for peer off",
    ),
    M(
        "plots.reports.no_total",
        "plots/reports.py",
        ('if direction == BI and rows["bidir_total_GBps"].notna().any():'),
        ('if direction == "both" and rows["bidir_total_GBps"].notna().any():'),
        "report() skips the bidirectional total heatmap",
    ),
    M(
        "plots.reports.no_peer_on_off",
        "plots/reports.py",
        '    if {ON, OFF} <= set(distinct(uni, "peer")) and uni["bandwidth_GBps"].notna().any():',
        (
            '    if {ON, OFF, "current"} <= set(distinct(uni, "peer")) and uni[\n'
            '        "bandwidth_GBps"\n'
            "    ].notna().any():"
        ),
        "report() skips peer_on_off",
    ),
    M(
        "plots.reports.parallel_order",
        "plots/reports.py",
        ("            return pool.map(_draw_forked, range(len(jobs)), chunksize=1)"),
        ("            return sorted(pool.map(_draw_forked, range(len(jobs)), chunksize=1))"),
        "report's paths in file-name order when drawn in workers",
    ),
    M(
        "plots.reports.collected_as_often",
        "plots/reports.py",
        "    with measured_once(), fewer_collections(), ticks_copied():",
        "    with measured_once(), ticks_copied():",
        "the report drawn with the young generation collected every 700 allocations "
        "(0.1 s more CPU of the A2 demo's)",
    ),
    M(
        "plots.reports.ticks_built",
        "plots/reports.py",
        "    with measured_once(), fewer_collections(), ticks_copied():",
        "    with measured_once(), fewer_collections():",
        "a report's ticks each built by matplotlib (~0.25 s more CPU of the A2 demo's)",
    ),
    M(
        "plots.reports.plan_every_column",
        "plots/reports.py",
        '    pairs = narrow(run, PLANNED, eq(run["pattern"], PAIR_PATTERN))\n',
        '    pairs = run[eq(run["pattern"], PAIR_PATTERN)]\n',
        "the plan selects the pair rows' every column (the same plan, ~60 columns a selection)",
    ),
    M(
        "plots.reports.in_process_always_copies",
        "plots/reports.py",
        "    return run if keep.all() else run[keep]\n",
        "    return run[keep]\n",
        "a run without IPC or die-link rows selected whole again (every column, ~5 ms)",
    ),
    M(
        "plots.reports.pool_not_deferred",
        "plots/reports.py",
        "                with ctrl_c_deferred():  # the pool made whole, then stopped on leaving\n",
        "                if True:\n",
        "a Ctrl-C as the drawing pool starts leaves its workers running after the command",
    ),
]
