"""Mutants of ``ascend_p2p_lab/cli/ipcsummary.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "cli.ipcsummary.small_sizes_compared",
        "cli/ipcsummary.py",
        '    cmp = cmp[cmp["size_bytes"] >= MIN_COMPARED_BYTES]\n',
        "",
        "IPC / in-process ratios include copies below 1 MiB",
    ),
    M(
        "cli.ipcsummary.initiators_pooled",
        "cli/ipcsummary.py",
        '        cmp.groupby(["link", "initiator", "size_bytes"])["ratio"]',
        '        cmp.assign(initiator="dst").groupby(["link", "initiator", "size_bytes"])["ratio"]',
        "pulls and pushes pooled into one ratio, filed under pull",
    ),
    M(
        "cli.ipcsummary.lost_workers_unsaid",
        "cli/ipcsummary.py",
        "    if len(lost):",
        "    if False:",
        "rows lost with their worker are not said",
    ),
]
